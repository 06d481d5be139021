"""What `bib`'s own writers add to notes, taken back out when their output is read again.

Writers mark derived titles with a fixed sentence and list extra links as `Code: URL`
sentences (in `note`, or `addendum` for BibLaTeX). Reading such a file back must give the
record that was written, not a note that grows by those sentences on every round trip.
Likewise an abstract: the writers render its markdown (LaTeX markup, or plain text for
CSL), and `read_back` knows that rendering for the abstract it came from.
"""

from __future__ import annotations

import dataclasses
import re

from bib.latex import Text, from_latex, to_latex, to_text
from bib.record import Link, Record, evolve
from bib.written import DERIVED_TITLE_NOTE, LINK_LABELS, label

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


def read_back(incoming: Record, stored: Record) -> Record:
    """`incoming` with the abstract, tags and id of `stored` when its abstract is exactly
    what our writers render of stored's and our readers read back (`renderings`). The
    markdown cannot be recovered from a rendering (`**x**` and `\\textbf{x}` both render
    as "x"), so the one kept is the abstract as typed; the id of a paper list's record is
    made from that text, and stays; the tags are the ones extracted from it. An abstract
    edited in any other way (a word, or markdown of a paper list) is an update."""
    if incoming.abstract == stored.abstract or not stored.abstract:
        return incoming
    if incoming.abstract not in renderings(stored.abstract):
        return incoming
    return dataclasses.replace(incoming, id=stored.id, abstract=stored.abstract, tags=stored.tags)


def renderings(abstract: str) -> tuple[str, str]:
    """An abstract as it reads back from our BibTeX and BibLaTeX output (its LaTeX, read
    by `from_latex`) and from our CSL-JSON (its plain text)."""
    text = Text.of(abstract)
    return from_latex(to_latex(text)), to_text(text).strip()


def without_derived_key(record: Record) -> Record:
    """`record` without a `key` field that is the one the BibTeX writer derives for an
    authorless record (`label`): bib's own, so an export reads back as it was written. Any
    other `key` is the user's and stays (written back verbatim)."""
    fields = tuple(
        (name, value) for name, value in record.fields if name != "key" or value != label(record)
    )
    return record if len(fields) == len(record.fields) else evolve(record, fields=fields)
