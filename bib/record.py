"""The one record model that every stage of `bib` passes on.

Readers produce Records, extractors return enriched copies (`dataclasses.replace`),
writers and the Zotero sync consume them. Records are immutable so that a stage can
never change what an earlier stage handed to another consumer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, NamedTuple


class EntryType(StrEnum):
    """What kind of work a record describes: biblatex's entry types (its data model), and
    `preprint`. Writers map it to their own vocabulary through the table in
    bib/data/csl_biblatex.json (`bib.types`)."""

    INPROCEEDINGS = "inproceedings"
    ARTICLE = "article"
    PREPRINT = "preprint"
    BOOK = "book"
    INCOLLECTION = "incollection"
    THESIS = "thesis"
    REPORT = "report"
    MISC = "misc"
    ARTWORK = "artwork"
    AUDIO = "audio"
    BOOKINBOOK = "bookinbook"
    BOOKLET = "booklet"
    COLLECTION = "collection"
    DATASET = "dataset"
    IMAGE = "image"
    INBOOK = "inbook"
    INREFERENCE = "inreference"
    JURISDICTION = "jurisdiction"
    LEGAL = "legal"
    LEGISLATION = "legislation"
    LETTER = "letter"
    MANUAL = "manual"
    MOVIE = "movie"
    MUSIC = "music"
    MVBOOK = "mvbook"
    MVCOLLECTION = "mvcollection"
    MVPROCEEDINGS = "mvproceedings"
    MVREFERENCE = "mvreference"
    ONLINE = "online"
    PATENT = "patent"
    PERFORMANCE = "performance"
    PERIODICAL = "periodical"
    PROCEEDINGS = "proceedings"
    REFERENCE = "reference"
    REVIEW = "review"
    SOFTWARE = "software"
    STANDARD = "standard"
    SUPPBOOK = "suppbook"
    SUPPCOLLECTION = "suppcollection"
    SUPPPERIODICAL = "suppperiodical"
    UNPUBLISHED = "unpublished"
    VIDEO = "video"


class LinkRole(StrEnum):
    PAPER = "paper"
    CODE = "code"
    PROJECT = "project"


class TagKind(StrEnum):
    TOPIC = "topic"
    METHOD = "method"
    DATASET = "dataset"
    MODEL = "model"
    CODE = "code"
    CONTRIBUTION = "contribution"
    KEYPHRASE = "keyphrase"


Span = tuple[int, int]
"""A half-open character range `[start, end)` into the record's abstract."""


@dataclass(frozen=True, slots=True)
class Author:
    """A person or organisation; `literal` holds names that cannot be split.

    `family` includes a non-dropping particle (`van Gogh`), as BibTeX's "von Last" does;
    `suffix` is BibTeX's "Jr" part and CSL's `suffix`."""

    family: str = ""
    given: str = ""
    literal: str = ""
    suffix: str = ""

    @property
    def display(self) -> str:
        if self.literal:
            return self.literal
        name = f"{self.given} {self.family}".strip()
        return f"{name}, {self.suffix}" if self.suffix else name


ET_AL = Author(literal="others")
"""The last name of a list that goes on: BibTeX's `and others`, CSL's et al. (no author)."""


@dataclass(frozen=True, slots=True)
class Link:
    url: str
    role: LinkRole = LinkRole.PAPER


@dataclass(frozen=True, slots=True)
class Tag:
    """An extracted tag and the abstract spans that produced it (its evidence)."""

    kind: TagKind
    value: str
    label: str = ""
    evidence: tuple[Span, ...] = ()
    loose: bool = field(default=False, compare=False)
    """A topic the paper names but is not about, which the list's generic topics leave out
    (bib.extract.generic); not part of what the tag is (equality, hash)."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a record was read from, so that errors and merges can name it."""

    path: str
    line: int | None = None


class FieldLatex(NamedTuple):
    """One field of a `.bib` entry as the file wrote it, and what the record held for it
    when read: a writer writes `latex` back while the record still holds `decoded`, so a
    value nobody changed keeps its LaTeX (docs/decisions/latex-source.md). A NamedTuple,
    not a frozen dataclass: the reader makes one for every field of a file, and a frozen
    dataclass's `__init__` costs three times as much."""

    name: str
    """The field as read, lower-cased."""
    latex: str
    """The value's LaTeX, outer delimiters removed, `@string`s expanded."""
    decoded: str
    """What the record held for the field when read (`bib.latex.source.held`)."""
    raw: str = ""
    """The value as written when it references `@string`s (`jacm # " 12"`), else empty."""


@dataclass(frozen=True, slots=True)
class StringDef:
    """An `@string` a kept field references, as written, to be written again."""

    name: str
    raw: str


@dataclass(frozen=True, slots=True)
class LatexSource:
    """What a `.bib` wrote that decoding to Unicode would lose: each field's LaTeX, the
    `@string`s those fields reference (with the ones they use, in file order) and, on the
    first record of a file, its `@preamble`s."""

    fields: tuple[FieldLatex, ...] = ()
    strings: tuple[StringDef, ...] = ()
    preambles: tuple[str, ...] = ()

    def field(self, name: str) -> FieldLatex | None:
        return next((f for f in self.fields if f.name == name), None)


@dataclass(frozen=True, slots=True)
class Record:
    """A bibliographic record.

    `id` is stable across runs and input order (see `bib.identity`); `key` is the
    citation key, assigned by `bib.keys` after duplicates are merged. `abstract` keeps
    the source text verbatim (markdown, inline LaTeX and all); writers decide how to
    render it. `fields` carries further bibliographic fields read from BibTeX or CSL-JSON
    (volume, pages, number, ...) under their BibTeX names, so round trips keep them;
    `latex` keeps what a `.bib` input wrote, so that BibTeX output can write it back.
    """

    id: str
    abstract: str = ""
    key: str = ""
    entry_type: EntryType = EntryType.INPROCEEDINGS
    title: str = ""
    title_derived: bool = False
    authors: tuple[Author, ...] = ()
    venue: str = ""
    container_title: str = ""
    event_title: str = ""
    publisher: str = ""
    series: str = ""
    year: int | None = None
    links: tuple[Link, ...] = ()
    doi: str = ""
    arxiv_id: str = ""
    method: str = ""
    tags: tuple[Tag, ...] = ()
    note: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    sources: tuple[Source, ...] = field(default=())
    latex: LatexSource | None = None
    """The LaTeX of a `.bib` input (BibTeX output writes it back where unchanged)."""

    @property
    def source(self) -> Source | None:
        return self.sources[0] if self.sources else None

    def urls(self, role: LinkRole) -> list[str]:
        return [link.url for link in self.links if link.role == role]

    @property
    def url(self) -> str:
        """The URL a reference list should print: the paper's own, else the first link."""
        papers = self.urls(LinkRole.PAPER)
        if papers:
            return papers[0]
        return self.links[0].url if self.links else ""


_FIELDS = tuple(f.name for f in fields(Record))
_SETTER = {name: getattr(Record, name).__set__ for name in _FIELDS}
"""The slot descriptors' setters: they write a frozen instance's slots directly."""


def _copier() -> Callable[[Record], Record]:
    """A function that copies a Record slot by slot, written out field by field as
    `dataclasses` writes `__init__` (a loop over the fields costs twice as much)."""
    defaults = ", ".join(f"set_{name}=_SETTER[{name!r}]" for name in _FIELDS)
    body = "".join(f"    set_{name}(copy, record.{name})\n" for name in _FIELDS)
    source = (
        f"def copy(record, new=object.__new__, cls=Record, {defaults}):\n"
        f"    copy = new(cls)\n{body}    return copy\n"
    )
    namespace: dict[str, Any] = {"Record": Record, "_SETTER": _SETTER}
    exec(source, namespace)  # the source holds nothing but the field names
    return namespace["copy"]  # type: ignore[no-any-return]


_copy = _copier()


def evolve(record: Record, **changes: object) -> Record:
    """`dataclasses.replace` for Records, in a third of its time: every pipeline stage copies
    every record, and `replace` looks up the fields and sets each through `__init__`.

    Copying the slots straight into a new instance builds the same record, since `Record`
    has no `__post_init__` and no field outside `__init__` (see tests/readers/test_evolve.py)."""
    copy = _copy(record)
    for name, value in changes.items():
        if name not in _SETTER:
            raise TypeError(f"Record has no field '{name}'")
        _SETTER[name](copy, value)
    return copy
