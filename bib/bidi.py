"""Bidirectional embedding, override and isolate controls, removed where records are read.

U+202E RIGHT-TO-LEFT OVERRIDE in a title makes `evil.exe` display as `exe.live` in every
viewer that honours it ("Trojan Source"), so a reference can show something other than what
it says. The marks U+200E/U+200F and the letters of right-to-left scripts are kept: they
cannot reorder neighbouring text beyond a neutral character. See docs/decisions/bidi.md.
"""

from __future__ import annotations

import re
from operator import attrgetter

from bib.record import Author, Link, Record, evolve

CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
"""LRE, RLE, PDF, LRO, RLO and LRI, RLI, FSI, PDI."""
_CHARS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""The same, one by one: `in` finds one faster than the regular expression does."""

_TEXT = (
    "key title abstract note venue container_title event_title publisher series doi arxiv_id "  # noqa: SIM905
    "method".split()
)
_texts = attrgetter(*_TEXT)


def strip(record: Record) -> tuple[Record, list[str]]:
    """The record without bidi controls, and the names of the attributes that had any."""
    everything = _everything(record)
    if everything.isascii() or not any(char in everything for char in _CHARS):
        return record, []
    updates: dict[str, object] = {
        name: CONTROLS.sub("", getattr(record, name))
        for name in _TEXT
        if CONTROLS.search(getattr(record, name))
    }
    authors = tuple(
        Author(
            CONTROLS.sub("", a.family),
            CONTROLS.sub("", a.given),
            CONTROLS.sub("", a.literal),
            CONTROLS.sub("", a.suffix),
        )
        for a in record.authors
    )
    links = tuple(Link(CONTROLS.sub("", link.url), link.role) for link in record.links)
    fields = tuple((CONTROLS.sub("", n), CONTROLS.sub("", v)) for n, v in record.fields)
    for name, value in (("authors", authors), ("links", links), ("fields", fields)):
        if value != getattr(record, name):
            updates[name] = value
    if not updates:
        return record, []
    return evolve(record, **updates), list(updates)


def _everything(record: Record) -> str:
    """Every text of the record in one string: one search tells whether any has a control
    (nearly none do), so the common case costs one scan."""
    parts = list(_texts(record))
    parts += [a.family + a.given + a.literal for a in record.authors]
    parts += [link.url for link in record.links]
    parts += [n + v for n, v in record.fields]
    return "".join(parts)
