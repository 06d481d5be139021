"""DBLP: a matched computer-science paper's final venue and DOI (asked only after a match).

dblp.org/faq/How+to+use+the+dblp+search+API.html: `GET /search/publ/api?q=WORDS&format=json
&h=N&f=0` (`h` at most 1000) answers `{"result": {"query", "status": {"@code", "text"},
"hits": {"@total", "@sent", "@first", "hit": [{"@score", "@id", "info": {...}}]}}}`; `hit`
is absent when nothing matched; `info` has `title` (ending in "."), `venue`, `year` (a
string), `doi`, `ee`, `key`, `url`, `type`, and `authors.author`: a list of `{"@pid",
"text"}`, or one such object for a single author. arXiv preprints are listed under the
venue "CoRR". No published rate limit; one request a second is polite.
"""

from __future__ import annotations

import json
from typing import Any

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http, Malformed, base_url, host_of
from bib.resolve.text import words

NAME = "dblp"
DEFAULT_URL = "https://dblp.org"
INTERVAL = 1.0
RESULTS = 5


def _authors(info: dict[str, Any]) -> tuple[str, ...]:
    listed = (info.get("authors") or {}).get("author") or []
    if isinstance(listed, dict):
        listed = [listed]
    names = (a.get("text") if isinstance(a, dict) else a for a in listed)
    return tuple(str(n) for n in names if n)


def hit_candidate(hit: Any) -> Candidate:
    info = hit.get("info") if isinstance(hit, dict) else None
    if not isinstance(info, dict) or not isinstance(info.get("key"), str):
        raise Malformed(f"{NAME}: a hit without info.key")
    year = str(info.get("year") or "")
    venue = info.get("venue") or ""
    return Candidate(
        source=NAME,
        source_id=info["key"],
        title=str(info.get("title") or "").rstrip("."),
        authors=_authors(info),
        year=int(year) if year.isdigit() else None,
        venue=" ".join(venue) if isinstance(venue, list) else str(venue),
        doi=str(info.get("doi") or ""),
        url=str(info.get("ee") or ""),
    )


class Dblp:
    name = NAME

    def __init__(self, http: Http):
        self.http = http
        self.base = base_url("BIB_DBLP_URL", DEFAULT_URL)
        self.http.intervals.setdefault(host_of(self.base), INTERVAL)

    def search(self, query: Query) -> list[Candidate]:
        terms = " ".join(words(query.title))
        if not terms:
            return []
        params = {"q": terms, "format": "json", "h": str(RESULTS), "f": "0"}
        answer = self.http.request("GET", f"{self.base}/search/publ/api", params, source=NAME)
        if answer.status >= 400:
            return []
        try:
            hits = json.loads(answer.text)["result"]["hits"]
        except (ValueError, KeyError, TypeError) as exc:
            raise Malformed(f"{NAME}: the answer has no result.hits") from exc
        listed = hits.get("hit", []) if isinstance(hits, dict) else None
        if not isinstance(listed, list):
            raise Malformed(f"{NAME}: result.hits.hit is not a list")
        return [hit_candidate(h) for h in listed]

    def fetch(self, identifier: str) -> Candidate | None:
        return None

    def venue(self, venue: str, year: int) -> list[Candidate]:
        return []
