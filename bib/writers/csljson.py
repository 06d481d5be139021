"""CSL-JSON items from Records, each validated against the official schema before writing.

Validation is exact but cached by shape: the schema (schema/csl-data.json, draft-07)
constrains values only through their JSON types, array lengths and the `type` enum, so two
items with the same keys, the same value types, the same array lengths and the same `type`
are valid or invalid together. Each item is reduced to that shape; a shape is checked with
jsonschema once and remembered only when valid. tests/writers checks that the schema still
has no value-dependent keyword besides `type`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from jsonschema import Draft7Validator

import schema
from bib.errors import BibError
from bib.latex import clean, to_text
from bib.record import EntryType, Record, TagKind
from bib.writers.common import (
    DEFAULT_TAG_KINDS,
    DERIVED_TITLE_NOTE,
    check_new_key,
    check_unique_keys,
    checked_key,
    error,
    extra_links,
    join_sentences,
    keywords,
)

CSL_TYPES = {
    EntryType.INPROCEEDINGS: "paper-conference",
    EntryType.ARTICLE: "article-journal",
    EntryType.PREPRINT: "article",
    EntryType.BOOK: "book",
    EntryType.INCOLLECTION: "chapter",
    EntryType.THESIS: "thesis",
    EntryType.REPORT: "report",
    EntryType.MISC: "document",
}

FIELD_VARIABLES = {
    "volume": "volume",
    "pages": "page",
    "series": "collection-title",
    "edition": "edition",
    "address": "publisher-place",
    "location": "publisher-place",
    "annote": "annote",
    "annotation": "annote",
    "isbn": "ISBN",
    "issn": "ISSN",
    "chapter": "chapter-number",
    "language": "language",
    "langid": "language",
    "numpages": "number-of-pages",
    "pagetotal": "number-of-pages",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "type": "genre",
    "version": "version",
    "shorttitle": "title-short",
    "school": "publisher",
    "institution": "publisher",
    "organization": "publisher",
    "journal": "container-title",
    "journaltitle": "container-title",
    "booktitle": "container-title",
    "eventtitle": "event-title",
    "venue": "event-place",
    "issue": "issue",
    "doi": "DOI",
    "url": "URL",
}
"""BibTeX/BibLaTeX field names (Record.fields) -> CSL variables; the rest go to `custom`."""

_NAME_FIELDS = {"editor": "editor", "translator": "translator"}
_NAME_SPLIT = re.compile(r"\s+and\s+")


def item(record: Record, tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS) -> dict[str, Any]:
    """One CSL-JSON item, validated; BibError naming the record when it is invalid."""
    key = checked_key(record)
    kind = CSL_TYPES[record.entry_type]
    out: dict[str, Any] = {"id": key, "type": kind, "citation-key": key}

    def put(name: str, value: Any) -> None:
        if value and name not in out:
            out[name] = value

    put("title", to_text(record.title))
    put("author", [_name(a.family, a.given, a.literal) for a in record.authors if a.display])
    put("container-title", clean(record.container_title))
    put("event-title", clean(record.event_title or record.venue))
    put("collection-title", clean(record.series))
    put("publisher", clean(record.publisher))
    if record.year is not None:
        out["issued"] = {"date-parts": [[record.year]]}
    put("DOI", clean(record.doi))
    put("URL", clean(record.url))
    if record.arxiv_id and record.entry_type == EntryType.PREPRINT:
        put("number", f"arXiv:{clean(record.arxiv_id)}")
        put("publisher", "arXiv")
    put("abstract", to_text(record.abstract))
    put("keyword", ", ".join(keywords(record, tuple(tag_kinds))))
    links = [f"{label}: {url}" for label, url in extra_links(record)]
    derived = DERIVED_TITLE_NOTE if record.title_derived else ""
    put("note", join_sentences([derived, to_text(record.note), *links]))
    custom = _put_fields(record, out)
    if record.arxiv_id:
        custom["arxiv"] = clean(record.arxiv_id)
    if custom:
        out["custom"] = custom
    _validate(out, lambda message: error(record, message))
    return out


def _put_fields(record: Record, out: dict[str, Any]) -> dict[str, Any]:
    custom: dict[str, Any] = {}
    for raw_name, raw_value in record.fields:
        name = raw_name.strip().lower()
        value = clean(raw_value)
        if not value:
            continue
        if name == "number":
            variable = "issue" if record.entry_type == EntryType.ARTICLE else "number"
        elif name in _NAME_FIELDS:
            variable = _NAME_FIELDS[name]
            if variable not in out:
                out[variable] = [_parse_name(part) for part in _NAME_SPLIT.split(value) if part]
            continue
        else:
            variable = FIELD_VARIABLES.get(name, "")
        if variable and variable not in out:
            out[variable] = value
        elif not variable and name not in custom:
            custom[name] = value
    return custom


def _name(family: str, given: str, literal: str) -> dict[str, str]:
    if literal or not family:
        return {"literal": clean(literal or given)}
    name = {"family": clean(family)}
    if given:
        name["given"] = clean(given)
    return name


def _parse_name(text: str) -> dict[str, str]:
    """A BibTeX name (`Family, Given` or `Given Family`) from a Record.fields name list."""
    text = text.strip("{} ")
    if "," in text:
        family, _, given = text.partition(",")
        return _name(family.strip(), given.strip(), "")
    given, _, family = text.rpartition(" ")
    return _name(family, given, "")


@cache
def validator() -> Draft7Validator:
    """The compiled validator for one item of the official CSL-JSON schema."""
    data = schema.load("csl-data.json")
    item_schema = {**data["items"], "definitions": data["definitions"]}
    Draft7Validator.check_schema(item_schema)
    return Draft7Validator(item_schema)


_VALID_SHAPES: set[Any] = set()


def _shape(value: Any) -> Any:
    if isinstance(value, str):
        return ""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return 0
    if isinstance(value, list):
        return tuple(_shape(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _shape(v)) for k, v in value.items())
    return ("?", repr(type(value)))


def _validate(candidate: dict[str, Any], fail: Any) -> None:
    kind = candidate.get("type")
    shape = (kind if isinstance(kind, str) else None, _shape(candidate))
    if shape in _VALID_SHAPES:
        return
    problem = next(iter(validator().iter_errors(candidate)), None)
    if problem is not None:
        where = "/".join(str(p) for p in problem.absolute_path) or "item"
        raise fail(f"invalid CSL-JSON at {where}: {problem.message}")
    _VALID_SHAPES.add(shape)


def dumps(items: Iterable[dict[str, Any]]) -> str:
    """Items -> CSL-JSON text (UTF-8, indent 2, trailing newline), each validated first."""
    items = list(items)
    for candidate in items:
        name = candidate.get("id", "?")
        _validate(candidate, lambda message, name=name: BibError(f"record {name}: {message}"))
    return _pretty(items, "") + "\n"


_encode_string = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _pretty(value: Any, indent: str) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2)`, byte for byte, several times faster
    (the standard library falls back to pure-Python encoding whenever `indent` is set)."""
    if isinstance(value, str):
        return _encode_string(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = indent + "  "
        body = ",\n".join(
            f"{inner}{_encode_string(str(k))}: {_pretty(v, inner)}" for k, v in value.items()
        )
        return "{\n" + body + "\n" + indent + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + _pretty(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value)


def order_key(key: str) -> str:
    """The order of items by citation key: as it is."""
    return key


def stream(
    records: Iterable[Record], *, tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS
) -> Iterator[str]:
    """`render` piece by piece for records already in `order_key` order, holding none of
    them: the text of all pieces is what `render` returns for the same records."""
    kinds = tuple(tag_kinds)
    seen: set[str] = set()
    opening = "[\n  "
    for record in records:
        check_new_key(record, seen)
        yield opening + _pretty(item(record, kinds), "  ")  # item() has validated it
        opening = ",\n  "
    yield "[]\n" if opening.startswith("[") else "\n]\n"


def render(records: Iterable[Record], *, tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS) -> str:
    records = sorted(records, key=lambda r: order_key(r.key))
    check_unique_keys(records)
    return "".join(stream(records, tag_kinds=tag_kinds))
