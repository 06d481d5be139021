"""The one record model that every stage of `bib` passes on.

Readers produce Records, extractors return enriched copies (`dataclasses.replace`),
writers and the Zotero sync consume them. Records are immutable so that a stage can
never change what an earlier stage handed to another consumer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter


class EntryType(StrEnum):
    """What kind of work a record describes; writers map it to their own vocabulary."""

    INPROCEEDINGS = "inproceedings"
    ARTICLE = "article"
    PREPRINT = "preprint"
    BOOK = "book"
    INCOLLECTION = "incollection"
    THESIS = "thesis"
    REPORT = "report"
    MISC = "misc"


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


Span = tuple[int, int]
"""A half-open character range `[start, end)` into the record's abstract."""


@dataclass(frozen=True, slots=True)
class Author:
    """A person or organisation; `literal` holds names that cannot be split."""

    family: str = ""
    given: str = ""
    literal: str = ""

    @property
    def display(self) -> str:
        if self.literal:
            return self.literal
        return f"{self.given} {self.family}".strip()


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


@dataclass(frozen=True, slots=True)
class Source:
    """Where a record was read from, so that errors and merges can name it."""

    path: str
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """A bibliographic record.

    `id` is stable across runs and input order (see `bib.identity`); `key` is the
    citation key, assigned by `bib.keys` after duplicates are merged. `abstract` keeps
    the source text verbatim (markdown, inline LaTeX and all); writers decide how to
    render it. `fields` carries further bibliographic fields read from BibTeX or CSL-JSON
    (volume, pages, number, ...) under their BibTeX names, so round trips keep them.
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

    def tags_of(self, *kinds: TagKind) -> list[Tag]:
        return [t for t in self.tags if not kinds or t.kind in kinds]


_FIELDS = tuple(f.name for f in fields(Record))
_values = attrgetter(*_FIELDS)
_AT = {name: i for i, name in enumerate(_FIELDS)}


def evolve(record: Record, **changes: object) -> Record:
    """`dataclasses.replace` for Records, in half its time: every stage makes a copy of every
    record, and `replace` looks up each field's metadata on each call."""
    values = list(_values(record))
    for name, value in changes.items():
        if name not in _AT:
            raise TypeError(f"Record has no field '{name}'")
        values[_AT[name]] = value
    return Record(*values)  # type: ignore[arg-type]
