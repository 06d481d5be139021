"""What every writer derives from a Record the same way: keywords, notes, links, keys."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from bib.errors import BibError
from bib.latex import MathTexts, Text, clean, to_latex
from bib.latex.source import Definitions
from bib.record import Record, TagKind
from bib.written import LINK_LABELS

DEFAULT_TAG_KINDS: tuple[TagKind, ...] = (
    TagKind.TOPIC,
    TagKind.METHOD,
    TagKind.DATASET,
    TagKind.MODEL,
)
"""Tag kinds written as keywords unless the caller picks others."""

_KEY = re.compile(r"\w[\w:./+'-]*")


def error(record: Record, message: str) -> BibError:
    """A BibError naming the record and, when known, the file and line it came from."""
    source = record.source
    name = record.key or record.id
    return BibError(
        f"record {name}: {message}",
        source.path if source else None,
        source.line if source else None,
    )


def checked_key(record: Record, accepts: Callable[[str], bool] | None = None) -> str:
    """The citation key, refused when the format (`accepts`, by default BibTeX's rule:
    `safe_key`) could misread it."""
    if not record.key:
        raise error(record, "no citation key (keys are assigned by bib.keys before writing)")
    if not (accepts or safe_key)(record.key):
        raise error(record, f"citation key {record.key!r} is not safe for BibTeX and pandoc")
    return record.key


def safe_key(key: str) -> bool:
    """Whether BibTeX, biber and pandoc all read `key` as it is."""
    return _KEY.fullmatch(key) is not None


def keyword_text(record: Record, kinds: tuple[TagKind, ...] | frozenset[TagKind]) -> str:
    """Tag values of the selected kinds, in tag order, without duplicates (case-blind),
    joined by ", ": what both writers write.

    A comma inside a value would split it in two (biblatex, Zotero), so it becomes a space.
    """
    found: dict[str, str] = {}
    for tag in record.tags:
        if tag.kind in kinds:
            value = clean(tag.value.replace(",", " "))
            folded = value.casefold()
            if value and folded not in found:
                found[folded] = value
    return ", ".join(found.values())


def extra_links(record: Record) -> list[tuple[str, str]]:
    """(label, url) for every link other than the one written as the record's `url`."""
    main = record.url
    seen = {main}
    out: list[tuple[str, str]] = []
    for link in record.links:
        if link.url not in seen:
            seen.add(link.url)
            out.append((LINK_LABELS[link.role], link.url))
    return out


def join_sentences(parts: Iterable[str]) -> str:
    """Join note sentences, adding a full stop only where one is missing."""
    out = ""
    for part in parts:
        if not part:
            continue
        if out:
            out += " " if out.endswith((".", "!", "?")) else ". "
        out += part
    return out


def check_unique_keys(records: Iterable[Record]) -> None:
    for _ in with_new_keys(records):
        pass


def with_new_keys(records: Iterable[Record]) -> Iterator[Record]:
    """The records, refusing one whose key an earlier one has."""
    seen: set[str] = set()
    for record in records:
        if record.key in seen:
            raise error(record, f"citation key {record.key!r} is used by two records")
        seen.add(record.key)
        yield record


class Layout(NamedTuple):
    """What a format writes around and between its entries."""

    first: str
    """Before the first entry."""
    between: str
    last: str
    """After the last entry."""
    empty: str
    """The whole text when there is no entry."""

    def wrap(self, entries: Iterable[str]) -> Iterator[str]:
        """Each entry with what goes before it, then the end: the pieces of a whole file."""
        opening = self.first
        written = False
        for text in entries:
            yield opening + text
            opening = self.between
            written = True
        yield self.last if written else self.empty


@dataclass(frozen=True, slots=True)
class WriteOptions:
    """What the user chose about an output: pure ASCII (BibTeX dialects only) and which tag
    kinds become keywords."""

    ascii: bool = False
    tag_kinds: tuple[TagKind, ...] = DEFAULT_TAG_KINDS


@dataclass(slots=True)
class RunMemo:
    """What the writers of one run learn on one record and reuse on the next. Whoever starts
    a run makes one (`bib.convert.encoder`, `writers.stream`) and hands it to every
    `prepare`; it ends with the run, so no run depends on another (docs/architecture.md,
    "Speed tricks")."""

    csl_check: Callable[[Any], bool] | None = None
    """The official CSL-JSON schema compiled into plain Python checks for this run
    (`csljson.run_check`, made at the first item): jsonschema cost more than writing an
    item, and TeX Live's items come in thousands of shapes."""
    math_texts: MathTexts = field(default_factory=MathTexts)
    """The plain text of each math body met (`latex.to_text`)."""
    venues: dict[tuple[object, ...], tuple[tuple[str, str], ...]] = field(default_factory=dict)
    """Each writer's venue fields (container, event, series, publisher, year) by their
    inputs: the records of a paper list share a handful, and cleaning and escaping them
    anew was a fifth of each writer's time (docs/architecture.md, "Speed tricks")."""
    year_dates: dict[int, str] = field(default_factory=dict)
    """The CSL-JSON text of `{"date-parts": [[year]]}` by year: a list has a few years."""


class Prepared:
    """One record as every writer of a run receives it: the work they share done once
    (`prepare`). `title` and `abstract` are cleaned and parsed once for all formats;
    `keywords` is the keyword text of the chosen kinds; the LaTeX of the title and abstract
    is rendered when BibTeX first asks and reused by BibLaTeX; `memo` is the run's."""

    __slots__ = (
        "_latex_abstract",
        "_latex_title",
        "abstract",
        "keywords",
        "memo",
        "options",
        "record",
        "title",
    )

    def __init__(self, record: Record, options: WriteOptions, memo: RunMemo) -> None:
        self.record = record
        self.options = options
        self.memo = memo
        self.title = Text.of(record.title)
        self.abstract = Text.of(record.abstract)
        self.keywords = keyword_text(record, options.tag_kinds)
        self._latex_title: str | None = None
        self._latex_abstract: str | None = None

    def latex_title(self) -> str:
        """`to_latex` of the title, braces protecting case (BibTeX and BibLaTeX)."""
        if self._latex_title is None:
            self._latex_title = to_latex(self.title, ascii=self.options.ascii, protect=True)
        return self._latex_title

    def latex_abstract(self) -> str:
        if self._latex_abstract is None:
            self._latex_abstract = to_latex(self.abstract, ascii=self.options.ascii)
        return self._latex_abstract


def prepare(record: Record, options: WriteOptions, memo: RunMemo | None = None) -> Prepared:
    """The record prepared for the writers of a run (`memo`; a run of its own if none)."""
    return Prepared(record, options, RunMemo() if memo is None else memo)


@dataclass(frozen=True, slots=True)
class Writer:
    """One output format: everything a caller needs to pick it and write it.

    A format is a module that defines one `Writer` plus one line in `bib.writers.REGISTRY`.
    `entry_text` renders one prepared record (its key already assigned); `layout` says what goes
    around and between entries; `order_key` orders entries by citation key.
    """

    name: str
    suffixes: tuple[str, ...]
    description: str
    layout: Layout
    order_key: Callable[[str], str]
    entry_text: Callable[[Prepared], str]
    accepts_key: Callable[[str], bool] = safe_key
    """Whether a citation key goes into this format as it is (`bib.keys.for_output`
    changes the others for this output only)."""
    parents_last: bool = False
    """Whether crossref parents follow every other entry (BibTeX finds a parent only after
    its children: "a bad cross reference" otherwise)."""
    header: Callable[[Definitions], str] | None = None
    """What goes before the entries, from the `@preamble`s and `@string`s of the inputs
    (BibTeX and BibLaTeX write them back; `bib.latex.source`)."""
