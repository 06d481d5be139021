"""arXiv API: search abstracts by their distinctive words, fetch by id (Atom 1.0 answers).

info.arxiv.org/help/api/user-manual.html: `GET /api/query?search_query=abs:x AND abs:y`,
with the Boolean operators AND, OR, ANDNOT and parentheses for grouping; `id_list=`,
`start=`, `max_results=` (at most 2000); the feed's `opensearch:totalResults` counts every hit.
Entries carry `title`, `summary`, `author/name`, `id` (the abs
URL with its version), `published`, `arxiv:doi`; errors come back as an entry whose id is
`http://arxiv.org/api/errors#...`. "No more than one request every three seconds."
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http, Malformed, base_url, host_of
from bib.resolve.text import distinctive

NAME = "arxiv"
DEFAULT_URL = "https://export.arxiv.org"
INTERVAL = 3.0
RESULTS = 10
"""Entries asked for each group of words."""
GROUP_WORDS = 4
GROUPS = 2
"""A record is searched as two groups of its four distinctive words, OR-ed: a rewording that
changes a word of one group still leaves the other group whole."""
CHUNK = 10
"""Records searched in one request (their groups OR-ed): arXiv asks one request every 3 s, so
batching is what makes a long list take minutes instead of an hour."""
MAX_PAGES = 3
ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_VERSION = re.compile(r"v\d+$")
_ID = re.compile(r"arxiv\.org/abs/(.+)$")


def _text(element: ET.Element, path: str) -> str:
    found = element.find(path)
    return " ".join((found.text or "").split()) if found is not None else ""


def entry_candidate(entry: ET.Element) -> Candidate | None:
    match = _ID.search(_text(entry, f"{ATOM}id"))
    if match is None:
        return None
    arxiv_id = _VERSION.sub("", match.group(1))
    published = _text(entry, f"{ATOM}published")
    return Candidate(
        source=NAME,
        source_id=arxiv_id,
        title=_text(entry, f"{ATOM}title"),
        abstract=_text(entry, f"{ATOM}summary"),
        authors=tuple(_text(a, f"{ATOM}name") for a in entry.findall(f"{ATOM}author")),
        year=int(published[:4]) if published[:4].isdigit() else None,
        venue=_text(entry, f"{ARXIV}journal_ref"),
        doi=_text(entry, f"{ARXIV}doi"),
        arxiv_id=arxiv_id,
        url=f"https://arxiv.org/abs/{arxiv_id}",
    )


@dataclass(frozen=True, slots=True)
class Feed:
    entries: list[Candidate]
    total: int


def parse_feed(text: str) -> Feed:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise Malformed(f"{NAME}: the answer is not an Atom feed ({exc})") from exc
    if root.tag != f"{ATOM}feed":
        raise Malformed(f"{NAME}: the answer is not an Atom feed")
    found = [e for e in map(entry_candidate, root.findall(f"{ATOM}entry")) if e is not None]
    total = _text(root, f"{OPENSEARCH}totalResults")
    return Feed(found, int(total) if total.isdigit() else len(found))


def groups(query: Query) -> list[str]:
    """The record's conjunctions: `abs:w1 AND ... abs:w4`, one per group of words."""
    chosen = distinctive(query.abstract, GROUP_WORDS * GROUPS)
    parts = [chosen[i : i + GROUP_WORDS] for i in range(0, len(chosen), GROUP_WORDS)]
    return [" AND ".join(f"abs:{word}" for word in part) for part in parts if part]


def search_query(queries: Sequence[Query]) -> str:
    """One query for several records: every record's groups, parenthesized and OR-ed."""
    found = [group for query in queries for group in groups(query)]
    return found[0] if len(found) == 1 else " OR ".join(f"({g})" for g in found)


class Arxiv:
    name = NAME

    def __init__(self, http: Http):
        self.http = http
        self.base = base_url("BIB_ARXIV_URL", DEFAULT_URL)
        self.http.intervals.setdefault(host_of(self.base), INTERVAL)

    def _query(self, params: dict[str, str]) -> Feed:
        answer = self.http.request("GET", f"{self.base}/api/query", params, source=NAME)
        if answer.status >= 400:
            return Feed([], 0)
        return parse_feed(answer.text)

    def _search(self, queries: Sequence[Query]) -> list[Candidate]:
        terms = search_query(queries)
        if not terms:
            return []
        count = RESULTS * max(1, terms.count(" OR ") + 1)
        found: list[Candidate] = []
        for page in range(MAX_PAGES):
            params = {"search_query": terms, "max_results": str(count), "start": str(page * count)}
            feed = self._query(params)
            found.extend(feed.entries)
            if not feed.entries or (page + 1) * count >= feed.total:
                break
        return found

    def search_many(self, queries: Sequence[Query]) -> list[list[Candidate]]:
        """`CHUNK` records a request; each record gets every paper its chunk found."""
        answers: list[list[Candidate]] = []
        for start in range(0, len(queries), CHUNK):
            chunk = queries[start : start + CHUNK]
            found = self._search(chunk)
            answers.extend(found for _ in chunk)
        return answers

    def search(self, query: Query) -> list[Candidate]:
        return self._search([query])

    def fetch(self, identifier: str) -> Candidate | None:
        found = self._query({"id_list": identifier, "max_results": "1"}).entries
        return found[0] if found else None

    def venue(self, venue: str, year: int) -> list[Candidate]:
        return []
