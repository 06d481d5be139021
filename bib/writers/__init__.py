"""Writers: Records -> BibTeX, BibLaTeX or CSL-JSON text, validated before anything is written.

Callers write the returned text with `bib.atomic.write_atomic`, so a failure leaves no file;
`stream` yields the same text piece by piece for callers that write into a temp file as they go
(`bib convert`) and rename it only when every piece was rendered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from bib.errors import BibError
from bib.record import Record, TagKind
from bib.writers import bibtex, csljson
from bib.writers.common import DEFAULT_TAG_KINDS, DERIVED_TITLE_NOTE

FORMATS = ("bibtex", "biblatex", "csl-json")

__all__ = [
    "DEFAULT_TAG_KINDS",
    "DERIVED_TITLE_NOTE",
    "FORMATS",
    "format_for_path",
    "order_key",
    "render",
    "stream",
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
