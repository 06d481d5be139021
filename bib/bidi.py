"""Bidirectional embedding, override and isolate controls, removed where records are read.

U+202E RIGHT-TO-LEFT OVERRIDE in a title makes `evil.exe` display as `exe.live` in every
viewer that honours it ("Trojan Source"), so a reference can show something other than what
it says. The marks U+200E/U+200F and the letters of right-to-left scripts are kept: they
cannot reorder neighbouring text beyond a neutral character. See docs/decisions/bidi.md.
"""

from __future__ import annotations

import dataclasses
import re

from bib.record import Author, Link, Record

CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI."""

_TEXT = (
    "key title abstract note venue container_title event_title publisher series doi arxiv_id "  # noqa: SIM905
    "method".split()
)


def strip(record: Record) -> tuple[Record, list[str]]:
    """The record without bidi controls, and the names of the attributes that had any."""
    updates: dict[str, object] = {
        name: CONTROLS.sub("", getattr(record, name))
        for name in _TEXT
        if CONTROLS.search(getattr(record, name))
    }
    authors = tuple(
        Author(CONTROLS.sub("", a.family), CONTROLS.sub("", a.given), CONTROLS.sub("", a.literal))
        for a in record.authors
    )
    links = tuple(Link(CONTROLS.sub("", link.url), link.role) for link in record.links)
    fields = tuple((CONTROLS.sub("", n), CONTROLS.sub("", v)) for n, v in record.fields)
    for name, value in (("authors", authors), ("links", links), ("fields", fields)):
        if value != getattr(record, name):
            updates[name] = value
    if not updates:
        return record, []
    return dataclasses.replace(record, **updates), list(updates)
