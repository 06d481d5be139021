"""CSL-JSON (`.json`: an array of items, or one item) into Records.

Items are checked against the official CSL-JSON schema first, so that a bad file is
reported by item index and id instead of failing somewhere downstream.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

import schema
from bib import strict_json, venues
from bib.errors import BibError
from bib.extract.urls import role
from bib.identity import normalize_arxiv, normalize_doi, record_id
from bib.readers.paperlist import decode
from bib.readers.roundtrip import merge_links, split_note
from bib.record import Author, EntryType, Link, Record, Source, Tag, TagKind

ENTRY_TYPES: dict[str, EntryType] = {
    "paper-conference": EntryType.INPROCEEDINGS,
    "article-journal": EntryType.ARTICLE,
    "article-magazine": EntryType.ARTICLE,
    "article-newspaper": EntryType.ARTICLE,
    "article": EntryType.PREPRINT,
    "book": EntryType.BOOK,
    "chapter": EntryType.INCOLLECTION,
    "thesis": EntryType.THESIS,
    "report": EntryType.REPORT,
}
FIELDS = {
    "volume": "volume",
    "issue": "number",
    "page": "pages",
    "ISBN": "isbn",
    "ISSN": "issn",
    "edition": "edition",
    "publisher-place": "address",
    "language": "language",
    "genre": "type",
}


@cache
def _validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(schema.load("csl-data.json"))


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


def _authors(names: list[dict[str, Any]]) -> tuple[Author, ...]:
    authors = []
    for name in names:
        family = " ".join(
            filter(None, [name.get("non-dropping-particle", ""), name.get("family", "")])
        )
        given = " ".join(filter(None, [name.get("given", ""), name.get("dropping-particle", "")]))
        if name.get("suffix"):
            family = f"{family}, {name['suffix']}"
        if family or given:
            authors.append(Author(family=family, given=given))
        elif name.get("literal"):
            authors.append(Author(literal=str(name["literal"])))
    return tuple(authors)


def _year(item: dict[str, Any]) -> int | None:
    issued = item.get("issued") or {}
    parts = issued.get("date-parts") or []
    if parts and parts[0]:
        try:
            return int(parts[0][0])
        except (TypeError, ValueError):
            return None
    found = re.search(r"\d{4}", str(issued.get("raw", "") or issued.get("literal", "")))
    return int(found.group(0)) if found else None


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _record(item: dict[str, Any], path: str, line: int | None) -> Record:
    title = _text(item.get("title"))
    abstract = _text(item.get("abstract"))
    authors = _authors(item.get("author", []))
    year = _year(item)
    doi = normalize_doi(_text(item.get("DOI")))
    url = _text(item.get("URL"))
    arxiv_id = ""
    if "arxiv.org/" in url:
        arxiv_id = normalize_arxiv(url.rstrip("/").rsplit("/", 1)[-1])
    number = _text(item.get("number"))
    if not arxiv_id and number.lower().startswith("arxiv:"):
        arxiv_id = normalize_arxiv(number)
    entry_type = ENTRY_TYPES.get(str(item.get("type", "")), EntryType.MISC)
    container = _text(item.get("container-title"))
    keywords = [k.strip() for k in _text(item.get("keyword")).split(",") if k.strip()]
    extra = {bib_name: _text(item[csl]) for csl, bib_name in FIELDS.items() if item.get(csl)}
    note, derived, note_links = split_note(_text(item.get("note")))
    custom = item.get("custom") or {}
    if isinstance(custom, dict):
        extra |= {str(k): _text(v) for k, v in custom.items() if _text(v)}
    return Record(
        id=record_id(
            doi=doi,
            arxiv_id=arxiv_id,
            abstract=abstract,
            title=title,
            year=year,
            authors=authors,
        ),
        abstract=abstract,
        key=_text(item.get("citation-key")) or _text(item.get("id")),
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


def read(data: bytes, path: str | Path) -> Iterator[Record]:
    path = str(path)
    text = decode(data, path)
    loaded = strict_json.loads(text, path)
    items = [loaded] if isinstance(loaded, dict) else loaded
    if not isinstance(items, list):
        raise BibError("CSL-JSON must be an array of items or one item", path)
    if not items:
        raise BibError("no CSL-JSON items found", path)
    lines = _id_lines(text)
    for index, item in enumerate(items):
        line = lines.get(str(item.get("id"))) if isinstance(item, dict) else None
        error = (
            next(iter(_validator().iter_errors([item])), None) if isinstance(item, dict) else None
        )
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
