"""Semantic Scholar Graph API v1: best title match, relevance search, fetch by id.

api.semanticscholar.org/api-docs/graph: `GET /graph/v1/paper/search/match?query=&fields=`
(`{"data": [paper + matchScore]}`, 404 "Title match not found"), `GET /graph/v1/paper/search`
(`{"total", "offset", "next", "data": [...]}`), `GET /graph/v1/paper/{id}` with ids such as
`ARXIV:2503.22996` or `DOI:10...`; `POST /graph/v1/paper/batch?fields=` with the body
`{"ids": [...]}` (at most 500 ids) answers a list in the order of the ids, `null` for an id it
does not know; key in the `x-api-key` header; 429 is routine without one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http, Malformed, base_url, host_of

if TYPE_CHECKING:
    from bib.resolve.sources import KnownIds
from bib.resolve.text import distinctive

NAME = "semanticscholar"
DEFAULT_URL = "https://api.semanticscholar.org"
FIELDS = "title,abstract,authors,year,venue,externalIds,url"
INTERVAL_KEYED = 1.0
INTERVAL_SHARED = 3.0
"""Without a key the shared pool allows about 100 requests in 5 minutes: one every 3 s."""
BATCH = 500
"""The most ids `/paper/batch` takes in one request."""


def paper_candidate(paper: Any) -> Candidate:
    if not isinstance(paper, dict) or not paper.get("paperId"):
        raise Malformed(f"{NAME}: a paper without paperId")
    external = paper.get("externalIds") or {}
    authors = paper.get("authors") or []
    return Candidate(
        source=NAME,
        source_id=str(paper["paperId"]),
        title=str(paper.get("title") or ""),
        abstract=str(paper.get("abstract") or ""),
        authors=tuple(str(a.get("name", "")) for a in authors if isinstance(a, dict)),
        year=paper["year"] if isinstance(paper.get("year"), int) else None,
        venue=str(paper.get("venue") or ""),
        doi=str(external.get("DOI") or ""),
        arxiv_id=str(external.get("ArXiv") or ""),
        url=str(paper.get("url") or ""),
    )


class SemanticScholar:
    name = NAME

    def __init__(self, http: Http):
        self.http = http
        self.base = base_url("BIB_SEMANTICSCHOLAR_URL", DEFAULT_URL)
        key = os.environ.get("SEMANTIC_SCHOLAR_API_KEY", "")
        self.headers = {"x-api-key": key} if key else {}
        self.http.intervals.setdefault(
            host_of(self.base), INTERVAL_KEYED if key else INTERVAL_SHARED
        )

    def _get(self, path: str, params: dict[str, str], body: str = "") -> Any:
        answer = self.http.request(
            "POST" if body else "GET",
            f"{self.base}/graph/v1{path}",
            params,
            json_body=body,
            headers=self.headers,
            source=NAME,
        )
        if answer.status >= 400:
            return None
        try:
            return json.loads(answer.text)
        except ValueError as exc:
            raise Malformed(f"{NAME}: the answer is not JSON") from exc

    def _papers(self, data: Any) -> list[Candidate]:
        if data is None:
            return []
        if not isinstance(data, dict) or not isinstance(data.get("data", []), list):
            raise Malformed(f"{NAME}: the answer has no 'data' list")
        return [paper_candidate(p) for p in data.get("data", [])]

    def search(self, query: Query) -> list[Candidate]:
        if query.title:
            return self._papers(
                self._get("/paper/search/match", {"query": query.title, "fields": FIELDS})
            )
        terms = " ".join(distinctive(query.abstract, 10))
        if not terms:
            return []
        params = {"query": terms, "fields": FIELDS, "limit": "10"}
        if query.year:
            params["year"] = f"{query.year - 1}-{query.year}"
        return self._papers(self._get("/paper/search", params))

    def fetch(self, identifier: str) -> Candidate | None:
        data = self._get(f"/paper/{identifier}", {"fields": FIELDS})
        return paper_candidate(data) if data is not None else None

    def fetch_many(self, identifiers: Sequence[str]) -> dict[str, Candidate]:
        """Papers by id, `BATCH` ids a request instead of one request each."""
        found: dict[str, Candidate] = {}
        unique = list(dict.fromkeys(identifiers))
        for start in range(0, len(unique), BATCH):
            chunk = unique[start : start + BATCH]
            data = self._get("/paper/batch", {"fields": FIELDS}, json.dumps({"ids": chunk}))
            if data is None:
                continue
            if not isinstance(data, list) or len(data) != len(chunk):
                raise Malformed(f"{NAME}: the batch answer is not one entry per id")
            found.update(
                (ident, paper_candidate(paper))
                for ident, paper in zip(chunk, data, strict=True)
                if paper is not None
            )
        return found

    def fetch_known(self, known: Sequence[KnownIds]) -> list[Candidate | None]:
        """Each entry's paper by its arXiv id, else its DOI, in batches."""
        ids = [
            f"ARXIV:{k.arxiv_id}" if k.arxiv_id else f"DOI:{k.doi}" if k.doi else "" for k in known
        ]
        found = self.fetch_many([i for i in ids if i])
        return [found.get(i) if i else None for i in ids]

    def venue(self, venue: str, year: int) -> list[Candidate]:
        return []
