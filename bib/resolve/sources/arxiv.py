"""arXiv API: search abstracts by their distinctive words, fetch by id (Atom 1.0 answers).

info.arxiv.org/help/api/user-manual.html: `GET /api/query?search_query=abs:x AND abs:y`,
`id_list=`, `max_results=`; entries carry `title`, `summary`, `author/name`, `id` (the abs
URL with its version), `published`, `arxiv:doi`; errors come back as an entry whose id is
`http://arxiv.org/api/errors#...`. "No more than one request every three seconds."
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http, Malformed, base_url
from bib.resolve.text import distinctive

NAME = "arxiv"
DEFAULT_URL = "https://export.arxiv.org"
INTERVAL = 3.0
RESULTS = 10
QUERY_WORDS = 6
ATOM = "{http://www.w3.org/2005/Atom}"
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


def parse_feed(text: str) -> list[Candidate]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise Malformed(f"{NAME}: the answer is not an Atom feed ({exc})") from exc
    if root.tag != f"{ATOM}feed":
        raise Malformed(f"{NAME}: the answer is not an Atom feed")
    found = (entry_candidate(e) for e in root.findall(f"{ATOM}entry"))
    return [c for c in found if c is not None]


def search_query(query: Query) -> str:
    return " AND ".join(f"abs:{word}" for word in distinctive(query.abstract, QUERY_WORDS))


class Arxiv:
    name = NAME

    def __init__(self, http: Http):
        self.http = http
        self.base = base_url("BIB_ARXIV_URL", DEFAULT_URL)
        self.http.intervals.setdefault(self.base.split("://", 1)[-1].split("/")[0], INTERVAL)

    def _query(self, params: dict[str, str]) -> list[Candidate]:
        answer = self.http.request("GET", f"{self.base}/api/query", params, source=NAME)
        if answer.status >= 400:
            return []
        return parse_feed(answer.text)

    def search(self, query: Query) -> list[Candidate]:
        terms = search_query(query)
        if not terms:
            return []
        return self._query({"search_query": terms, "max_results": str(RESULTS), "start": "0"})

    def fetch(self, identifier: str) -> Candidate | None:
        found = self._query({"id_list": identifier, "max_results": "1"})
        return found[0] if found else None

    def venue(self, venue: str, year: int) -> list[Candidate]:
        return []
