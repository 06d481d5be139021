"""BibTeX and BibLaTeX files (`.bib`) into Records.

The syntax is read by our own linear tokenizer (`bib.readers.bibtex_syntax`; why:
docs/decisions/bibtexparser.md), which warns with a line where BibTeX would and goes on.
Values are turned from LaTeX into Unicode by pylatexenc, but only the spans that need
it: inline math stays `$...$` so that writers can render it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bib import dates, types, venues
from bib.errors import BibError
from bib.extract.urls import role
from bib.identity import normalize_arxiv, record_id, strip_doi
from bib.latex import decoder, from_latex
from bib.latex.fromlatex import common_text, prepare
from bib.latex.pieces import cut
from bib.latex.source import CONTAINERS, further_fields, held, references
from bib.latex.tables import _LIGATURE, _LIGATURE_SHOWN
from bib.readers import bibtex_syntax, names
from bib.readers.paperlist import decode
from bib.readers.roundtrip import merge_links, split_note, without_derived_key
from bib.record import (
    Author,
    EntryType,
    FieldLatex,
    LatexSource,
    Link,
    Record,
    Source,
    StringDef,
    Tag,
    TagKind,
    evolve,
)
from bib.resolve.provenance import provenance_of, without_provenance

_CONSUMED = frozenset(
    "ENTRYTYPE ID title author booktitle journal journaltitle eventtitle publisher series "  # noqa: SIM905
    "year abstract url doi eprint archiveprefix eprinttype primaryclass keywords "
    "note entrytype".split()
)
# `key` (how BibTeX styles label and sort an authorless entry) is the user's: an extra field,
# written back verbatim; the BibTeX writer derives one only for a record without it.
_MATH = re.compile(r"(\$\$.+?\$\$|\$(?:\\.|[^$\\])+\$|\\\(.+?\\\)|\\\[.+?\\\])", re.DOTALL)
_LATEX = re.compile(r"[\\{}$~`]|--|''")
"""What makes a value LaTeX rather than plain text (`~` a tie, `--` a dash, TeX's quotes)."""
_URL_CMD = re.compile(r"\\(?:url|href)\s*\{([^{}]*)\}(?:\{([^{}]*)\})?")


def to_unicode(value: str) -> str:
    """LaTeX plain text (names, keywords, publisher, extra fields) to Unicode; math spans kept
    as written; plain spans never reach pylatexenc. Titles, abstracts and notes are record
    text, which keeps its markup: `bib.latex.from_latex`.
    """
    if not _LATEX.search(value):
        return " ".join(value.split())  # plain text (most values): no decoder, no regexes
    return _decoded(value, _decode_common)


def _decode_common(part: str) -> str | None:
    """The table decoder's text of `part`; a long part it cannot read whole is read in
    pieces (`bib.latex.pieces`), each by the table decoder or else pylatexenc."""
    common = common_text(part)
    if common is not None:
        return common
    pieces = cut(part)
    if pieces is None:
        return None
    return " ".join(_decode_piece(piece) for piece in pieces)


def _decode_piece(piece: str) -> str:
    common = common_text(piece)
    return decoder("verbatim").latex_to_text(piece) if common is None else common


def to_unicode_reference(value: str) -> str:
    """`to_unicode` with every LaTeX span read by pylatexenc: the fast decoder's oracle."""
    if not _LATEX.search(value):
        return " ".join(value.split())
    return _decoded(value, lambda part: None)


def _decoded(value: str, fast: Callable[[str], str | None]) -> str:
    value = _URL_CMD.sub(lambda m: m.group(2) or m.group(1), prepare(value))
    parts = _MATH.split(value)
    out = []
    for index, part in enumerate(parts):
        if index % 2:
            out.append(part)
        elif "\\" in part:
            common = fast(part)
            out.append(decoder("verbatim").latex_to_text(part) if common is None else common)
        else:
            # Ligatures first: a brace group between two characters keeps them apart (`'{}'`).
            typeset = _LIGATURE.sub(_ligature, part.replace("~", " "))
            out.append(typeset.replace("{", "").replace("}", ""))
    text = "".join(out).replace("\xa0", " ")
    return " ".join(text.split())


def _ligature(m: re.Match[str]) -> str:
    return _LIGATURE_SHOWN[m.group()]


class Decoding:
    """The decoded values of one read, remembered: a file repeats its journals, publishers,
    author lists and `@string` expansions (TeX Live's `ack-nhfb` is in 8,700 entries), and
    each is decoded once. Made per `read` and dropped with it (never module-level); only
    short values are kept, and at most `LIMIT` of each kind, so memory stays flat in N. A
    value written as an `@string` reference is kept at any length: the file holds it once
    already, and its long ones are the most repeated (`ack-nhfb`, 600 characters)."""

    LIMIT = 20_000
    LONGEST = 300

    __slots__ = ("_names", "_record_text", "_text")

    def __init__(self) -> None:
        self._text: dict[str, str] = {}
        self._record_text: dict[str, str] = {}
        self._names: dict[str, tuple[Author, ...]] = {}

    def text(self, value: str, *, expanded: bool = False) -> str:
        """`to_unicode`, remembered; `expanded`: `value` came from `@string`s."""
        if not _LATEX.search(value):
            return " ".join(value.split())  # cheaper than a look-up
        found = self._text.get(value)
        if found is None:
            found = to_unicode(value)
            self._keep(self._text, value, found, expanded=expanded)
        return found

    def record_text(self, value: str) -> str:
        """`from_latex`, remembered."""
        found = self._record_text.get(value)
        if found is None:
            found = from_latex(value)
            self._keep(self._record_text, value, found)
        return found

    def names(self, value: str) -> tuple[Author, ...]:
        """`names.parse_names` with `to_unicode`, remembered."""
        found = self._names.get(value)
        if found is None:
            found = names.parse_names(value, self.text)
            self._keep(self._names, value, found)
        return found

    def _keep(
        self, table: dict[str, Any], value: str, decoded: Any, *, expanded: bool = False
    ) -> None:
        if (expanded or len(value) <= self.LONGEST) and len(table) < self.LIMIT:
            table[value] = decoded


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


def _field_value(name: str, value: str, decoding: Decoding, *, expanded: bool = False) -> str:
    """A further field in Unicode; name lists in the canonical form of `names.format_names`
    (their braces and `and`s are structure, which plain decoding would lose); `expanded`:
    written with `@string`s (`Decoding.text`)."""
    if name in ("file", "pdf"):
        return value
    if name in names.NAME_LISTS:
        return names.format_names(decoding.names(value))
    if name == "month":
        return dates.month_name(decoding.text(value))
    return decoding.text(value, expanded=expanded)


_NO_NOTE: tuple[str, bool, tuple[Link, ...]] = ("", False, ())
"""`split_note` of an empty note."""
_KEYWORD = re.compile(r"[,;]")
"""What separates keywords."""


def _record(
    entry: dict[str, str],
    path: str,
    line: int,
    decoding: Decoding,
    expanded: frozenset[str] = frozenset(),
) -> Record:
    """The Record of one entry's values; `expanded`: the fields written with `@string`s."""
    get = entry.get
    text = decoding.text
    authors = decoding.names(get("author", ""))
    title = decoding.record_text(get("title", ""))
    abstract = from_latex(entry["abstract"]) if "abstract" in entry else ""
    year = _year(entry)
    doi = strip_doi(get("doi", ""))
    archive = (get("archiveprefix", "") or get("eprinttype", "")).lower()
    arxiv_id = normalize_arxiv(get("eprint", "")) if archive in ("", "arxiv") else ""
    url = get("url", "").strip()
    if not arxiv_id and "arxiv.org/" in url:
        arxiv_id = normalize_arxiv(url.rstrip("/").rsplit("/", 1)[-1])
    entry_type, implied_kind = types.from_bibtex(entry["ENTRYTYPE"], get(types.ENTRYTYPE_FIELD, ""))
    if types.is_preprint(entry_type, arxiv_id, get(types.SUBTYPE_FIELD, "")):
        entry_type = EntryType.PREPRINT
    container = text(get("booktitle", "") or get("journal", "") or get("journaltitle", ""))
    venue = text(get("venue", "")) or (venues.find(container) or "" if container else "")
    keywords = (
        [k.strip() for k in _KEYWORD.split(text(entry["keywords"])) if k.strip()]
        if "keywords" in entry
        else []
    )
    note, derived, note_links = (
        split_note(decoding.record_text(entry["note"])) if "note" in entry else _NO_NOTE
    )
    addendum, _, addendum_links = (
        split_note(decoding.record_text(entry["addendum"])) if "addendum" in entry else _NO_NOTE
    )
    if origin := provenance_of(addendum):  # bib writes a resolved record's provenance there
        addendum = without_provenance(addendum)
        note = f"{note} {origin}".strip()
    extra = tuple(
        (name, _field_value(name, value, decoding, expanded=name in expanded))
        for name, value in sorted(entry.items())
        if (name not in _CONSUMED or (name == "year" and year is None))
        and value.strip()
        and not _bare_year(name, value)
    )
    if "addendum" in entry:  # decoded with the note's sentences taken out, not as read
        extra = tuple((n, v) for n, v in extra if n != "addendum") + (
            (("addendum", addendum),) if addendum else ()
        )
    if entry_type is EntryType.PREPRINT:  # the type says it: the marker is not kept twice
        extra = tuple((n, v) for n, v in extra if (n, v) != (types.SUBTYPE_FIELD, "preprint"))
    if "date" not in entry and (span := dates.year_range(get("year", ""))):
        extra = tuple(sorted((*extra, ("date", span))))
    if implied_kind and "type" not in entry:
        extra = tuple(sorted((*extra, ("type", implied_kind))))
    record = Record(
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
        event_title=text(get("eventtitle", "")),
        publisher=text(get("publisher", "")),
        series=text(get("series", "")),
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
    return without_derived_key(record) if "key" in entry else record


def read(
    data: bytes,
    path: str | Path,
    *,
    report: Callable[[str], None] | None = None,
    strict: bool = False,
) -> Iterator[Record]:
    """Records of a `.bib`, in file order, each with its LaTeX (`Record.latex`). Problems
    (an undefined `@string`, a repeated field or key, an entry that does not parse) go to
    `report` as `warning: FILE:LINE: ...`; with `strict` the first one is a BibError
    instead."""
    path = str(path)
    document = _document(data, path, report, strict)
    decoding = Decoding()
    strings = _usable_strings(document.strings)
    preambles = tuple(chunk.text for chunk in document.preambles)
    for entry in document.entries:
        record = _entry_record(entry, path, decoding)
        yield evolve(record, latex=_latex(entry, record, strings, preambles))
        preambles = ()  # the file's preambles go with its first record only


def _document(
    data: bytes, path: str, report: Callable[[str], None] | None, strict: bool
) -> bibtex_syntax.Document:
    """The whole parsed file: its `@string`s are needed whole before the first record, since
    a later redefinition decides whether a field may go on referencing one."""
    text = decode(data, path)

    def problem(found: bibtex_syntax.Problem) -> None:
        if strict:
            raise BibError(found.message, path, found.line)
        if report is not None:
            report(f"warning: {path}:{found.line}: {found.message}")

    document = bibtex_syntax.parse(text, path, problem)
    if not document.entries:
        raise no_entries(path, bool(document.problems))
    return document


def no_entries(path: str, problems: bool) -> BibError:
    """The error of a file with no entry (with a hint when nothing failed to parse either):
    one wording, whether the file was read whole or in parts (`bibtex_parts`)."""
    hint = "" if problems else " (is it a .bib file? entries start with @type{key,)"
    return BibError("no BibTeX entries found" + hint, path)


def _entry_record(entry: bibtex_syntax.Entry, path: str, decoding: Decoding) -> Record:
    fields = entry.values()
    fields["ENTRYTYPE"] = entry.type
    fields["ID"] = entry.key
    expanded = frozenset(f.name for f in entry.fields if f.raw)
    return _record(fields, path, entry.line, decoding, expanded)


class _Usable(dict[str, tuple[int, StringDef, tuple[str, ...]]]):
    """`@string` name (lower-cased) -> its place in the file, its definition as written and
    every usable `@string` it needs (itself included), in file order; `unusable`: the names
    the file defines that are not usable."""

    def __init__(self) -> None:
        super().__init__()
        self.unusable: set[str] = set()


def _usable_strings(strings: list[bibtex_syntax.StringDef]) -> _Usable:
    """The `@string`s a field may go on referencing in our output: defined once (or the
    same way each time; a redefinition changes what earlier entries meant) in terms of
    usable ones, of the month names every style predefines, or of names the file leaves
    undefined (BibTeX takes them from another `.bib` of the same document)."""
    definitions: dict[str, set[str]] = {}
    for found in strings:
        definitions.setdefault(found.name.lower(), set()).add(found.raw)
    twice = {name for name, raws in definitions.items() if len(raws) > 1}
    usable = _Usable()
    for index, found in enumerate(strings):
        name = found.name.lower()
        if name in twice or name in usable:
            continue
        needs = _needs(references(found.raw), usable)
        if needs is not None:
            usable[name] = (index, StringDef(found.name, found.raw), (*needs, name))
    usable.unusable = definitions.keys() - usable.keys()
    return usable


def _needs(names_used: list[str], usable: _Usable) -> tuple[str, ...] | None:
    """The usable `@string`s behind `names_used` (with what they need), or None when one is
    defined in the file but not usable. A month name or an undefined `@string` needs no
    definition of ours (the reader warned about the undefined one; BibTeX will too)."""
    needs: dict[str, None] = {}
    for name in names_used:
        if name in usable:
            needs.update(dict.fromkeys(usable[name][2]))
        elif name in usable.unusable:
            return None
    return tuple(needs)


def _month_number_written(found: bibtex_syntax.Field) -> bool:
    """`month = {7}`: not kept as written, so BibTeX output writes the name the record reads
    (July), as it does for `month = jul`; BibLaTeX writes the number either way, and a
    BibLaTeX export added back then finds the month it stored (its `jul`, say) unchanged."""
    return found.name == "month" and found.value.strip().isdigit()


def _latex(
    entry: bibtex_syntax.Entry, record: Record, strings: _Usable, preambles: tuple[str, ...]
) -> LatexSource | None:
    """The LaTeX of each field the record still holds as read (`bib.latex.source.held`),
    with the `@string`s they reference; a reference to an unusable `@string` is expanded,
    one to an undefined `@string` kept as written (the input means it to come from
    another file)."""
    kept: list[FieldLatex] = []
    needed: dict[str, None] = {}
    container = min(
        (f.name for f in entry.fields if f.name in CONTAINERS), key=CONTAINERS.index, default=None
    )
    further = further_fields(record)
    for found in entry.fields:
        name, value, _, raw = found
        if name in CONTAINERS and name != container:
            continue  # not the one the container title was read from
        if name == "note" and (record.title_derived or provenance_of(record.note)):
            continue  # the note bib wrote, its sentences rebuilt from the record
        decoded = held(record, name, further)
        if decoded is None or (name == "month" and _month_number_written(found)):
            continue
        if raw:
            needs = _needs(references(raw), strings)
            if needs is None:
                raw = ""
            else:
                needed.update(dict.fromkeys(needs))
        kept.append(FieldLatex(name, value, decoded, raw))
    if not kept and not preambles:
        return None
    used = tuple(strings[name][1] for name in sorted(needed, key=lambda n: strings[n][0]))
    return LatexSource(tuple(kept), used, preambles)
