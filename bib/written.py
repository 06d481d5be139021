"""What bib's own writers add to a record's text, which its readers take back out.

The sentence that marks a title derived from the abstract, how a note introduces the links
beyond `url`, and the `key` the BibTeX writer derives for an authorless entry. Writers
write them (`bib.writers.common`); readers recognise them (`bib.readers.roundtrip`), so
that reading bib's output gives back the record it was written from. Both import them
from here: reading a `.bib` must not load the writers (and bibtexparser and jsonschema
with them, a fifth of the start-up of reading one).
"""

from __future__ import annotations

from bib.latex import to_text
from bib.record import LinkRole, Record

DERIVED_TITLE_NOTE = "Title derived from the abstract by bib; not the published title."
"""The marker every output carries for a derived title (readers strip it to round-trip)."""

LINK_LABELS = {LinkRole.CODE: "Code", LinkRole.PROJECT: "Project page", LinkRole.PAPER: "Paper"}
"""How links other than the one in the `url` field are introduced in notes."""

_LABEL_WORDS = 3


def label(record: Record) -> str:
    """What an authorless entry is cited as: its method name, else its title's first words
    (up to a colon), so that plainnat prints "WebWorld (2026)", not the citation key."""
    if record.method:
        return record.method
    head = to_text(record.title).split(":", 1)[0]
    return " ".join(head.split()[:_LABEL_WORDS])
