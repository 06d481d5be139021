"""Paper lists (`.txt`, `.md`): a venue header, then one entry per paragraph or per title.

The format (docs/convert.md): UTF-8 (a BOM and CRLF are fine); an optional first line
naming venue and year in any language (`ICML 2026 Papers`, `ICML 2026 论文列表`,
`# NeurIPS 2025 accepted papers`); entries separated by blank lines. An entry may start
with a `## Title` heading or a `Title:` line and carry `Authors:` and `URL:` lines; it may
be numbered (`1.`, `[1]`). When a file uses title markers an entry runs from one marker to
the next; otherwise each paragraph is an entry. Hard line breaks inside an abstract are
joined; everything else in the abstract is kept verbatim.

`read` gives a list's records in one go; `split` cuts a list into `Part`s of whole entries by
a cheap scan of its bytes, and `parse` turns each part into the same records `read` gives for
it, in any process (`bib.convert` parses the parts of a long list in worker processes).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import BinaryIO, NamedTuple

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
_BOM = b"\xef\xbb\xbf"
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


def _lines(source: bytes | Path, path: str, first: int = 1) -> Iterator[str]:
    """Decoded lines, one at a time, so that a long list is never held twice in memory;
    `first` is the number of the first line (a `Part` starts anywhere).

    A BOM and CR line ends are dropped; a byte that is not UTF-8 is an error naming its line.
    """
    with _open(source, path) as handle:
        for number, raw in enumerate(handle, first):
            if number == 1:
                raw = raw.removeprefix(_BOM)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(raw, exc, path, number) from None
            line = line.rstrip("\n").removesuffix("\r")
            if "\r" in line:  # old Mac line ends: one physical line holds several
                yield from line.split("\r")
            else:
                yield line


def _not_utf8(raw: bytes, exc: UnicodeDecodeError, path: str, number: int) -> BibError:
    return BibError(
        f"not UTF-8: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}", path, number
    )


def _scan(source: bytes | Path, path: str) -> bool:
    """Whether any paragraph starts with a title marker (`## Title`, `Title:`), in a pass
    over every line that also refuses a byte that is not UTF-8 (naming its line) before any
    entry is read: an entry's own error can then never hide it, and which error a list gets
    does not depend on where `split` cuts it (`--jobs`)."""
    markers = False
    after_blank = True
    with _open(source, path) as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.isascii():
                bare = raw.removeprefix(_BOM) if number == 1 else raw
                try:
                    bare.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _not_utf8(bare, exc, path, number) from None
            blank = not raw.strip()
            if after_blank and not blank and not markers:
                markers = bool(_MARKER_BYTES.match(raw))
            after_blank = blank
    return markers


def _paragraphs(lines: Iterable[str], first: int = 1) -> Generator[tuple[int, list[str]]]:
    """(first line number, lines) of each blank-line separated block, read lazily; `first`
    is the number of the first line (as `_lines` yields them: a lone CR starts a line)."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(lines, first):
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


class Listing(NamedTuple):
    """What every entry of one paper list shares: where it is, the record each entry starts
    from (venue, year, proceedings), whether entries start at title markers, and whether the
    list starts with a header line."""

    path: str
    shared: Record
    uses_markers: bool
    header: bool


class Part(NamedTuple):
    """Whole entries of a paper list, as read (`split`): the bytes of their lines, the
    number of the first of them as a file counts lines (for errors) and as `read` counts
    them (a lone CR starts a line there), whether they start with the header line, and
    where their bytes start in the list's."""

    data: bytes
    line: int
    logical: int
    header: bool
    offset: int = 0


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
    listing, first = _begin(source, path, blocks, venue, year, venue_title, report)
    yield from _records(_entries(chain([first], blocks), listing.uses_markers), listing)


def split(
    source: bytes | Path,
    path: str | Path,
    *,
    venue: str | None = None,
    year: int | None = None,
    venue_title: str | None = None,
    report: Callable[[str], None] | None = None,
    size: int = 256,
) -> tuple[Listing, Iterator[Part]]:
    """A paper list (as `read` takes it) as `Part`s of about `size` entries each, cut by a
    scan of the bytes; `parse` makes of each what `read` makes of those lines. The header
    is read here (its errors and its venue warning come here, as `read`'s come first)."""
    path = str(path)
    blocks = _paragraphs(_lines(source, path))
    listing, _ = _begin(source, path, blocks, venue, year, venue_title, report)
    blocks.close()
    return listing, _parts(source, path, listing, size)


def parse(part: Part, listing: Listing) -> Iterator[Record]:
    """The records of one `Part` of the list `listing` tells of (`split`)."""
    blocks = _paragraphs(_lines(part.data, listing.path, part.line), part.logical)
    if part.header:
        next(blocks)
    return _records(_entries(blocks, listing.uses_markers), listing)


def _begin(
    source: bytes | Path,
    path: str,
    blocks: Iterator[tuple[int, list[str]]],
    venue: str | None,
    year: int | None,
    venue_title: str | None,
    report: Callable[[str], None] | None,
) -> tuple[Listing, tuple[int, list[str]]]:
    """What the list's entries share, and its first entry's block (the header taken from
    `blocks`); an error for a list without entries, venue or year."""
    first = next(blocks, None)
    header_venue = header_year = None
    header = first is not None and _is_header(first[1])
    if first is not None and header:
        header_venue, header_year = parse_header(first[1][0])
        first = next(blocks, None)
    if first is None:
        raise BibError("empty paper list: no entries after the header", path)
    common = _venue_fields(path, venue or header_venue, year or header_year, venue_title, report)
    # what every record of the list shares, copied for each (a third of the cost of
    # building each Record from its arguments)
    shared = Record(id="", entry_type=EntryType.INPROCEEDINGS, **common)  # type: ignore[arg-type]
    return Listing(path, shared, _scan(source, path), header), first


def _parts(source: bytes | Path, path: str, listing: Listing, size: int) -> Iterator[Part]:
    """The list's lines in parts of about `size` paragraphs, each cut before a line that
    surely starts an entry (`_starts_entry`) after a blank line."""
    with _open(source, path) as handle:
        lines: list[bytes] = []
        logical = 0  # the number of the line last read, as `_lines` counts
        offset = 0  # where that line starts
        start = Part(b"", 1, 1, listing.header)
        paragraphs = 0
        after_blank = True
        for line, raw in enumerate(handle, 1):
            logical += 1
            if b"\r" in raw:  # a lone CR ends a line in `_lines`
                logical += raw.rstrip(b"\n").removesuffix(b"\r").count(b"\r")
            blank = not raw.strip()
            if after_blank and not blank:
                if paragraphs >= size and _starts_entry(raw, listing.uses_markers):
                    yield start._replace(data=b"".join(lines))
                    lines, paragraphs = [], 0
                    start = Part(b"", line, logical, False, offset)
                paragraphs += 1
            after_blank = blank
            lines.append(raw)
            offset += len(raw)
        if lines:
            yield start._replace(data=b"".join(lines))


def _starts_entry(raw: bytes, uses_markers: bool) -> bool:
    """Whether a line after a blank one starts an entry as `_entries` reads it: a line that
    is not blank (in Unicode's sense) and, in a list of title markers, a marker. False when
    unsure (a CR inside, a byte that is not UTF-8: the part then runs on)."""
    body = raw.rstrip(b"\n").removesuffix(b"\r")
    if b"\r" in body:
        return False
    try:
        text = body.decode("utf-8").strip()
    except UnicodeDecodeError:
        return False
    return bool(text) and (not uses_markers or _is_marker(text))


def _records(entries: Iterable[_Entry], listing: Listing) -> Iterator[Record]:
    path, shared = listing.path, listing.shared
    for entry in entries:
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
            year=shared.year,
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
