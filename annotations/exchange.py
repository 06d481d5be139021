"""Annotations out of and into the library: reference fields, markdown, JSON, W3C JSON-LD.

Pure functions over the store's values and its exchange dict (`Store.dump_annotations`),
so every backend exports the same way.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import unicodedata
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

import jsonschema

import schema
from annotations.store import Entry, Note, Status
from bib import strict_json
from bib.errors import BibError
from bib.latex import Latex, escape
from bib.record import Record

SCHEMA = "annotations.schema.json"

JABREF_READSTATUS = {Status.READ: "read", Status.READING: "skimmed"}
"""Our reading status -> JabRef's `readstatus` values; the others have no JabRef value."""

NOTE_FIELD = {"bibtex": "annote", "biblatex": "annotation"}

W3C_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
_NAMESPACE = uuid.UUID("9d3b8a4e-5c1f-4f0a-9a57-6b0f0c1e2d3a")


def notes_text(notes: Iterable[Note]) -> str:
    """All live notes of a paper as one markdown text, oldest first, separated by blank lines."""
    return "\n\n".join(n.body.strip() for n in notes if not n.deleted)


def live_notes(notes: Iterable[Note]) -> list[str]:
    """The bodies of a paper's live notes, oldest first, without surrounding blank lines."""
    return [body for n in notes if not n.deleted and (body := n.body.strip())]


def notes_field(
    imported: Iterable[str], notes: Iterable[str], latex: Mapping[str, str] | None = None
) -> Latex:
    """BibTeX `annote` / BibLaTeX `annotation`: each imported note field and each of our
    markdown notes as its own LaTeX paragraph, the markdown rendered (emphasis, lists, links,
    code) for annotated-bibliography styles. An imported note is written as its `.bib` wrote
    it when `latex` has that (by its decoded text, `Record.latex`), else escaped."""
    from bib.latex.markdown import PARAGRAPH, notes_to_latex

    written = latex or {}
    kept = [text for text in dict.fromkeys(t.strip() for t in imported) if text]
    ours = [note for note in dict.fromkeys(notes) if note not in kept]
    parts = [written.get(text) or escape(text) for text in kept]
    if rendered := notes_to_latex(ours):
        parts.append(rendered)
    return Latex(PARAGRAPH.join(parts))


def reference_fields(entry: Entry) -> tuple[tuple[str, str], ...]:
    """The JabRef-compatible fields of a paper's rating, status and groups (the notes go
    into `annote`/`annotation` through `notes_field`)."""
    fields: list[tuple[str, str]] = []
    if entry.rating:
        fields.append(("ranking", f"rank{entry.rating}"))
    if entry.status in JABREF_READSTATUS:
        fields.append(("readstatus", JABREF_READSTATUS[entry.status]))
    if entry.personal_tags:
        fields.append(("groups", ", ".join(entry.personal_tags)))
    return tuple(fields)


def annotated_record(entry: Entry, fmt: str) -> Record:
    """The entry's record with its annotations in `Record.fields`.

    A field the record was imported with (say a JabRef `annote`) is never dropped: our
    notes follow an imported note field as paragraphs of their own (in the LaTeX its `.bib`
    wrote), and our rating, status and groups replace imported ones only when we have a
    value. Without notes of ours, an imported note field is written as it was read.
    """
    ours = dict(reference_fields(entry))
    notes = live_notes(entry.notes)
    note_names = {"annote", "annotation"} if notes else set()
    fields: list[tuple[str, str]] = []
    imported_notes: list[str] = []
    for name, value in entry.record.fields:
        lower = name.lower()
        if lower in note_names:
            imported_notes.append(value)
        elif lower not in ours:
            fields.append((name, value))
    if notes:
        fields.append((NOTE_FIELD[fmt], notes_field(imported_notes, notes, _notes_latex(entry))))
    fields.extend(ours.items())
    return dataclasses.replace(entry.record, fields=tuple(fields))


def _notes_latex(entry: Entry) -> dict[str, str]:
    """The LaTeX of the record's imported note fields, by their decoded text, while the
    record still holds what they were read as."""
    latex = entry.record.latex
    if latex is None:
        return {}
    return {
        f.decoded.strip(): f.latex
        for f in latex.fields
        if f.name in ("annote", "annotation") and (f.name, f.decoded) in entry.record.fields
    }


def annotate_csl(item: dict[str, Any], entry: Entry) -> dict[str, Any]:
    """Notes into CSL `note`, rating, status and personal tags into `custom`."""
    item = dict(item)
    text = notes_text(entry.notes)
    if text:
        item["note"] = f"{item['note']}\n\n{text}" if item.get("note") else text
    custom = dict(item.get("custom") or {})
    if entry.rating:
        custom["rating"] = entry.rating
    custom["reading-status"] = str(entry.status)
    if entry.personal_tags:
        custom["personal-tags"] = list(entry.personal_tags)
    item["custom"] = custom
    return item


# The JSON exchange file


def validate(data: Any, path: str) -> None:
    """Check an exchange document against schema/annotations.schema.json; BibError if invalid."""
    validator = jsonschema.Draft202012Validator(schema.load(SCHEMA))
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise BibError(f"not a bib annotations file: at {where}: {first.message}{more}", path)


def read_json(text: str, path: str) -> dict[str, Any]:
    data: dict[str, Any] = strict_json.loads(text, path)
    validate(data, path)
    return data


def dumps(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


# Markdown for Obsidian and friends


def safe_filename(key: str) -> str:
    """A file name that is valid on every common filesystem and still reads like the key."""
    name = unicodedata.normalize("NFKC", key)
    name = re.sub(r"[^\w.+-]+", "-", name, flags=re.UNICODE).strip(".-")
    return (name or "paper")[:120]


def markdown_files(data: Mapping[str, Any]) -> dict[str, str]:
    """One markdown file per paper: YAML front matter, then its live notes."""
    files: dict[str, str] = {}
    taken: set[str] = set()
    for paper in data["papers"]:
        base = safe_filename(paper["key"])
        name, n = base, 1
        while name.lower() in taken:  # case-insensitive filesystems
            n += 1
            name = f"{base}-{n}"
        taken.add(name.lower())
        files[f"{name}.md"] = markdown(paper)
    return files


def _yaml(value: Any) -> str:
    """A YAML scalar or flow sequence; JSON strings are valid YAML double-quoted scalars."""
    return json.dumps(value, ensure_ascii=False)


def markdown(paper: Mapping[str, Any]) -> str:
    front = {
        "key": paper["key"],
        "title": paper["title"],
        "authors": paper["authors"],
        "year": paper["year"],
        "venue": paper["venue"],
        "tags": paper["tags"],
        "rating": paper["rating"],
        "status": paper["status"],
        "aliases": paper["aliases"],
        "url": paper["url"] or None,
        "bib-id": paper["id"],
    }
    lines = ["---", *(f"{k}: {_yaml(v)}" for k, v in front.items()), "---", ""]
    head = len(lines) - 2
    lines.append(f"# {paper['title'] or paper['key']}")
    lines.append("")
    for note in paper["notes"]:
        if note["deleted"]:
            continue
        author = f" ({note['author']})" if note.get("author") else ""
        lines.append(f"## Note {note['created'][:10]}{author}")
        lines.append(f"<!-- bib-note: {note['uuid']} -->")
        lines.append("")
        lines.append(note["body"].rstrip())
        lines.append("")
    text = "\n".join(lines).rstrip() + "\n"
    lines.insert(head, f"bib-export: sha256:{_digest(text)}")
    return "\n".join(lines).rstrip() + "\n"


_STAMP = re.compile(r"^bib-export: sha256:([0-9a-f]{64})\n", re.MULTILINE)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def edited_since_export(text: str) -> bool:
    """Whether a markdown file is not exactly as `bib` last wrote it (edited in the vault,
    or not ours at all): its recorded digest no longer matches its content."""
    match = _STAMP.search(text)
    if match is None:
        return True
    return _digest(text[: match.start()] + text[match.end() :]) != match.group(1)


class MarkdownPlan(NamedTuple):
    """Which files of a markdown export to write and which to keep (edited by the user)."""

    write: dict[str, str]
    kept: list[str]


def markdown_plan(
    files: Mapping[str, str], existing: Callable[[str], str | None], *, force: bool
) -> MarkdownPlan:
    """Split `files` (name -> text) into those to write and those the user edited since
    `bib` wrote them, which are kept unless `force`; `existing(name)` reads the file there
    now (None when there is none)."""
    write: dict[str, str] = {}
    kept: list[str] = []
    for name, text in files.items():
        current = None if force else existing(name)
        if current is not None and current != text and edited_since_export(current):
            kept.append(name)
        else:
            write[name] = text
    return MarkdownPlan(write, kept)


# W3C Web Annotation Data Model


def _target(paper: Mapping[str, Any]) -> str:
    return paper["url"] or f"urn:bib:record:{paper['id']}"


def w3c(data: Mapping[str, Any]) -> dict[str, Any]:
    """The export as a W3C AnnotationCollection: notes comment, tags tag, ratings assess."""
    items: list[dict[str, Any]] = []
    for paper in data["papers"]:
        target = _target(paper)
        for note in paper["notes"]:
            if note["deleted"]:
                continue
            items.append(
                {
                    "id": f"urn:uuid:{note['uuid']}",
                    "type": "Annotation",
                    "motivation": "commenting",
                    "created": note["created"],
                    "modified": note["updated"],
                    **(
                        {"creator": {"type": "Person", "nickname": note["author"]}}
                        if note.get("author")
                        else {}
                    ),
                    "body": {
                        "type": "TextualBody",
                        "value": note["body"],
                        "format": "text/markdown",
                        "purpose": "commenting",
                    },
                    "target": target,
                }
            )
        for tag in paper["tags"]:
            items.append(
                {
                    "id": f"urn:uuid:{uuid.uuid5(_NAMESPACE, paper['id'] + '/tag/' + tag)}",
                    "type": "Annotation",
                    "motivation": "tagging",
                    "body": {"type": "TextualBody", "value": tag, "purpose": "tagging"},
                    "target": target,
                }
            )
        if paper["rating"]:
            items.append(
                {
                    "id": f"urn:uuid:{uuid.uuid5(_NAMESPACE, paper['id'] + '/rating')}",
                    "type": "Annotation",
                    "motivation": "assessing",
                    "body": {
                        "type": "TextualBody",
                        "value": f"{paper['rating']}/5",
                        "purpose": "assessing",
                    },
                    "target": target,
                }
            )
    return {
        "@context": W3C_CONTEXT,
        "id": f"urn:uuid:{uuid.uuid4()}",
        "type": "AnnotationCollection",
        "label": "bib reading notes",
        "total": len(items),
        "first": {"type": "AnnotationPage", "startIndex": 0, "items": items},
    }
