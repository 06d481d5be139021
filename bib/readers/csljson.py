"""CSL-JSON (`.json`: an array of items, or one item) into Records.

Items are checked against the official CSL-JSON schema first, so that a bad file is
reported by item index and id instead of failing somewhere downstream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import schema
from bib import dates, strict_json, types, variables, venues
from bib.errors import BibError
from bib.extract.urls import role
from bib.identity import normalize_arxiv, record_id, strip_doi
from bib.readers import names
from bib.readers.paperlist import decode
from bib.readers.roundtrip import merge_links, split_note
from bib.record import Author, Link, Record, Source, Tag, TagKind

if TYPE_CHECKING:
    import jsonschema


@cache
def _validator() -> jsonschema.Draft7Validator:
    """The schema's validator, and jsonschema itself, loaded by the first CSL-JSON item read:
    a `.bib` read (which loads this module with `bib.readers`) needs neither."""
    import jsonschema

    return jsonschema.Draft7Validator(schema.load("csl-data.json"))


def _schema_error(
    item: dict[str, Any], valid_shapes: set[Hashable]
) -> jsonschema.ValidationError | None:
    """The item's first error against the schema, or None; `valid_shapes` holds the shapes
    (`item_shape`) of the items of this file found valid so far. A file bib wrote has a
    handful of shapes, and validating each of its items took two thirds of reading it back
    (a conversion onto an existing CSL-JSON output reads it for its keys)."""
    from bib.writers.csljson import item_shape  # the writers, loaded by CSL-JSON input only

    shape = item_shape(item)
    if shape in valid_shapes:
        return None
    error = next(iter(_validator().iter_errors([item])), None)
    if error is None:
        valid_shapes.add(shape)
    return error


_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')


def _id_lines(text: str) -> dict[str, int]:
    """Best effort, in one pass: the line where each item id is written."""
    lines: dict[str, int] = {}
    line, last = 1, 0
    for match in _ID.finditer(text):
        line += text.count("\n", last, match.start())
        last = match.start()
        try:
            lines.setdefault(str(json.loads(match.group(1))), line)
        except json.JSONDecodeError:
            continue
    return lines


def _authors(names: Any) -> tuple[Author, ...]:
    """CSL names as Authors: particles kept (non-dropping in the family, dropping after the
    given name, as BibTeX's von part reads them back), the suffix as its own part."""
    authors = []
    for name in names if isinstance(names, list) else []:
        if not isinstance(name, dict):
            continue
        family = " ".join(
            filter(None, [_text(name.get("non-dropping-particle")), _text(name.get("family"))])
        )
        given = " ".join(
            filter(None, [_text(name.get("given")), _text(name.get("dropping-particle"))])
        )
        if family or given:
            authors.append(Author(family=family, given=given, suffix=_text(name.get("suffix"))))
        elif _text(name.get("literal")):
            authors.append(Author(literal=_text(name["literal"])))
    return tuple(authors)


def _further_fields(item: dict[str, Any]) -> dict[str, str]:
    """The variables that have no Record attribute, under their BibLaTeX names (the table in
    bib/data/csl_biblatex.json); a variable the table lacks keeps its CSL name, so that no
    variable is dropped."""
    table = dates.mapping()
    # a type whose biblatex `number` is its issue (an article's): CSL's number is its eid
    article = types.row(types.from_csl(str(item.get("type", ""))).entry_type).number == "issue"
    out: dict[str, str] = {}
    for variable, value in sorted(item.items(), key=_numbers_first):
        if variable in _ATTRIBUTES or value in (None, "", [], {}):
            continue
        kind = variables.kinds().get(variable, "text")
        if kind == "name":
            if authors := _authors(value):
                out[table["names"].get(variable, variable)] = names.format_names(authors)
        elif kind == "date":
            text = dates.from_csl(value)
            if text and (variable != "issued" or not _TEXT_YEAR.fullmatch(text)):
                out[table["dates"].get(variable, variable)] = text
        elif isinstance(value, str | int | float):
            name = table["fields"].get(variable, variable.lower())
            if article:
                name = table["article_fields"].get(variable, name)
            elif variable == "collection-number" and not item.get("collection-title"):
                name = variable  # biblatex's number is a series number only beside a series
            if variable == "genre":
                value = types.kind_of_genre(_text(value))
            if name == "number" and "number" in out:  # a report's number and a series'
                name = variable.lower()
            out.setdefault(name, _text(value))
    return out


def _numbers_first(pair: tuple[str, Any]) -> int:
    """`number`, then `collection-number`, then `issue`: the first takes BibLaTeX's `number`,
    the others their own CSL names when it is taken."""
    return _NUMBER_ORDER.get(pair[0], 0)


_NUMBER_ORDER = {"number": -3, "collection-number": -2, "issue": -1}
_TEXT_YEAR = re.compile(r"-?\d{1,4}")
_ATTRIBUTES = frozenset(
    "id type citation-key title abstract author DOI URL container-title keyword note custom "  # noqa: SIM905
    "event-title publisher collection-title".split()
)
"""Variables read into Record attributes (the rest go to Record.fields)."""


LIBRARY_ANNOTATIONS = frozenset({"rating", "reading-status", "personal-tags"})
"""What `bib export` adds to `custom` from the reading library (annotations.exchange): a
reader's annotations of the record, not fields of it, so a record read back is the one
exported. `custom.arxiv` is the writer's place of Record.arxiv_id."""


def _year(item: dict[str, Any]) -> int | None:
    text = dates.from_csl(item.get("issued"))
    year = dates.year_of(text)
    if year is not None:
        return year
    found = re.search(r"\d{4}", text)
    return int(found.group(0)) if found else None


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _record(item: dict[str, Any], path: str, line: int | None) -> Record:
    key = _text(item.get("citation-key")) or _text(item.get("id"))
    title = _text(item.get("title"))
    abstract = _text(item.get("abstract"))
    authors = _authors(item.get("author", []))
    year = _year(item)
    doi = strip_doi(_text(item.get("DOI")))
    url = _text(item.get("URL"))
    arxiv_id = ""
    if "arxiv.org/" in url:
        arxiv_id = normalize_arxiv(url.rstrip("/").rsplit("/", 1)[-1])
    number = _text(item.get("number"))
    if not arxiv_id and number.lower().startswith("arxiv:"):
        arxiv_id = normalize_arxiv(number)
    entry_type, subtype = types.from_csl(str(item.get("type", "")))
    container = _text(item.get("container-title"))
    keywords = [k.strip() for k in _text(item.get("keyword")).split(",") if k.strip()]
    extra = _further_fields(item)
    if "event-title" not in item:
        extra.pop("event", None)  # the event's name (CSL 1.0.1): Record.event_title
    if subtype:
        extra[types.SUBTYPE_FIELD] = subtype
    note, derived, note_links = split_note(_text(item.get("note")))
    custom = item.get("custom") or {}
    if isinstance(custom, dict):
        arxiv_id = arxiv_id or normalize_arxiv(_text(custom.get("arxiv")))
        extra |= {
            str(k): _text(v)
            for k, v in custom.items()
            if _text(v) and k not in LIBRARY_ANNOTATIONS and k != "arxiv"
        }
    return Record(
        id=record_id(
            doi=doi,
            arxiv_id=arxiv_id,
            abstract=abstract,
            title=title,
            year=year,
            authors=authors,
            key=key,
        ),
        abstract=abstract,
        key=key,
        entry_type=entry_type,
        title=title,
        authors=authors,
        venue=(venues.find(container) or "") if container else "",
        container_title=container,
        event_title=_text(item.get("event-title") or item.get("event")),
        publisher=_text(item.get("publisher")),
        series=_text(item.get("collection-title")),
        year=year,
        links=merge_links((Link(url, role(url)),) if url else (), note_links),
        doi=doi,
        arxiv_id=arxiv_id,
        tags=tuple(Tag(TagKind.TOPIC, k, k) for k in keywords),
        note=note,
        title_derived=derived and bool(title),
        fields=tuple(sorted(extra.items())),
        sources=(Source(path, line),),
    )


def read(
    data: bytes, path: str | Path, *, report: Callable[[str], None] | None = None
) -> Iterator[Record]:
    """Records of a CSL-JSON file; an item with an empty `type` (Zotero writes one for an
    item type CSL lacks) is read as a `document`, with a warning to `report`."""
    yield from records(parse(data, path), report=report)


class Items(NamedTuple):
    """A CSL-JSON file parsed whole (`parse`): its items, not yet checked one by one, and
    the line of each item id (`records` makes the Records of any run of them)."""

    path: str
    items: list[Any]
    lines: dict[str, int]


def parse(data: bytes, path: str | Path) -> Items:
    """The file's items: the JSON read (strictly) and its shape checked, the rest left to
    `records`, which worker processes can run over parts of them (`bib.convert`)."""
    path = str(path)
    text = decode(data, path)
    loaded = strict_json.loads(text, path)
    items = [loaded] if isinstance(loaded, dict) else loaded
    if not isinstance(items, list):
        raise BibError("CSL-JSON must be an array of items or one item", path)
    if not items:
        raise BibError("no CSL-JSON items found", path)
    return Items(path, items, _id_lines(text))


def records(
    parsed: Items,
    start: int = 0,
    stop: int | None = None,
    report: Callable[[str], None] | None = None,
) -> Iterator[Record]:
    """The Records of `parsed`'s items from `start` to `stop`, each checked against the
    schema (the first invalid one is the error, with its index in the file)."""
    path, lines = parsed.path, parsed.lines
    valid_shapes: set[Hashable] = set()
    for index, item in enumerate(parsed.items[start:stop], start):
        line = lines.get(str(item.get("id"))) if isinstance(item, dict) else None
        if isinstance(item, dict) and item.get("type") == "":
            item = {**item, "type": "document"}
            if report is not None:
                where = f"{path}:{line}" if line else path
                label = f"item {item.get('id')!r}"
                report(f"warning: {where}: {label} has an empty type; read as 'document'")
        error = _schema_error(item, valid_shapes) if isinstance(item, dict) else None
        if not isinstance(item, dict) or error is not None:
            where = "/".join(str(p) for p in list(error.absolute_path)[1:]) if error else ""
            reason = error.message if error else "not a JSON object"
            label = f"item {index}" + (
                f" ({item.get('id')})" if isinstance(item, dict) and "id" in item else ""
            )
            raise BibError(
                f"invalid CSL-JSON {label}: {where + ': ' if where else ''}{reason}",
                path,
                line,
            )
        yield _record(item, path, line)
