"""BibTeX and BibLaTeX files (`.bib`) into Records, with bibtexparser 1.4.

bibtexparser 1.x forgives a lot (a missing brace swallows the rest of the file, a
duplicate key silently replaces the first entry), so the file is checked first by a
small scanner that knows where every entry starts and reports such faults with their
line. Values are turned from LaTeX into Unicode by pylatexenc, but only the spans that
need it: inline math stays `$...$` so that writers can render it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import bibtexparser
from bibtexparser.bparser import BibTexParser

from bib import venues
from bib.errors import BibError
from bib.extract.urls import role
from bib.identity import normalize_arxiv, record_id, strip_doi
from bib.latex import decoder, from_latex
from bib.readers import names
from bib.readers.paperlist import decode
from bib.readers.roundtrip import merge_links, split_note
from bib.record import Author, EntryType, Link, Record, Source, Tag, TagKind

ENTRY_TYPES: dict[str, EntryType] = {
    "inproceedings": EntryType.INPROCEEDINGS,
    "conference": EntryType.INPROCEEDINGS,
    "article": EntryType.ARTICLE,
    "book": EntryType.BOOK,
    "incollection": EntryType.INCOLLECTION,
    "inbook": EntryType.INCOLLECTION,
    "phdthesis": EntryType.THESIS,
    "mastersthesis": EntryType.THESIS,
    "thesis": EntryType.THESIS,
    "techreport": EntryType.REPORT,
    "report": EntryType.REPORT,
    "misc": EntryType.MISC,
    "online": EntryType.MISC,
    "unpublished": EntryType.MISC,
}
_CONSUMED = frozenset(
    "ENTRYTYPE ID title author booktitle journal journaltitle eventtitle publisher series "  # noqa: SIM905
    "year abstract url doi eprint archiveprefix eprinttype primaryclass keywords "
    "note venue key".split()
)
# `key` only tells BibTeX styles how to label and sort an authorless entry; the writer
# derives it again (from the method name or title), so it is not kept as an extra field.
_ENTRY_START = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_MATH = re.compile(r"(\$\$.+?\$\$|\$(?:\\.|[^$\\])+\$|\\\(.+?\\\)|\\\[.+?\\\])", re.DOTALL)
_URL_CMD = re.compile(r"\\(?:url|href)\s*\{([^{}]*)\}(?:\{([^{}]*)\})?")


@dataclass(frozen=True, slots=True)
class _Span:
    kind: str
    key: str
    line: int


def to_unicode(value: str) -> str:
    """LaTeX plain text (names, keywords, publisher, extra fields) to Unicode; math spans kept
    as written; plain spans never reach pylatexenc. Titles, abstracts and notes are record
    text, which keeps its markup: `bib.latex.from_latex`.
    """
    value = _URL_CMD.sub(lambda m: m.group(2) or m.group(1), value)
    parts = _MATH.split(value)
    out = []
    for index, part in enumerate(parts):
        if index % 2:
            out.append(part)
        elif "\\" in part:
            out.append(decoder("verbatim").latex_to_text(part))
        else:
            plain = part.replace("{", "").replace("}", "").replace("~", " ")
            out.append(plain.replace("---", "\u2014").replace("--", "\u2013"))
    text = "".join(out).replace("\xa0", " ")
    return " ".join(text.split())


def scan(text: str, path: str) -> list[_Span]:
    """Where each entry starts; raises BibError for unbalanced braces and duplicate keys."""
    spans: list[_Span] = []
    seen: dict[str, int] = {}
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    pos = 0
    while (match := _ENTRY_START.search(text, pos)) is not None:
        kind = match.group(1).lower()
        start_line = line_of(match.start())
        paren = match.group(2) == "("
        depth, i, closed = 0, match.end(), False
        while i < len(text):
            char = text[i]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth < 0:
                    closed = not paren
                    break
            elif char == ")" and paren and depth == 0:
                closed = True
                break
            elif char == "@" and kind != "comment" and _starts_entry(text, i):
                break  # the next entry starts: this one was never closed
            i += 1
        if not closed:
            raise BibError(f"unbalanced braces: @{kind} entry is never closed", path, start_line)
        if kind not in ("comment", "preamble", "string"):
            key = text[match.end() : i].split(",", 1)[0].strip()
            if not key or "=" in key:
                raise BibError(f"@{kind} entry has no citation key", path, start_line)
            folded = key.casefold()
            if folded in seen:
                raise BibError(
                    f"duplicate key '{key}' (first at line {seen[folded]})", path, start_line
                )
            seen[folded] = start_line
            spans.append(_Span(kind, key, start_line))
        pos = i + 1
    return spans


def _starts_entry(text: str, pos: int) -> bool:
    """An `@type{` at the start of a line: the next entry, whatever the braces say."""
    line_start = text.rfind("\n", 0, pos) + 1
    return (
        line_start > 0 and not text[line_start:pos].strip() and bool(_ENTRY_START.match(text, pos))
    )


def parse_name(name: str) -> Author:
    """One BibTeX name (LaTeX) into a Unicode Author (see `bib.readers.names.parse_name`)."""
    return names.parse_name(name, to_unicode)


_SORT_ONLY = re.compile(r"\\noopsort\s*\{[^{}]*\}")
"""`{\\noopsort{1973c}}1981`: a sort key BibTeX styles never print (xampl.bib)."""


def _year(entry: dict[str, str]) -> int | None:
    for name in ("year", "date"):
        found = re.search(r"\d{4}", _SORT_ONLY.sub("", entry.get(name, "")))
        if found:
            return int(found.group(0))
    return None


def _bare_year(name: str, value: str) -> bool:
    """A `date` that is only a year, which Record.year holds already."""
    return name == "date" and re.fullmatch(r"\s*-?\d{1,4}\s*", value) is not None


def _field_value(name: str, value: str) -> str:
    """A further field in Unicode; name lists in the canonical form of `names.format_names`
    (their braces and `and`s are structure, which plain decoding would lose)."""
    if name in ("file", "pdf"):
        return value
    if name in names.NAME_LISTS:
        return names.format_names(names.parse_names(value, to_unicode))
    return to_unicode(value)


def _record(entry: dict[str, str], path: str, line: int) -> Record:
    get = entry.get
    authors = names.parse_names(get("author", ""), to_unicode)
    title = from_latex(get("title", ""))
    abstract = from_latex(get("abstract", ""))
    year = _year(entry)
    doi = strip_doi(get("doi", ""))
    archive = (get("archiveprefix", "") or get("eprinttype", "")).lower()
    arxiv_id = normalize_arxiv(get("eprint", "")) if archive in ("", "arxiv") else ""
    url = get("url", "").strip()
    if not arxiv_id and "arxiv.org/" in url:
        arxiv_id = normalize_arxiv(url.rstrip("/").rsplit("/", 1)[-1])
    entry_type = ENTRY_TYPES.get(entry["ENTRYTYPE"].lower(), EntryType.MISC)
    if entry_type is EntryType.MISC and arxiv_id:
        entry_type = EntryType.PREPRINT
    container = to_unicode(get("booktitle", "") or get("journal", "") or get("journaltitle", ""))
    venue = to_unicode(get("venue", "")) or (venues.find(container) or "" if container else "")
    keywords = [k.strip() for k in re.split(r"[,;]", to_unicode(get("keywords", ""))) if k.strip()]
    note, derived, note_links = split_note(from_latex(get("note", "")))
    addendum, _, addendum_links = split_note(from_latex(get("addendum", "")))
    extra = tuple(
        (name, _field_value(name, value))
        for name, value in sorted(entry.items())
        if name not in _CONSUMED and value.strip() and not _bare_year(name, value)
    )
    extra = tuple((n, v) for n, v in extra if n != "addendum") + (
        (("addendum", addendum),) if addendum else ()
    )
    return Record(
        id=record_id(
            doi=doi,
            arxiv_id=arxiv_id,
            abstract=abstract,
            title=title,
            year=year,
            authors=authors,
            key=entry["ID"],
        ),
        abstract=abstract,
        key=entry["ID"],
        entry_type=entry_type,
        title=title,
        authors=authors,
        venue=venue,
        container_title=container,
        event_title=to_unicode(get("eventtitle", "")),
        publisher=to_unicode(get("publisher", "")),
        series=to_unicode(get("series", "")),
        year=year,
        links=merge_links((Link(url, role(url)),) if url else (), note_links, addendum_links),
        doi=doi,
        arxiv_id=arxiv_id,
        tags=tuple(Tag(TagKind.TOPIC, k, k) for k in keywords),
        note=note,
        title_derived=derived and bool(title),
        fields=extra,
        sources=(Source(path, line),),
    )


def read(data: bytes, path: str | Path) -> Iterator[Record]:
    path = str(path)
    text = decode(data, path)
    spans = scan(text, path)
    if not spans:
        raise BibError("no BibTeX entries found", path)
    parser = BibTexParser(common_strings=True, ignore_nonstandard_types=False)
    parser.homogenize_fields = False
    try:
        database = bibtexparser.loads(text, parser=parser)
    except Exception as exc:  # bibtexparser raises bare pyparsing/Key errors
        raise BibError(f"cannot parse BibTeX: {exc}", path) from None
    entries = {e["ID"].casefold(): e for e in database.entries}
    for span in spans:
        entry = entries.get(span.key.casefold())
        if entry is None:
            raise BibError(f"cannot parse @{span.kind} entry '{span.key}'", path, span.line)
        yield _record(
            {k.lower() if k not in ("ENTRYTYPE", "ID") else k: v for k, v in entry.items()},
            path,
            span.line,
        )
