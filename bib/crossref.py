"""Crossref and xdata inheritance, as biber resolves them, for the records of one `.bib`.

A child takes from its `crossref` parent every field it lacks, under biber's default
inheritance rules (biblatex manual, appendix B): a book's, collection's or proceedings'
`title` becomes the `booktitle` of an `@inbook`, `@incollection` or `@inproceedings`, a
multi-volume work's `title` its `maintitle`, a periodical's `title` an article's
`journaltitle`; the fields biber never inherits (`ids`, `crossref`, `label`, `options`,
`shorthand`, ...) stay the parent's, and so does its DOI, which names the parent and
would make the child the same work (`bib.merge`). An `xdata` entry gives every field as
it is. The child keeps its `crossref` field, so BibTeX output still cross-references
(parents are written after their children, as BibTeX requires: `bib.writers`); CSL-JSON
and Zotero get the inherited values. A child whose parent is not in the file is reported
and kept as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from bib.readers import names
from bib.record import EntryType, Record, evolve

Report = Callable[[str], None]
Find = Callable[[str], "Record | None"]
"""The record a key names in the file, as `resolve` finds it (the last of that key, else the
last of that key in any case), or None."""

_NEVER = frozenset(
    "ids crossref xref xdata entryset entrysubtype execute label options presort related "  # noqa: SIM905
    "relatedoptions relatedstring relatedtype shorthand shorthandintro sortkey".split()
)
"""Fields biber never inherits (biblatex manual, B.1: "Fields that are never inherited")."""

_TITLES = ("subtitle", "titleaddon")
_NOT_TITLES = frozenset({"shorttitle", "sorttitle", "indextitle", "indexsorttitle"})

_BOOKS = frozenset({EntryType.BOOK, EntryType.MVBOOK})
_IN_BOOKS = frozenset({EntryType.INBOOK, EntryType.BOOKINBOOK, EntryType.SUPPBOOK})
_COLLECTIONS = frozenset({EntryType.COLLECTION, EntryType.REFERENCE})
_IN_COLLECTIONS = frozenset(
    {EntryType.INCOLLECTION, EntryType.INREFERENCE, EntryType.SUPPCOLLECTION}
)
_MULTI = {
    EntryType.MVBOOK: frozenset({EntryType.BOOK, *_IN_BOOKS}),
    EntryType.MVCOLLECTION: frozenset(
        {EntryType.COLLECTION, EntryType.REFERENCE, *_IN_COLLECTIONS}
    ),
    EntryType.MVREFERENCE: frozenset({EntryType.COLLECTION, EntryType.REFERENCE, *_IN_COLLECTIONS}),
    EntryType.MVPROCEEDINGS: frozenset({EntryType.PROCEEDINGS, EntryType.INPROCEEDINGS}),
}


class TitleRule(NamedTuple):
    """Where a parent's title goes in a child: `booktitle`, `maintitle`, `journaltitle`
    (with its subtitle and title addon under `prefix` + `subtitle`/`titleaddon`); "" when
    the title is inherited as the title."""

    target: str
    prefix: str


def title_rule(parent: EntryType, child: EntryType) -> TitleRule:
    """biber's rule for a parent's title (biblatex manual, B.2)."""
    if child in _MULTI.get(parent, ()):
        return TitleRule("maintitle", "main")
    if (
        (parent in _BOOKS and child in _IN_BOOKS)
        or (parent in _COLLECTIONS | {EntryType.MVCOLLECTION} and child in _IN_COLLECTIONS)
        or (parent is EntryType.PROCEEDINGS and child is EntryType.INPROCEEDINGS)
    ):
        return TitleRule("booktitle", "book")
    if parent is EntryType.PERIODICAL and child in (EntryType.ARTICLE, EntryType.SUPPPERIODICAL):
        return TitleRule("journaltitle", "journal")
    return TitleRule("", "")


def _field(record: Record, name: str) -> str:
    return next((value for field, value in record.fields if field == name), "")


def inherit(child: Record, parent: Record, *, as_xdata: bool = False) -> Record:
    """The child with what it lacks of the parent's fields (see the module docstring)."""
    rule = TitleRule("", "") if as_xdata else title_rule(parent.entry_type, child.entry_type)
    changes: dict[str, object] = {}
    if not child.authors and parent.authors:
        changes["authors"] = parent.authors
    if rule.target in ("booktitle", "journaltitle"):
        if not child.container_title and parent.title:
            changes["container_title"] = parent.title
    elif not rule.target and not child.title and parent.title:
        changes["title"] = parent.title
    if not child.container_title and "container_title" not in changes and parent.container_title:
        changes["container_title"] = parent.container_title
    for name in ("event_title", "publisher", "series", "venue"):
        if not getattr(child, name) and getattr(parent, name):
            changes[name] = getattr(parent, name)
    if child.year is None and parent.year is not None:
        changes["year"] = parent.year
    if not child.links and parent.links:
        changes["links"] = parent.links
    fields = dict(child.fields)
    for name, value in parent.fields:
        target = name
        if rule.target and name in _TITLES:
            target = rule.prefix + name
        elif rule.target and name in _NOT_TITLES:
            continue
        if name in _NEVER or target in fields or (name == "date" and child.year is not None):
            continue
        fields[target] = value
    if parent.entry_type in _BOOKS and child.entry_type in _IN_BOOKS and parent.authors:
        fields.setdefault("bookauthor", names.format_names(parent.authors))
    if rule.target == "maintitle" and parent.title and "maintitle" not in fields:
        fields["maintitle"] = parent.title
    if as_xdata:
        fields.pop("xdata", None)
    if fields != dict(child.fields):
        changes["fields"] = tuple(sorted(fields.items()))
    return evolve(child, **changes) if changes else child


def resolve(records: Iterable[Record], report: Report | None = None) -> Iterator[Record]:
    """The records of one file with crossref and xdata resolved, in file order. Children
    wait for the end of the file (a parent may come after them, as BibTeX requires)."""
    held = list(records)
    by_key = {record.key: record for record in held}
    by_folded = {record.key.casefold(): record for record in held}  # BibTeX ignores case

    def find(key: str) -> Record | None:
        return by_key.get(key) or by_folded.get(key.casefold())

    for record in held:
        yield resolved(record, find, report)


def _references(record: Record) -> Iterator[tuple[str, str]]:
    """(`xdata` or `crossref`, key) for each key the record names, in the order inherited."""
    for name in ("xdata", "crossref"):
        value = _field(record, name)
        keys = [k.strip() for k in value.split(",") if k.strip()] if name == "xdata" else [value]
        for key in filter(None, (k.strip() for k in keys)):
            yield name, key


def is_child(record: Record) -> bool:
    """Whether `resolved` may change the record (it names a crossref or xdata parent)."""
    return bool(record.fields) and next(_references(record), None) is not None


def resolved(record: Record, find: Find, report: Report | None = None) -> Record:
    """The record with what its crossref and xdata parents give it (`find` finds them by
    key); a parent not found, or the record itself, is reported."""
    if not record.fields:
        return record
    for name, key in _references(record):
        parent = find(key)
        if parent is None or parent is record:
            if report is not None:
                report(f"warning: {_where(record)}: {name} '{key}' is not an entry of the file")
            continue
        # the parent's own crossref first (biber resolves chains), one level deep
        grand = find(_field(parent, "crossref"))
        if grand is not None and grand is not parent and grand is not record:
            parent = inherit(parent, grand)
        record = inherit(record, parent, as_xdata=name == "xdata")
    return record


def _where(record: Record) -> str:
    source = record.source
    place = ":".join(str(p) for p in (source.path, source.line) if p) if source else ""
    return f"{place}: entry '{record.key}'" if place else f"entry '{record.key}'"


def parent_key(record: Record) -> str:
    """The key of the record's crossref parent, casefolded ("" when it has none)."""
    return _field(record, "crossref").strip().casefold() if record.fields else ""


def parents(records: Iterable[Record]) -> frozenset[str]:
    """The casefolded keys that records cross-reference."""
    return frozenset(filter(None, map(parent_key, records)))


def mentions(data: bytes) -> bool:
    """Whether a `.bib` may use crossref or xdata (only then is the file held whole)."""
    lowered = data.lower()
    return b"crossref" in lowered or b"xdata" in lowered
