"""What `bib`'s own writers add to notes, taken back out when their output is read again.

Writers mark derived titles with a fixed sentence and list extra links as `Code: URL`
sentences (in `note`, or `addendum` for BibLaTeX). Reading such a file back must give the
record that was written, not a note that grows by those sentences on every round trip.
"""

from __future__ import annotations

import re

from bib.record import Link
from bib.writers.common import DERIVED_TITLE_NOTE, LINK_LABELS

_ROLES = {label: role for role, label in LINK_LABELS.items()}
_LINK = re.compile(
    r"(?:^|(?<=[.!?])\s+|\s+)(" + "|".join(map(re.escape, _ROLES)) + r")"
    r":\s+(?:\\url\{([^{}\s]+)\}|(\S+?))\.?(?=\s|$)"
)


def split_note(note: str) -> tuple[str, bool, tuple[Link, ...]]:
    """(the note without bib's own sentences, whether the title was derived, the links)."""
    derived = DERIVED_TITLE_NOTE in note
    if derived:
        note = note.replace(DERIVED_TITLE_NOTE, " ")
    links = tuple(Link(m.group(2) or m.group(3), _ROLES[m.group(1)]) for m in _LINK.finditer(note))
    if links:
        note = _LINK.sub(" ", note)
    return " ".join(note.split()).strip(" "), derived, links


def merge_links(*groups: tuple[Link, ...]) -> tuple[Link, ...]:
    seen: dict[str, Link] = {}
    for group in groups:
        for link in group:
            seen.setdefault(link.url, link)
    return tuple(seen.values())
