"""Paper lists (`.txt`, `.md`): a venue header, then one entry per paragraph or per title.

The format (docs/convert.md): UTF-8 (a BOM and CRLF are fine); an optional first line
naming venue and year in any language (`ICML 2026 Papers`, `ICML 2026 论文列表`,
`# NeurIPS 2025 accepted papers`); entries separated by blank lines. An entry may start
with a `## Title` heading or a `Title:` line and carry `Authors:` and `URL:` lines; it may
be numbered (`1.`, `[1]`). When a file uses title markers an entry runs from one marker to
the next; otherwise each paragraph is an entry. Hard line breaks inside an abstract are
joined; everything else in the abstract is kept verbatim.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import BinaryIO

from bib import venues
from bib.errors import BibError
from bib.extract.urls import role
from bib.identity import normalize_arxiv, normalize_doi, record_id
from bib.readers.names import split_authors
from bib.record import EntryType, Link, Record, Source, evolve

_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_HEADING = re.compile(r"^#{2,6}\s+(.*)$")
_FIELD = re.compile(r"^(title|authors?|url|link)\s*[:\uff1a]\s*(.*)$", re.IGNORECASE)
_NUMBER = re.compile(r"^(?:\[\d{1,5}\]|\d{1,5}[.)])(?:\s+|$)")
_HEADER_MAX = 100
_FIELD_FIRST = "tTaAuUlL"
"""What `_FIELD` can start with (as `_NUMBER` starts with `[` or a digit): a line that
starts otherwise, as most abstracts do, is not tried against them."""
_MARKER_BYTES = re.compile(
    rb"\s*(?:(?:\[\d{1,5}\]|\d{1,5}[.)])\s+)?(?:#{2,6}\s|title\s*(?::|\xef\xbc\x9a))",
    re.IGNORECASE,
)
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\S+)$", re.IGNORECASE)


@dataclass
class _Entry:
    line: int
    title: str = ""
    authors: str = ""
    url: str = ""
    text: list[str] = field(default_factory=list)


def decode(data: bytes, path: str) -> str:
    """UTF-8 text with BOM and CRLF removed; a bad byte is an error naming its line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise BibError(
            f"not UTF-8: byte 0x{data[exc.start]:02x} at column {column}", path, line
        ) from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _open(source: bytes | Path, path: str) -> BinaryIO:
    if isinstance(source, bytes):
        return io.BytesIO(source)
    try:
        return source.open("rb")
    except OSError as exc:
        raise BibError(f"cannot read: {exc.strerror}", path) from None


def _lines(source: bytes | Path, path: str) -> Iterator[str]:
    """Decoded lines, one at a time, so that a long list is never held twice in memory.

    A BOM and CR line ends are dropped; a byte that is not UTF-8 is an error naming its line.
    """
    with _open(source, path) as handle:
        for number, raw in enumerate(handle, 1):
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BibError(
                    f"not UTF-8: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}",
                    path,
                    number,
                ) from None
            line = line.rstrip("\n").removesuffix("\r")
            if "\r" in line:  # old Mac line ends: one physical line holds several
                yield from line.split("\r")
            else:
                yield line


def _uses_markers(source: bytes | Path, path: str) -> bool:
    """Whether any paragraph starts with a title marker (`## Title`, `Title:`)."""
    after_blank = True
    with _open(source, path) as handle:
        for raw in handle:
            blank = not raw.strip()
            if after_blank and not blank and _MARKER_BYTES.match(raw):
                return True
            after_blank = blank
    return False


def _paragraphs(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """(first line number, lines) of each blank-line separated block, read lazily."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if line:
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _is_header(block: list[str]) -> bool:
    if len(block) != 1 or len(block[0]) > _HEADER_MAX:
        return False
    line = block[0]
    if _HEADING.match(line) or _FIELD.match(line) or line.endswith((".", "!", "?")):
        return False
    return bool(line.startswith("# ") or _YEAR.search(line) or venues.find(line))


def parse_header(line: str) -> tuple[str | None, int | None]:
    """Venue short name and year named in a header line (either may be None)."""
    line = line.lstrip("#").strip()
    year_match = _YEAR.search(line)
    venue = venues.find(line)
    if venue is None and year_match:
        before = line[: year_match.start()].strip(" -\u2013\u2014:,'")
        venue = before.split()[-1] if before.split() else None
    return venue, int(year_match.group(1)) if year_match else None


def _is_marker(line: str) -> bool:
    line = _NUMBER.sub("", line)
    return bool(_HEADING.match(line) or re.match(r"^title\s*[:\uff1a]", line, re.IGNORECASE))


def _entries(blocks: Iterable[tuple[int, list[str]]], uses_markers: bool) -> Iterator[_Entry]:
    current: _Entry | None = None
    for start, block in blocks:
        if current is not None and (not uses_markers or _is_marker(block[0])):
            yield current
            current = None
        if current is None:
            current = _Entry(line=start)
        for index, raw in enumerate(block):
            if current.text:  # the abstract has begun: the rest of the block is abstract
                current.text.append(raw)
                continue
            numbered = index == 0 and (raw[0] == "[" or raw[0].isdecimal())  # `\d` is isdecimal()
            line = _NUMBER.sub("", raw) if numbered else raw
            heading = _HEADING.match(line) if line.startswith("##") else None
            if heading and not current.title:
                current.title = _NUMBER.sub("", heading.group(1).strip())
                continue
            found = _FIELD.match(line) if line[:1] in _FIELD_FIRST else None
            if found:
                name, value = found.group(1).lower(), found.group(2).strip()
                if name == "title":
                    current.title = _NUMBER.sub("", value)
                elif name.startswith("author"):
                    current.authors = value
                else:
                    current.url = value
                continue
            current.text.append(line)
    if current is not None:
        yield current


def _venue_fields(
    path: str,
    venue: str | None,
    year: int | None,
    title: str | None,
    report: Callable[[str], None] | None,
) -> dict[str, str | int | None]:
    if not venue and not year:
        raise BibError(
            "no venue and year: start the list with a line such as 'ICML 2026 Papers' "
            "or pass --venue and --year",
            path,
            1,
        )
    if not venue:
        raise BibError("no venue: name it in the header line or pass --venue", path, 1)
    if not year:
        raise BibError("no year: name it in the header line or pass --year", path, 1)
    try:
        resolved = venues.given(venue, year, title=title, report=report)
    except BibError as exc:
        raise BibError(exc.message, path, 1) from None
    return {
        "venue": resolved.short,
        "year": year,
        "container_title": resolved.proceedings,
        "event_title": resolved.event_title,
        "publisher": resolved.publisher,
        "series": resolved.series,
    }


def _link_fields(url: str) -> dict[str, object]:
    if not url:
        return {}
    fields: dict[str, object] = {"links": (Link(url, role(url)),)}
    doi = _DOI_URL.match(url)
    if doi:
        fields["doi"] = normalize_doi(doi.group(1))
    elif "arxiv.org/" in url:
        arxiv = normalize_arxiv(url.rsplit("/", 1)[-1]) or normalize_arxiv(url)
        if arxiv:
            fields["arxiv_id"] = arxiv
    return fields


def read(
    source: bytes | Path,
    path: str | Path,
    *,
    venue: str | None = None,
    year: int | None = None,
    venue_title: str | None = None,
    report: Callable[[str], None] | None = None,
) -> Iterator[Record]:
    """Records of a paper list (its bytes, or a file read line by line); `venue` and
    `year` override the header, `venue_title` names the proceedings (`venues.given`), and
    `report` hears of a venue the table does not know."""
    path = str(path)
    blocks = _paragraphs(_lines(source, path))
    first = next(blocks, None)
    header_venue = header_year = None
    if first is not None and _is_header(first[1]):
        header_venue, header_year = parse_header(first[1][0])
        first = next(blocks, None)
    if first is None:
        raise BibError("empty paper list: no entries after the header", path)
    common = _venue_fields(path, venue or header_venue, year or header_year, venue_title, report)
    # what every record of the list shares, copied for each (a third of the cost of
    # building each Record from its arguments)
    shared = Record(id="", entry_type=EntryType.INPROCEEDINGS, **common)  # type: ignore[arg-type]
    uses_markers = _uses_markers(source, path)
    for entry in _entries(chain([first], blocks), uses_markers):
        abstract = " ".join(entry.text).strip()
        if not abstract and not entry.title:
            raise BibError("entry has no text", path, entry.line)
        authors = split_authors(entry.authors)
        links = _link_fields(entry.url)
        rid = record_id(
            doi=str(links.get("doi", "")),
            arxiv_id=str(links.get("arxiv_id", "")),
            abstract=abstract,
            title=entry.title,
            year=common["year"],  # type: ignore[arg-type]
            authors=authors,
        )
        yield evolve(
            shared,
            id=rid,
            abstract=abstract,
            title=entry.title,
            authors=authors,
            sources=(Source(path, entry.line),),
            **links,
        )
