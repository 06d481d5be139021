"""What every writer derives from a Record the same way: keywords, notes, links, keys."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from bib.errors import BibError
from bib.latex import clean
from bib.record import LinkRole, Record, TagKind

DEFAULT_TAG_KINDS: tuple[TagKind, ...] = (
    TagKind.TOPIC,
    TagKind.METHOD,
    TagKind.DATASET,
    TagKind.MODEL,
)
"""Tag kinds written as keywords unless the caller picks others."""

DERIVED_TITLE_NOTE = "Title derived from the abstract by bib; not the published title."
"""The marker every output carries for a derived title (readers strip it to round-trip)."""

LINK_LABELS = {LinkRole.CODE: "Code", LinkRole.PROJECT: "Project page", LinkRole.PAPER: "Paper"}
"""How links other than the one in the `url` field are introduced in notes."""

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


def checked_key(record: Record) -> str:
    """The citation key, refused when BibTeX, biber or pandoc could misread it."""
    if not record.key:
        raise error(record, "no citation key (keys are assigned by bib.keys before writing)")
    if not safe_key(record.key):
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
    tags = record.tags
    last_tags, last_kinds, last = _last_keywords
    # `bib convert` writes each record into every output in turn: the same tags tuple (held
    # here, so that it stays the object it was) with the same kinds gives the same text.
    if tags is last_tags and kinds == last_kinds:
        return last
    found: dict[str, str] = {}
    for tag in tags:
        if tag.kind in kinds:
            value, folded = _KEYWORDS[tag.value]
            if value and folded not in found:
                found[folded] = value
    text = ", ".join(found.values())
    _last_keywords[:] = tags, kinds, text
    return text


_last_keywords: list[Any] = [None, None, ""]
"""The tags, kinds and keyword text of the last call of `keyword_text`."""


class _Keywords(dict[str, tuple[str, str]]):
    """Tag value -> the keyword and its case-blind form, remembered (topic values recur on
    every record); emptied when full, since method names are new on every record. A dict
    lookup, not an lru_cache call: it runs for every tag."""

    def __missing__(self, value: str) -> tuple[str, str]:
        if len(self) >= 4096:
            self.clear()
        keyword = clean(value.replace(",", " "))
        self[value] = pair = (keyword, keyword.casefold())
        return pair


_KEYWORDS = _Keywords()


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


@dataclass(frozen=True, slots=True)
class Writer:
    """One output format: everything a caller needs to pick it and write it.

    A format is a module that defines one `Writer` plus one line in `bib.writers.REGISTRY`.
    `entry_text` renders one record (its key already assigned); `layout` says what goes
    around and between entries; `order_key` orders entries by citation key.
    """

    name: str
    suffixes: tuple[str, ...]
    description: str
    layout: Layout
    order_key: Callable[[str], str]
    entry_text: Callable[[Record, WriteOptions], str]
    parents_last: bool = False
    """Whether crossref parents follow every other entry (BibTeX finds a parent only after
    its children: "a bad cross reference" otherwise)."""
