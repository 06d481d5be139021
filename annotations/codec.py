"""Records as JSON, so the library keeps the whole Record and reads back an equal one.

Unknown keys are ignored on reading, so a library written by a newer `bib` still opens.
"""

from __future__ import annotations

import json
from typing import Any

from bib.record import Author, EntryType, Link, LinkRole, Record, Source, Tag, TagKind


def to_dict(record: Record) -> dict[str, Any]:
    return {
        "id": record.id,
        "key": record.key,
        "entry_type": str(record.entry_type),
        "title": record.title,
        "title_derived": record.title_derived,
        "authors": [
            {
                k: v
                for k, v in (("family", a.family), ("given", a.given), ("literal", a.literal))
                if v
            }
            for a in record.authors
        ],
        "abstract": record.abstract,
        "venue": record.venue,
        "container_title": record.container_title,
        "event_title": record.event_title,
        "publisher": record.publisher,
        "series": record.series,
        "year": record.year,
        "links": [{"url": link.url, "role": str(link.role)} for link in record.links],
        "doi": record.doi,
        "arxiv_id": record.arxiv_id,
        "method": record.method,
        "tags": [
            {
                "kind": str(t.kind),
                "value": t.value,
                "label": t.label,
                "evidence": [list(span) for span in t.evidence],
            }
            for t in record.tags
        ],
        "note": record.note,
        "fields": [list(pair) for pair in record.fields],
        "sources": [{"path": s.path, "line": s.line} for s in record.sources],
    }


def from_dict(data: dict[str, Any], *, key: str | None = None) -> Record:
    """The Record in `data`; `key` (the library's pinned key) wins over the stored one."""
    return Record(
        id=data["id"],
        key=data.get("key", "") if key is None else key,
        entry_type=EntryType(data.get("entry_type", EntryType.INPROCEEDINGS)),
        title=data.get("title", ""),
        title_derived=bool(data.get("title_derived", False)),
        authors=tuple(
            Author(a.get("family", ""), a.get("given", ""), a.get("literal", ""))
            for a in data.get("authors", ())
        ),
        abstract=data.get("abstract", ""),
        venue=data.get("venue", ""),
        container_title=data.get("container_title", ""),
        event_title=data.get("event_title", ""),
        publisher=data.get("publisher", ""),
        series=data.get("series", ""),
        year=data.get("year"),
        links=tuple(
            Link(x["url"], LinkRole(x.get("role", "paper"))) for x in data.get("links", ())
        ),
        doi=data.get("doi", ""),
        arxiv_id=data.get("arxiv_id", ""),
        method=data.get("method", ""),
        tags=tuple(
            Tag(
                TagKind(t["kind"]),
                t["value"],
                t.get("label", ""),
                tuple((int(a), int(b)) for a, b in t.get("evidence", ())),
            )
            for t in data.get("tags", ())
        ),
        note=data.get("note", ""),
        fields=tuple((str(k), str(v)) for k, v in data.get("fields", ())),
        sources=tuple(Source(s["path"], s.get("line")) for s in data.get("sources", ())),
    )


def dumps(record: Record) -> str:
    return json.dumps(to_dict(record), ensure_ascii=False, separators=(",", ":"))


def loads(text: str, *, key: str | None = None) -> Record:
    return from_dict(json.loads(text), key=key)


def json_list(text: str) -> list[str]:
    """A stored JSON list of names (a record's user-edited fields)."""
    return [str(item) for item in json.loads(text or "[]")]
