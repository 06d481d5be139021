"""Readers: paper lists, BibTeX and CSL-JSON into Records.

`read` picks the reader from the file suffix, or from `fmt`, or (for standard input
without `--from`) from the content itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from bib import crossref
from bib.errors import BibError
from bib.readers import bibtex_parts, csljson, paperlist
from bib.record import Record

FORMATS = ("paperlist", "bibtex", "csl-json")
SUFFIXES = {".txt": "paperlist", ".md": "paperlist", ".bib": "bibtex", ".json": "csl-json"}
STDIN = "-"


def sniff(data: bytes) -> str:
    """Guess the format of unlabelled input (standard input without `--from`)."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head in (b"[", b"{"):
        return "csl-json"
    if head == b"@" or (b"\n@" in data[:4096] and b"{" in data[:4096]):
        return "bibtex"
    return "paperlist"


def format_for(path: Path | str, data: bytes | None = None) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if data is not None:
        return sniff(data)
    raise BibError(f"unknown input format '{suffix}' (use --from {'|'.join(FORMATS)})", path)


class Input(NamedTuple):
    """One input, opened (`open_input`): its name in messages, its format, and its bytes
    (a paper list's file is read line by line, so it stays a path)."""

    name: str
    fmt: str
    source: bytes | Path


def read(
    path: Path | str,
    *,
    fmt: str | None = None,
    venue: str | None = None,
    year: int | None = None,
    stdin: BinaryIO | None = None,
    report: Callable[[str], None] | None = None,
    venue_title: str | None = None,
) -> Iterator[Record]:
    """Records from one input; `-` reads standard input (format from `fmt` or content).
    `venue`, `year` and `venue_title` apply to paper lists (`paperlist.read`).

    Warnings (`warning: FILE:LINE: ...`) go to `report`."""
    opened = open_input(path, fmt=fmt, stdin=stdin)
    return read_input(opened, venue=venue, year=year, report=report, venue_title=venue_title)


def read_input(
    opened: Input,
    *,
    venue: str | None = None,
    year: int | None = None,
    report: Callable[[str], None] | None = None,
    venue_title: str | None = None,
    jobs: int = 1,
) -> Iterator[Record]:
    """Records from one input `open_input` opened (see `read`); a long `.bib` is read in
    `jobs` worker processes (`bibtex_parts`)."""
    if opened.fmt == "paperlist":
        return paperlist.read(
            opened.source,
            opened.name,
            venue=venue,
            year=year,
            venue_title=venue_title,
            report=report,
        )
    source, name = opened.source, opened.name
    assert isinstance(source, bytes)
    if opened.fmt == "bibtex":
        records = bibtex_parts.read(source, name, report=report, jobs=jobs)
        return crossref.resolve(records, report) if crossref.mentions(source) else records
    return csljson.read(source, name, report=report)


def open_input(path: Path | str, *, fmt: str | None = None, stdin: BinaryIO | None = None) -> Input:
    """One input, its format told (`fmt`) or found (suffix, content), refused when it is not
    text (or, as a paper list, a table); `-` reads standard input (`stdin`) now."""
    if fmt is not None and fmt not in FORMATS:
        raise BibError(f"unknown input format '{fmt}' (use one of: {', '.join(FORMATS)})")
    source: bytes | Path
    if str(path) == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        source = stream.read()
        name = "<stdin>"
        fmt = fmt or sniff(source)
    else:
        name, source = str(path), Path(path)
        if source.is_dir():
            raise BibError("is a directory (pass it alone to read its files)", name)
        fmt = fmt or format_for(source, _head(source) if source.suffix == "" else None)
        if fmt != "paperlist":
            try:
                source = source.read_bytes()
            except OSError as exc:
                raise BibError(f"cannot read: {exc.strerror}", name) from None
    if fmt == "paperlist":
        head = source[:4096] if isinstance(source, bytes) else _head(source)
        refuse_binary(head, name)
        refuse_table(head, name)
    elif fmt == "bibtex":
        assert isinstance(source, bytes)
        refuse_binary(source, name)
    return Input(name, fmt, source)


def _head(path: Path) -> bytes:
    """The start of a file, enough to tell its format."""
    try:
        with path.open("rb") as handle:
            return handle.read(4096)
    except OSError as exc:
        raise BibError(f"cannot read: {exc.strerror}", path) from None


def expand(inputs: Iterable[Path | str]) -> list[Path]:
    """Inputs with directories replaced by their paper lists, .bib and .json files, sorted."""
    paths: list[Path] = []
    for item in inputs:
        path = Path(item)
        if str(item) != STDIN and path.is_dir():
            found = sorted(
                p for p in path.iterdir() if p.suffix.lower() in SUFFIXES and p.is_file()
            )
            if not found:
                raise BibError("directory has no .txt, .md, .bib or .json files", path)
            paths.extend(found)
        else:
            paths.append(path)
    return paths


_BINARY_MAGIC = {
    b"PK\x03\x04": "a ZIP archive (an office document?)",
    b"\xd0\xcf\x11\xe0": "an old Microsoft Office document",
    b"%PDF": "a PDF",
    b"\x1f\x8b": "a gzip archive",
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"SQLite format 3": "an SQLite database",
}


def looks_like_text(data: bytes) -> str | None:
    """None when `data` can be text; otherwise what it looks like instead. Shared by the
    readers so that a binary file is refused with a hint rather than read as garbage."""
    head = data[:4096]
    for magic, what in _BINARY_MAGIC.items():
        if head.startswith(magic):
            return what
    if b"\x00" in head:
        return "binary data (NUL bytes)"
    controls = sum(1 for byte in head if byte < 32 and byte not in (9, 10, 12, 13))
    return "binary data (control characters)" if controls * 20 > len(head) else None


TABLE_LINES = 3
"""Lines at the top of a paper list that, split alike by one delimiter, make it a table."""
_DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon"}


def looks_like_table(head: bytes) -> str | None:
    """What a spreadsheet export renamed `.txt` looks like (None for anything else): its
    first `TABLE_LINES` lines all have the same number (one or more) of one delimiter and
    none is empty. A paper list's first lines are a header, titles and abstracts, whose
    commas never line up like that (and whose paragraphs are parted by blank lines)."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.splitlines()
    if len(head) >= 4096 and lines:
        lines.pop()  # perhaps cut short by the head
    if len(lines) < TABLE_LINES:  # too short to tell
        return None
    lines = lines[:TABLE_LINES]
    if any(not line.strip() for line in lines):
        return None
    for delimiter, name in _DELIMITERS.items():
        counts = {line.count(delimiter) for line in lines}
        if len(counts) == 1 and (columns := counts.pop() + 1) > 1:
            return f"a table ({name}-separated, {columns} columns)"
    return None


def refuse_table(data: bytes, path: str) -> None:
    what = looks_like_table(data)
    if what is not None:
        raise BibError(
            f"not a paper list: this looks like {what}; export it as BibTeX or CSL-JSON, "
            "or write one paragraph per paper",
            path,
            1,
        )


def refuse_binary(data: bytes, path: str) -> None:
    what = looks_like_text(data)
    if what is not None:
        raise BibError(f"not a text file: this looks like {what}; export it as text first", path)
