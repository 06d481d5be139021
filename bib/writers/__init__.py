"""Writers: Records -> BibTeX, BibLaTeX, CSL-JSON or RIS text, validated before anything is written.

Every format is one `Writer` (`bib.writers.common`) in `REGISTRY`; everything that lists,
picks or renders formats reads the registry, so a new format is one module plus one line
below. Callers write the returned text through `bib.atomic`, so a failure leaves no file;
`stream` yields the same text piece by piece for callers that write as they go.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from bib import crossref
from bib.errors import BibError
from bib.keys import base_key
from bib.latex.source import Definitions, expanded
from bib.record import Record, TagKind, evolve
from bib.writers import bibtex, csljson, ris
from bib.writers.common import (
    DEFAULT_TAG_KINDS,
    Layout,
    Prepared,
    RunMemo,
    WriteOptions,
    Writer,
    prepare,
    safe_key,
    with_new_keys,
)
from bib.written import DERIVED_TITLE_NOTE

REGISTRY: dict[str, Writer] = {
    writer.name: writer for writer in (bibtex.BIBTEX, bibtex.BIBLATEX, csljson.WRITER, ris.WRITER)
}
"""Every output format by name, in the order help texts list them."""

FORMATS = tuple(REGISTRY)

__all__ = [
    "DEFAULT_TAG_KINDS",
    "DERIVED_TITLE_NOTE",
    "FORMATS",
    "REGISTRY",
    "Layout",
    "Prepared",
    "RunMemo",
    "WriteOptions",
    "Writer",
    "format_for_path",
    "layout",
    "order_key",
    "prepare",
    "render",
    "safe_key",
    "stream",
    "template",
    "templates",
    "writer",
]


def writer(fmt: str) -> Writer:
    """The writer named `fmt`, or a BibError listing the formats there are."""
    try:
        return REGISTRY[fmt]
    except KeyError:
        raise BibError(
            f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})"
        ) from None


def render(
    records: Iterable[Record],
    fmt: str,
    *,
    ascii: bool = False,
    tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS,
) -> str:
    """The whole output text for `fmt`, entries in the format's order; `ascii` applies to
    BibTeX and BibLaTeX only (JSON and RIS are always UTF-8)."""
    chosen = writer(fmt)
    records = list(records)
    parents = crossref.parents(records) if chosen.parents_last else frozenset()
    ordered = sorted(records, key=lambda r: (r.key.casefold() in parents, chosen.order_key(r.key)))
    if chosen.header is None:
        return "".join(stream(ordered, fmt, ascii=ascii, tag_kinds=tag_kinds))
    found = definitions(ordered)
    unusable = found.unusable()
    ordered = [expanded(r, unusable) for r in ordered]
    body = "".join(stream(ordered, fmt, ascii=ascii, tag_kinds=tag_kinds))
    return chosen.header(found) + body if body else body


def definitions(records: Iterable[Record]) -> Definitions:
    """The `@preamble`s and `@string`s that `records` read from `.bib` files carry."""
    found = Definitions()
    for record in records:
        found.add(record.latex)
    return found


def stream(
    records: Iterable[Record],
    fmt: str,
    *,
    ascii: bool = False,
    tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS,
) -> Iterator[str]:
    """`render` piece by piece, for records already in `order_key(fmt)` order: a caller
    writes each piece as it comes and never holds the whole text (or all the records).
    The entries only: what goes before them (`Writer.header`) needs every record first."""
    chosen = writer(fmt)
    options, memo = WriteOptions(ascii=ascii, tag_kinds=tuple(tag_kinds)), RunMemo()
    return chosen.layout.wrap(
        chosen.entry_text(prepare(r, options, memo)) for r in with_new_keys(records)
    )


_PLACEHOLDER = "bibkey" + secrets.token_hex(16)
"""A citation key that no text holds (128 random bits): where `template` cuts an entry."""


def template(
    record: Record,
    fmt: str,
    *,
    ascii: bool = False,
    tag_kinds: tuple[TagKind, ...] = DEFAULT_TAG_KINDS,
) -> list[str]:
    """The record's entry in `fmt` cut where its citation key goes: joined with a key, the
    pieces are the entry `stream` writes for the record with that key, and `layout(fmt)`
    says what goes around entries. Keys need every record; a template can be rendered
    while reading (`bib convert`); an error names the record by the key it would have alone.
    """
    return templates(record, [fmt], WriteOptions(ascii=ascii, tag_kinds=tag_kinds))[0]


def templates(
    record: Record, formats: Sequence[str], options: WriteOptions, memo: RunMemo | None = None
) -> list[list[str]]:
    """`template` of the record in each of `formats`, from one `Prepared` record: its text
    cleaned and parsed, its keywords and its LaTeX made once for all of them; `memo` is the
    run's (`RunMemo`), a run of its own if none."""
    chosen = [writer(fmt) for fmt in formats]
    prepared = prepare(evolve(record, key=_PLACEHOLDER), options, memo)
    try:
        return [w.entry_text(prepared).split(_PLACEHOLDER) for w in chosen]
    except BibError as exc:
        named = exc.message.replace(_PLACEHOLDER, base_key(record))
        raise BibError(named, exc.path, exc.line) from None


def layout(fmt: str) -> Layout:
    """What `fmt` writes around and between entries (see `template`)."""
    return writer(fmt).layout


def order_key(fmt: str) -> Callable[[str], str]:
    """The sort key, from a citation key, of records in `fmt` output (BibTeX ignores case)."""
    return writer(fmt).order_key


def format_for_path(path: str | Path) -> str:
    """The output format a file name asks for, by the longest suffix that names one."""
    name = Path(path).name.lower()
    by_length = sorted(
        ((suffix, w.name) for w in REGISTRY.values() for suffix in w.suffixes),
        key=lambda pair: -len(pair[0]),
    )
    for suffix, fmt in by_length:
        if name.endswith(suffix):
            return fmt
    known = ", ".join(suffix for suffix, _ in sorted(by_length))
    raise BibError(
        f"cannot tell the output format from {Path(path).name!r}: use {known}, or give -f"
    )
