"""OpenAlex: a matched paper's DOI and final venue (asked only after a match, never to match).

developers.openalex.org/api-reference/works: `GET /works?search=TEXT&filter=publication_year:
A-B&per_page=N` answers `{"meta": {"count", "page", "per_page", ...}, "results": [work]}`; a
work has `id` (`https://openalex.org/W...`), `doi` (`https://doi.org/10...` or null),
`display_name`, `publication_year`, `authorships[].author.display_name` and
`primary_location.source.display_name`. `GET /works/doi:10...` is one work (404 if unknown).
The key goes in the `api_key` parameter (developers.openalex.org/api-reference/authentication:
at most 100 requests a second; without a key a tiny daily allowance).
"""

from __future__ import annotations

import json
import os
from typing import Any

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http, Malformed, base_url, host_of

NAME = "openalex"
DEFAULT_URL = "https://api.openalex.org"
INTERVAL = 0.1
"""Ten requests a second: a tenth of the published 100/s, so one run never nears the cap."""
RESULTS = 5
_DOI_PREFIX = "https://doi.org/"


def _name(value: Any) -> str:
    return str(value.get("display_name") or "") if isinstance(value, dict) else ""


def work_candidate(work: Any) -> Candidate:
    if not isinstance(work, dict) or not isinstance(work.get("id"), str):
        raise Malformed(f"{NAME}: a work without id")
    authorships = work.get("authorships") or []
    location = work.get("primary_location") or {}
    year = work.get("publication_year")
    doi = str(work.get("doi") or "")
    return Candidate(
        source=NAME,
        source_id=work["id"].rsplit("/", 1)[-1],
        title=str(work.get("display_name") or work.get("title") or ""),
        authors=tuple(
            _name(a.get("author")) for a in authorships if isinstance(a, dict) and a.get("author")
        ),
        year=year if isinstance(year, int) else None,
        venue=_name(location.get("source")) if isinstance(location, dict) else "",
        doi=doi.removeprefix(_DOI_PREFIX),
    )


class OpenAlex:
    name = NAME

    def __init__(self, http: Http):
        self.http = http
        self.base = base_url("BIB_OPENALEX_URL", DEFAULT_URL)
        key = os.environ.get("OPENALEX_API_KEY", "")
        mailto = os.environ.get("BIB_MAILTO", "")
        self.auth = {"api_key": key} if key else ({"mailto": mailto} if mailto else {})
        self.http.intervals.setdefault(host_of(self.base), INTERVAL)

    def _get(self, path: str, params: dict[str, str]) -> Any:
        answer = self.http.request(
            "GET", f"{self.base}{path}", {**params, **self.auth}, source=NAME, secret=("api_key",)
        )
        if answer.status >= 400:
            return None
        try:
            return json.loads(answer.text)
        except ValueError as exc:
            raise Malformed(f"{NAME}: the answer is not JSON") from exc

    def search(self, query: Query) -> list[Candidate]:
        if not query.title:
            return []
        params = {"search": query.title, "per_page": str(RESULTS)}
        if query.year:
            params["filter"] = f"publication_year:{query.year - 1}-{query.year + 1}"
        data = self._get("/works", params)
        if data is None:
            return []
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise Malformed(f"{NAME}: the answer has no 'results' list")
        return [work_candidate(w) for w in data["results"]]

    def fetch(self, identifier: str) -> Candidate | None:
        data = self._get(f"/works/doi:{identifier}", {})
        return work_candidate(data) if data is not None else None

    def venue(self, venue: str, year: int) -> list[Candidate]:
        return []
