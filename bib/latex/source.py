"""The LaTeX a `.bib` input wrote, given back where the record still says the same thing.

The reader keeps each field's LaTeX with what the record held for that field when read
(`Record.latex`, `held`); a writer asks `kept` for a field and gets the LaTeX back while the
record holds the same value, or None once a stage, a merge or an edit changed it (then it
encodes the value itself). Why: docs/decisions/latex-source.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bib.record import FieldLatex, LatexSource, Record, StringDef, TagKind, evolve

CONTAINERS = ("booktitle", "journal", "journaltitle")
"""The fields a record's container title is read from and written to (the type decides)."""


class Written(str):
    """A value as the input wrote it, `@string` references and `#` joins included: the
    writer puts it after `name = ` as it is, without braces around it."""

    __slots__ = ()


def _names(record: Record) -> str:
    return " and ".join(f"{a.family}|{a.given}|{a.literal}|{a.suffix}" for a in record.authors)


def _keywords(record: Record) -> str:
    return ", ".join(t.value for t in record.tags if t.kind is TagKind.TOPIC)


_ATTRIBUTES: dict[str, Callable[[Record], str]] = {
    "title": lambda r: r.title,
    "author": _names,
    "abstract": lambda r: r.abstract,
    "note": lambda r: r.note,
    "eventtitle": lambda r: r.event_title,
    "publisher": lambda r: r.publisher,
    "series": lambda r: r.series,
    "keywords": _keywords,
    "year": lambda r: "" if r.year is None else str(r.year),
    **dict.fromkeys(CONTAINERS, lambda r: r.container_title),
}
"""Fields the reader maps onto a Record attribute, and how to read that attribute."""

NOT_KEPT = frozenset(
    "date url doi eprint archiveprefix eprinttype primaryclass file pdf entrytype "  # noqa: SIM905
    "addendum".split()
)
"""Fields the writers rebuild from typed data (a date, identifiers, the addendum bib
composes) or copy verbatim: never kept as read (an input's `key` is kept, as written).
`year` and `month` are kept for classic BibTeX only (BibLaTeX writes a `date` and a
month number)."""
BIBTEX_ONLY = frozenset({"year", "month"})


def held(record: Record, name: str, further: dict[str, str] | None = None) -> str | None:
    """What `record` holds for the `.bib` field `name`: the value a kept LaTeX is compared
    against. None for a field the writers rebuild (`NOT_KEPT`) or the record lacks.
    `further`: the record's `further_fields`, for a caller asking about each of its fields
    (a look-up instead of a scan of `Record.fields` for each)."""
    if name in NOT_KEPT:
        return None
    attribute = _ATTRIBUTES.get(name)
    if attribute is not None:
        return attribute(record) or None
    if further is not None:
        return further.get(name)
    return next((value for field, value in record.fields if field == name), None)


def further_fields(record: Record) -> dict[str, str]:
    """`Record.fields` by name, the first of a repeated name as `held` reads it."""
    return dict(reversed(record.fields))


def kept(record: Record, name: str, *, ascii: bool, current: str | None = None) -> str | None:
    """The LaTeX the input wrote for field `name`, while `record` still holds what it was
    read as (`current`, else `held`): a `Written` value when it references `@string`s; None
    when there is none, the value changed, or `ascii` asks for ASCII and it is not."""
    latex = record.latex
    if latex is None:
        return None
    found = latex.field(name)
    if found is None or found.decoded != (held(record, name) if current is None else current):
        return None
    return _text(found, ascii)


def kept_container(record: Record, *, ascii: bool) -> str | None:
    """`kept` for the container title, read from whichever container field the input used:
    `journal` is `journaltitle` in BibLaTeX and either may come from `booktitle`."""
    for name in CONTAINERS:
        if (value := kept(record, name, ascii=ascii, current=record.container_title)) is not None:
            return value
    return None


def _text(found: FieldLatex, ascii: bool) -> str | None:
    text = found.raw or found.latex
    if ascii and not text.isascii():
        return None
    return Written(found.raw) if found.raw else found.latex


_PIECE = re.compile(r'[{}"]|[^\s"#%\'(),={}]+')
"""A brace, a quote or a word of a value as written (`references`)."""


def references(raw: str) -> list[str]:
    """The `@string` names a value as written (`FieldLatex.raw`, `StringDef.raw`) uses, in
    order, lower-cased as BibTeX compares them; numbers and delimited pieces are skipped."""
    found, depth, quoted = [], 0, False
    for match in _PIECE.finditer(raw):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token == '"' and depth == 0:
            quoted = not quoted
        elif depth == 0 and not quoted and not token.isdigit():
            found.append(token.lower())
    return found


class Definitions:
    """The `@preamble`s and `@string`s of every record of an output, gathered before any
    entry is written (they go at its top, `header`): each once, in order of first use. An
    `@string` two inputs define differently is a clash: its uses are written expanded
    (`expanded`), and so are those of the `@string`s defined in terms of it. A plain class:
    making a dataclass costs every start-up of a reader about a millisecond."""

    __slots__ = ("clashes", "preambles", "strings")

    def __init__(self) -> None:
        self.strings: dict[str, StringDef] = {}
        self.clashes: dict[str, tuple[str, str]] = {}
        """Name -> the first two different definitions."""
        self.preambles: dict[str, None] = {}

    def add(self, latex: LatexSource | None) -> None:
        if latex is None:
            return
        self.preambles.update(dict.fromkeys(latex.preambles))
        for found in latex.strings:
            name = found.name.lower()
            known = self.strings.setdefault(name, found)
            if known.raw != found.raw and name not in self.clashes:
                self.clashes[name] = (known.raw, found.raw)

    def unusable(self) -> frozenset[str]:
        """The clashing `@string`s and every one defined in terms of them."""
        if not self.clashes:
            return frozenset()
        bad = set(self.clashes)
        for name, found in self.strings.items():  # in order of first use: dependencies first
            if any(used in bad for used in references(found.raw)):
                bad.add(name)
        return frozenset(bad)

    def warnings(self) -> list[str]:
        return [
            f"warning: @string '{name}' is defined differently in two inputs "
            f"({first} and {second}): its uses are written expanded"
            for name, (first, second) in self.clashes.items()
        ]


def expanded(record: Record, names: frozenset[str]) -> Record:
    """`record` with every field that references one of the `@string`s `names` (directly or
    through another) written expanded: its `raw` dropped, and those `@string`s with it."""
    latex = record.latex
    if latex is None or not names or not any(d.name.lower() in names for d in latex.strings):
        return record
    fields = tuple(
        f._replace(raw="") if f.raw and not names.isdisjoint(references(f.raw)) else f
        for f in latex.fields
    )
    still = {name for f in fields if f.raw for name in references(f.raw)}
    needed = set(still)
    for found in reversed(latex.strings):  # in file order: a definition's needs come first
        if found.name.lower() in needed:
            needed.update(references(found.raw))
    strings = tuple(d for d in latex.strings if d.name.lower() in needed - names)
    return evolve(record, latex=LatexSource(fields, strings, latex.preambles))
