"""Records and their annotations -> Zotero item and note JSON (the editable `data` part).

Pure functions: the sync engine decides keys, versions and collections, this module only
says what a paper looks like in Zotero. Field names follow the Zotero schema
(/itemTypeFields); fields the server does not list for a type are dropped and reported,
so an older Zotero server never receives a field it would reject.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt

from bib.extract import hierarchy, vocabulary
from bib.latex import to_text
from bib.record import EntryType, Record
from bib.resolve.provenance import provenance_of

NOTE_MARKER = "data-bib-note"
"""Attribute of the wrapping div of every note we push: our note id, for reconciliation."""

DERIVED_TITLE_LINE = "bib: title derived from abstract"
STATUSES = ("unread", "to-read", "reading", "read", "skipped")

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})

# Record.fields (BibTeX names) -> Zotero fields, per item type.
_EXTRA_FIELDS: dict[str, dict[str, str]] = {
    "conferencePaper": {
        "volume": "volume",
        "pages": "pages",
        "address": "place",
        "isbn": "ISBN",
        "series": "series",
    },
    "journalArticle": {
        "volume": "volume",
        "number": "issue",
        "pages": "pages",
        "issn": "ISSN",
        "series": "series",
    },
    "preprint": {"address": "place"},
}


@dataclass(frozen=True, slots=True)
class Note:
    """A reading note as the store keeps it: markdown text under a stable id."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class Paper:
    """One record with its annotations: what a sync pushes for one paper."""

    record: Record
    notes: tuple[Note, ...] = ()
    rating: int | None = None
    status: str | None = None
    personal_tags: tuple[str, ...] = ()
    collection: str = ""


@dataclass(frozen=True, slots=True)
class Options:
    """Choices the user makes about how papers appear in Zotero."""

    tag_prefix: str = "/"
    native_citation_key: bool = True


@dataclass
class Dropped:
    """Fields the server does not accept for a type, collected for one report line each."""

    fields: dict[str, set[str]] = field(default_factory=dict)

    def add(self, item_type: str, name: str) -> None:
        self.fields.setdefault(item_type, set()).add(name)


def item_type(record: Record) -> str:
    """Zotero item type: venue papers are conference papers, arXiv-only records preprints."""
    if record.entry_type == EntryType.ARTICLE:
        return "journalArticle"
    if record.entry_type == EntryType.PREPRINT:
        return "preprint"
    if not (record.venue or record.container_title or record.event_title) and record.arxiv_id:
        return "preprint"
    if record.entry_type == EntryType.INPROCEEDINGS or record.venue:
        return "conferencePaper"
    return "preprint"


def collection_name(record: Record) -> str:
    """One collection per venue edition (`ICML 2026`), else per source list."""
    if record.venue:
        return f"{record.venue} {record.year}" if record.year else record.venue
    if record.source:
        name = record.source.path.rsplit("/", 1)[-1]
        return name.rsplit(".", 1)[0] or name
    return ""


def plain_text(text: str) -> str:
    """Record text -> plain Unicode, as the CSL-JSON writer renders it (markdown stripped,
    LaTeX commands dropped, math rendered)."""
    return to_text(text)


def note_html(note: Note) -> str:
    """Markdown -> HTML in a div that carries our note id (raw HTML in the note is escaped)."""
    body = _MARKDOWN.render(note.text)
    return f'<div {NOTE_MARKER}="{html.escape(note.id, quote=True)}">{body}</div>'


def creators(record: Record) -> list[dict[str, str]]:
    out = []
    for author in record.authors:
        if author.literal or not author.given:
            name = author.literal or author.family
            if name:
                out.append({"creatorType": "author", "name": name})
        else:
            out.append(
                {"creatorType": "author", "firstName": author.given, "lastName": author.family}
            )
    return out


def tags(paper: Paper, options: Options) -> list[dict[str, Any]]:
    """Extracted tags are automatic (type 1); personal, status and rating tags manual (0).

    Zotero's tags are flat, so a topic's ancestors go along as automatic tags too: the
    tag selector's `reinforcement-learning` then finds the papers tagged `rlvr`."""
    seen: dict[str, int] = {}
    for tag in paper.record.tags:
        seen.setdefault(tag.value, 1)
    for tag in hierarchy.ancestor_tags(paper.record, vocabulary.shipped()):
        seen.setdefault(tag.value, 1)
    manual = list(paper.personal_tags)
    if paper.status:
        manual.append(f"{options.tag_prefix}{paper.status}")
    if paper.rating:
        manual.append(f"{options.tag_prefix}rating:{paper.rating}")
    for name in manual:
        seen[name] = 0
    return [{"tag": name, "type": kind} for name, kind in sorted(seen.items()) if name.strip()]


def extra_lines(record: Record, zotero_type: str, options: Options) -> list[str]:
    lines = []
    if record.key and not options.native_citation_key:
        lines.append(f"Citation Key: {record.key}")
    if record.arxiv_id and zotero_type != "preprint":
        lines.append(f"arXiv: {record.arxiv_id}")
    if record.title_derived:
        lines.append(DERIVED_TITLE_LINE)
    if resolved := provenance_of(record.note):
        lines.append(resolved)
    return lines


def item_data(
    paper: Paper,
    *,
    allowed: Mapping[str, frozenset[str]],
    options: Options,
    collections: Iterable[str] = (),
    dropped: Dropped | None = None,
) -> dict[str, Any]:
    """The item's editable JSON without key/version; empty fields are left out."""
    record = paper.record
    zotero_type = item_type(record)
    fields: dict[str, str] = {
        "title": plain_text(record.title) if record.title else "",
        "abstractNote": plain_text(record.abstract) if record.abstract else "",
        "date": str(record.year) if record.year else "",
        "DOI": record.doi,
        "url": record.url,
        "publisher": record.publisher,
    }
    if zotero_type == "conferencePaper":
        edition = f"{record.venue} {record.year}" if record.venue and record.year else ""
        fields["proceedingsTitle"] = record.container_title
        fields["conferenceName"] = record.event_title or edition or record.venue
    elif zotero_type == "journalArticle":
        fields["publicationTitle"] = record.container_title or record.venue
    else:
        fields.pop("publisher")
        if record.arxiv_id:
            fields["repository"] = "arXiv"
            fields["archiveID"] = f"arXiv:{record.arxiv_id}"
    for bibtex_name, value in record.fields:
        target = _EXTRA_FIELDS.get(zotero_type, {}).get(bibtex_name.lower())
        if target and value:
            fields.setdefault(target, value)
    native = options.native_citation_key and "citationKey" in allowed.get(zotero_type, ())
    fields["citationKey"] = record.key if native else ""
    opts = Options(options.tag_prefix, native)
    fields["extra"] = "\n".join(extra_lines(record, zotero_type, opts))
    valid = allowed.get(zotero_type, frozenset())
    data: dict[str, Any] = {"itemType": zotero_type}
    for name, value in fields.items():
        if not value:
            continue
        if name in valid:
            data[name] = value
        elif dropped is not None:
            dropped.add(zotero_type, name)
    data["creators"] = creators(record)
    data["tags"] = tags(paper, options)
    data["collections"] = sorted(set(collections))
    return data


def note_data(note: Note, parent_key: str) -> dict[str, Any]:
    return {"itemType": "note", "note": note_html(note), "parentItem": parent_key, "tags": []}
