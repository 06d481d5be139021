"""Entry types between biblatex, BibTeX and CSL, read from the table in
bib/data/csl_biblatex.json (`types`, `type_aliases`, `bibtex_kinds`, `genres`, `csl_types`).

A Record's `entry_type` is a biblatex type (its data model, which biber knows whole) or our
`preprint`. BibTeX's own types are biber's aliases (`@phdthesis` is `@thesis` with
`type = {phdthesis}`); a CSL type biblatex has no type for is a biblatex type and an
`entrysubtype` that brings it back (`post-weblog` is `@online`, `entrysubtype = {post-weblog}`).
A biblatex type that classic BibTeX lacks is written as its BibTeX fallback with an
`entrytype` field, which BibTeX ignores and our reader reads back.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

from bib.record import EntryType

ENTRYTYPE_FIELD = "entrytype"
"""The field that keeps a biblatex type in a BibTeX entry of its fallback type."""
SUBTYPE_FIELD = "entrysubtype"


class TypeRow(NamedTuple):
    """One biblatex type: its CSL type, its BibTeX fallback, where its container title and
    its publisher go, and the CSL variable its `number` is."""

    csl: str
    bibtex: str
    bibtex_with_container: str
    container: str
    publisher: str
    biblatex_publisher: str
    number: str


class BibType(NamedTuple):
    """A `.bib` entry type as read: the record's type and the `type` field it implies."""

    entry_type: EntryType
    implied_kind: str


class CslType(NamedTuple):
    """A CSL type as read: the record's type and the `entrysubtype` that keeps the CSL type."""

    entry_type: EntryType
    subtype: str


class Tables(NamedTuple):
    rows: dict[EntryType, TypeRow]
    aliases: dict[str, BibType]
    bibtex_kinds: dict[EntryType, dict[str, str]]
    genres: dict[str, str]
    csl: dict[str, CslType]
    csl_back: dict[tuple[EntryType, str], str]
    journal_series: dict[str, str]


@cache
def tables() -> Tables:
    """The type tables of bib/data/csl_biblatex.json (package data, read once)."""
    path = resources.files("bib").joinpath("data/csl_biblatex.json")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    rows = {
        EntryType(name): TypeRow(
            csl=row["csl"],
            bibtex=row["bibtex"],
            bibtex_with_container=row.get("bibtex_with_container", row["bibtex"]),
            container=row.get("container", ""),
            publisher=row.get("publisher", "publisher"),
            biblatex_publisher=row.get("biblatex_publisher", row.get("publisher", "publisher")),
            number=row.get("number", "number"),
        )
        for name, row in data["types"].items()
        if name != "about"
    }
    csl = {
        name: CslType(EntryType(pair[0]), pair[1])
        for name, pair in data["csl_types"].items()
        if name != "about"
    }
    return Tables(
        rows=rows,
        aliases={
            name: BibType(EntryType(pair[0]), pair[1])
            for name, pair in data["type_aliases"].items()
            if name != "about"
        },
        bibtex_kinds={
            EntryType(name): kinds
            for name, kinds in data["bibtex_kinds"].items()
            if name != "about"
        },
        genres={key: text for key, text in data["genres"].items() if key != "about"},
        csl=csl,
        csl_back={(t.entry_type, t.subtype): name for name, t in csl.items() if t.subtype},
        journal_series={k: v for k, v in data["journal_series"].items() if k != "about"},
    )


_BY_VALUE = {t.value: t for t in EntryType}


def from_bibtex(name: str, entrytype_field: str = "") -> BibType:
    """A `.bib` entry type (any case) and its `entrytype` field (ours, see above) as a
    record's type; an unknown type is `misc`, as biber reads it."""
    name = name.strip().lower()
    kept = _BY_VALUE.get(entrytype_field.strip().lower())
    if kept is not None and name == row(kept).bibtex:
        return BibType(kept, "")
    if name in tables().aliases:
        return tables().aliases[name]
    found = _BY_VALUE.get(name)
    if found is None or found is EntryType.PREPRINT:
        return BibType(EntryType.MISC, "")
    return BibType(found, "")


def from_csl(name: str) -> CslType:
    """A CSL type as a record's type (an unknown or empty one is `document`: misc)."""
    return tables().csl.get(name, CslType(EntryType.MISC, ""))


def row(entry_type: EntryType) -> TypeRow:
    return tables().rows[entry_type]


_JOURNALS = frozenset({EntryType.ARTICLE, EntryType.PERIODICAL})


def printed_series(entry_type: EntryType, series: str) -> str:
    """A series as biblatex prints it: a journal's `newseries` is "new series", its `3` the
    "3rd series" (biblatex.def, english.lbx); any other series as it stands."""
    if entry_type not in _JOURNALS:
        return series
    if series.isdigit():
        number = int(series)
        tens = number % 100
        suffix = "th" if 10 < tens < 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
        return f"{number}{suffix} series"
    return tables().journal_series.get(series, series)


def csl_type(entry_type: EntryType, subtype: str = "") -> str:
    """The CSL type of a record: its `entrysubtype` picks the CSL type it came from."""
    if subtype:
        found = tables().csl_back.get((entry_type, subtype.strip().lower()))
        if found is not None:
            return found
    return row(entry_type).csl


def subtype_is_type(entry_type: EntryType, subtype: str) -> bool:
    """Whether `entrysubtype` names a CSL type (then it is the type, not a variable)."""
    subtype = subtype.strip().lower()
    if entry_type is EntryType.PREPRINT and subtype == PREPRINT_SUBTYPE:
        return True
    return (entry_type, subtype) in tables().csl_back


def biblatex_type(entry_type: EntryType) -> str:
    return "online" if entry_type is EntryType.PREPRINT else entry_type.value


class BibtexType(NamedTuple):
    """A record's classic BibTeX type, whether its `type` field is implied by it, and the
    `entrytype` field that keeps the biblatex type ("" when BibTeX has the type)."""

    name: str
    kind_implied: bool
    entrytype: str


def bibtex_type(entry_type: EntryType, kind: str, has_container: bool) -> BibtexType:
    """The BibTeX type of a record: a thesis's or report's `type` picks `@mastersthesis`,
    `@phdthesis`, `@techreport`; a biblatex-only type falls back to a BibTeX type."""
    found = row(entry_type)
    kinds = tables().bibtex_kinds.get(entry_type, {})
    key = kind.strip().lower()
    if key in kinds:
        return BibtexType(kinds[key], True, "")
    name = found.bibtex_with_container if has_container else found.bibtex
    own = entry_type.value in (found.bibtex, found.bibtex_with_container) or (
        entry_type.value in tables().bibtex_kinds
    )
    if entry_type is EntryType.PREPRINT or own or name == entry_type.value:
        return BibtexType(name, False, "")
    return BibtexType(name, False, entry_type.value)


def genre(kind: str) -> str:
    """A biblatex `type` as CSL `genre`: a localisation key as its text ("" for one CSL has
    no genre for: `techreport`), anything else as written."""
    return tables().genres.get(kind.strip().lower(), kind)


def kind_of_genre(text: str) -> str:
    """A CSL genre as a biblatex `type` (the inverse of `genre`)."""
    for key, value in tables().genres.items():
        if value and value == text.strip():
            return key
    return text


PREPRINT_SUBTYPE = "preprint"
"""The `entrysubtype` of an `@online` preprint without an eprint (a CSL `article`)."""


def is_preprint(entry_type: EntryType, arxiv_id: str, subtype: str) -> bool:
    """Whether a `.bib` entry is a preprint: `@misc`/`@online` with an arXiv id, or marked
    as one by its `entrysubtype`."""
    if entry_type not in (EntryType.MISC, EntryType.ONLINE):
        return False
    return bool(arxiv_id) or subtype.strip().lower() == PREPRINT_SUBTYPE
