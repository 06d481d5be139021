"""Crossref REST API: a matched paper's DOI and final venue (asked only after a match).

api.crossref.org/swagger-ui (works): `GET /works?query.bibliographic=TEXT&rows=N&filter=
from-pub-date:Y,until-pub-date:Y` answers `{"status": "ok", "message-type": "work-list",
"message": {"total-results", "items": [work], ...}}`; a work has `DOI`, `title` and
`container-title` (lists of strings), `author` (`given`, `family`), `issued.date-parts`
(`[[year, month, day]]`, parts optional). `GET /works/{doi}` answers one work as
`"message-type": "work"`, 404 if unknown. Polite pool: a `mailto` parameter
(crossref.org/documentation/retrieve-metadata/rest-api/access-and-authentication: public and
polite pools 50 requests a second, 5 at once).
"""

from __future__ import annotations

import json
import os
from typing import Any

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http, Malformed, base_url, host_of

NAME = "crossref"
DEFAULT_URL = "https://api.crossref.org"
INTERVAL = 0.1
"""Ten requests a second, one at a time: well inside the published 50/s and 5 at once."""
RESULTS = 5


def _first(value: Any) -> str:
    return str(value[0]) if isinstance(value, list) and value else ""


def _year(work: dict[str, Any]) -> int | None:
    for name in ("issued", "published", "published-print", "published-online"):
        parts = (work.get(name) or {}).get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            year = parts[0][0]
            if isinstance(year, int):
                return year
    return None


def _author(author: Any) -> str:
    if not isinstance(author, dict):
        return ""
    return " ".join(str(author.get(p) or "") for p in ("given", "family")).strip() or str(
        author.get("name") or ""
    )


def work_candidate(work: Any) -> Candidate:
    if not isinstance(work, dict) or not isinstance(work.get("DOI"), str):
        raise Malformed(f"{NAME}: a work without DOI")
    return Candidate(
        source=NAME,
        source_id=work["DOI"],
        title=_first(work.get("title")),
        authors=tuple(a for a in map(_author, work.get("author") or []) if a),
        year=_year(work),
        venue=_first(work.get("container-title")),
        doi=work["DOI"],
        url=str(work.get("URL") or ""),
    )


def _message(data: Any, kind: str) -> Any:
    if (
        not isinstance(data, dict)
        or data.get("status") != "ok"
        or data.get("message-type") != kind
        or not isinstance(data.get("message"), dict)
    ):
        raise Malformed(f"{NAME}: the answer is not a {kind} message")
    return data["message"]


class Crossref:
    name = NAME

    def __init__(self, http: Http):
        self.http = http
        self.base = base_url("BIB_CROSSREF_URL", DEFAULT_URL)
        mailto = os.environ.get("BIB_MAILTO", "")
        self.polite = {"mailto": mailto} if mailto else {}
        self.http.intervals.setdefault(host_of(self.base), INTERVAL)

    def _get(self, path: str, params: dict[str, str]) -> Any:
        answer = self.http.request(
            "GET", f"{self.base}{path}", {**params, **self.polite}, source=NAME
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
        params = {"query.bibliographic": query.title, "rows": str(RESULTS)}
        if query.year:
            params["filter"] = f"from-pub-date:{query.year - 1},until-pub-date:{query.year + 1}"
        data = self._get("/works", params)
        if data is None:
            return []
        items = _message(data, "work-list").get("items")
        if not isinstance(items, list):
            raise Malformed(f"{NAME}: the work list has no 'items'")
        return [work_candidate(w) for w in items]

    def fetch(self, identifier: str) -> Candidate | None:
        data = self._get(f"/works/{identifier}", {})
        return work_candidate(_message(data, "work")) if data is not None else None

    def venue(self, venue: str, year: int) -> list[Candidate]:
        return []
