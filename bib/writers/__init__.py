"""Writers: Records -> BibTeX, BibLaTeX or CSL-JSON text, validated before anything is written.

Callers write the returned text with `bib.atomic.write_atomic`, so a failure leaves no file;
`stream` yields the same text piece by piece for callers that write into a temp file as they go
(`bib convert`) and rename it only when every piece was rendered.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from bib.errors import BibError
from bib.keys import base_key
from bib.record import Record, TagKind, evolve
from bib.writers import bibtex, csljson
from bib.writers.common import DEFAULT_TAG_KINDS, DERIVED_TITLE_NOTE, Layout, safe_key

FORMATS = ("bibtex", "biblatex", "csl-json")

__all__ = [
    "DEFAULT_TAG_KINDS",
    "DERIVED_TITLE_NOTE",
    "FORMATS",
    "Layout",
    "format_for_path",
    "layout",
    "order_key",
    "render",
    "safe_key",
    "stream",
    "template",
]


def render(
    records: Iterable[Record],
    fmt: str,
    *,
    ascii: bool = False,
    tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS,
) -> str:
    """The whole output text for `fmt`; `ascii` applies to BibTeX and BibLaTeX only
    (JSON is always UTF-8)."""
    if fmt == "csl-json":
        return csljson.render(records, tag_kinds=tag_kinds)
    if fmt in ("bibtex", "biblatex"):
        return bibtex.render(records, dialect=fmt, ascii=ascii, tag_kinds=tag_kinds)
    raise BibError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")


def stream(
    records: Iterable[Record],
    fmt: str,
    *,
    ascii: bool = False,
    tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS,
) -> Iterator[str]:
    """`render` piece by piece, for records already in `order_key(fmt)` order: a caller
    writes each piece as it comes and never holds the whole text (or all the records)."""
    if fmt == "csl-json":
        return csljson.stream(records, tag_kinds=tag_kinds)
    if fmt in ("bibtex", "biblatex"):
        return bibtex.stream(records, dialect=fmt, ascii=ascii, tag_kinds=tag_kinds)
    raise BibError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")


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
    marked = evolve(record, key=_PLACEHOLDER)
    try:
        if fmt == "csl-json":
            text = csljson.entry_text(marked, tag_kinds)
        elif fmt in ("bibtex", "biblatex"):
            text = bibtex.entry_text(marked, fmt, ascii, tag_kinds)
        else:
            raise BibError(f"unknown output format {fmt!r} (choose from {', '.join(FORMATS)})")
    except BibError as exc:
        named = exc.message.replace(_PLACEHOLDER, base_key(record))
        raise BibError(named, exc.path, exc.line) from None
    return text.split(_PLACEHOLDER)


def layout(fmt: str) -> Layout:
    """What `fmt` writes around and between entries (see `template`)."""
    return csljson.LAYOUT if fmt == "csl-json" else bibtex.LAYOUT


def order_key(fmt: str) -> Callable[[str], str]:
    """The sort key, from a citation key, of records in `fmt` output (BibTeX ignores case)."""
    return csljson.order_key if fmt == "csl-json" else bibtex.order_key


def format_for_path(path: str | Path) -> str:
    """The output format a file name asks for: `.biblatex.bib`, `.bib` or `.json`."""
    name = Path(path).name.lower()
    if name.endswith(".biblatex.bib"):
        return "biblatex"
    if name.endswith(".bib"):
        return "bibtex"
    if name.endswith(".json"):
        return "csl-json"
    raise BibError(
        f"cannot tell the output format from {Path(path).name!r}: use .bib, .biblatex.bib "
        "or .json, or give -f"
    )
