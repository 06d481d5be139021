"""Readers: paper lists, BibTeX and CSL-JSON into Records.

`read` picks the reader from the file suffix, or from `fmt`, or (for standard input
without `--from`) from the content itself.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from bib.errors import BibError
from bib.readers import bibtex, csljson, paperlist
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


def read(
    path: Path | str,
    *,
    fmt: str | None = None,
    venue: str | None = None,
    year: int | None = None,
    stdin: BinaryIO | None = None,
) -> Iterator[Record]:
    """Records from one input; `-` reads standard input (format from `fmt` or content)."""
    if fmt is not None and fmt not in FORMATS:
        raise BibError(f"unknown input format '{fmt}' (use one of: {', '.join(FORMATS)})")
    if str(path) == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read()
        name = "<stdin>"
        fmt = fmt or sniff(data)
    else:
        name = str(path)
        try:
            data = Path(path).read_bytes()
        except IsADirectoryError:
            raise BibError("is a directory (pass it alone to read its files)", name) from None
        except OSError as exc:
            raise BibError(f"cannot read: {exc.strerror}", name) from None
        fmt = fmt or format_for(path, data if Path(path).suffix == "" else None)
    if fmt == "paperlist":
        return paperlist.read(data, name, venue=venue, year=year)
    if fmt == "bibtex":
        return bibtex.read(data, name)
    return csljson.read(data, name)


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
