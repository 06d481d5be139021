"""OpenReview API v2: a venue's accepted papers, fetched once and matched locally.

`GET /notes?content.venueid=<venue id>&limit=1000&offset=N` (docs.openreview.net, "How to get
all submissions"); every content value is wrapped as `{"value": ...}` in API v2.
"""

from __future__ import annotations

import json
from typing import Any

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http, Malformed, base_url, host_of

NAME = "openreview"
DEFAULT_URL = "https://api2.openreview.net"
PAGE = 1000
MAX_PAGES = 20
"""A cap on pages per venue (20,000 papers), so a server that never stops paging cannot loop."""

VENUE_GROUPS = {
    "ICML": "ICML.cc",
    "ICLR": "ICLR.cc",
    "NEURIPS": "NeurIPS.cc",
    "COLM": "colmweb.org",
}
INTERVAL = 1.0
"""OpenReview publishes no limit for public reads; one request a second is polite."""


def venue_id(venue: str, year: int) -> str | None:
    group = VENUE_GROUPS.get(venue.upper())
    return f"{group}/{year}/Conference" if group else None


def _value(content: dict[str, Any], name: str) -> Any:
    wrapped = content.get(name)
    if isinstance(wrapped, dict):
        return wrapped.get("value")
    return None


def candidate(note: Any, year: int | None = None) -> Candidate:
    if not isinstance(note, dict) or not isinstance(note.get("content"), dict) or "id" not in note:
        raise Malformed(f"{NAME}: a note without id or content")
    content = note["content"]
    authors = _value(content, "authors")
    return Candidate(
        source=NAME,
        source_id=str(note["id"]),
        title=str(_value(content, "title") or ""),
        abstract=str(_value(content, "abstract") or ""),
        authors=tuple(str(a) for a in authors) if isinstance(authors, list) else (),
        year=year,
        venue=str(_value(content, "venue") or ""),
        url=f"https://openreview.net/forum?id={note['id']}",
    )


class OpenReview:
    name = NAME

    def __init__(self, http: Http):
        self.http = http
        self.base = base_url("BIB_OPENREVIEW_URL", DEFAULT_URL)
        self.http.intervals.setdefault(host_of(self.base), INTERVAL)

    def _notes(self, params: dict[str, str]) -> list[Any]:
        answer = self.http.request("GET", f"{self.base}/notes", params, source=NAME)
        if answer.status in (403, 404):
            return []
        try:
            data = json.loads(answer.text)
            notes = data["notes"]
        except (ValueError, KeyError, TypeError) as exc:
            raise Malformed(f"{NAME}: the answer has no 'notes' list") from exc
        if not isinstance(notes, list):
            raise Malformed(f"{NAME}: 'notes' is not a list")
        return notes

    def venue(self, venue: str, year: int) -> list[Candidate]:
        group = venue_id(venue, year)
        if group is None:
            return []
        found: list[Candidate] = []
        for page in range(MAX_PAGES):
            params = {"content.venueid": group, "limit": str(PAGE), "offset": str(page * PAGE)}
            notes = self._notes(params)
            found.extend(candidate(note, year) for note in notes)
            if len(notes) < PAGE:
                break
        return found

    def fetch(self, identifier: str) -> Candidate | None:
        notes = self._notes({"id": identifier})
        return candidate(notes[0]) if notes else None

    def search(self, query: Query) -> list[Candidate]:
        return []
