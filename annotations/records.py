"""Library work on records above the `Store` protocol, the same for every backend: key
reservation for imports, the editable text of a record (`bib edit`), `FIELD=VALUE`
assignments (`bib set`), reverting to a revision, and the best link to open.

The CLI parses options and prints; the decisions live here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, NamedTuple

from annotations import codec
from annotations.store import Entry, Store
from bib.errors import BibError
from bib.record import Author, Link, LinkRole, Record, evolve

EDIT_FORMATS = ("biblatex", "yaml")

SETTABLE = {
    "title": "title",
    "abstract": "abstract",
    "venue": "venue",
    "booktitle": "container_title",
    "container_title": "container_title",
    "publisher": "publisher",
    "series": "series",
    "year": "year",
    "doi": "doi",
    "arxiv": "arxiv_id",
    "arxiv_id": "arxiv_id",
    "note": "note",
    "url": "url",
    "code": "code",
    "author": "authors",
    "authors": "authors",
    "entry_type": "entry_type",
    "type": "entry_type",
}
"""`bib set` field names (BibTeX names and our own) -> Record fields; any other name is a
BibTeX field kept in `Record.fields` (volume, pages, ...)."""

_YAML_FIELDS = (
    "entry_type",
    "title",
    "authors",
    "year",
    "venue",
    "container_title",
    "event_title",
    "publisher",
    "series",
    "doi",
    "arxiv_id",
    "links",
    "abstract",
    "note",
    "fields",
)


def assign_keys(store: Store, records: Sequence[Record]) -> list[Record]:
    """Citation keys for records about to be imported: stored records keep their pinned key,
    new ones get a key that no record or alias of the library holds."""
    from bib import keys

    pinned = store.pinned_keys()
    reserved = {f"alias:{k}": k for k in store.taken_keys() - set(pinned.values())}
    return keys.assign(list(records), {**pinned, **reserved})


# Editing


def edit_text(record: Record, fmt: str) -> str:
    """The record as the user edits it: one BibLaTeX entry, or YAML."""
    if fmt == "yaml":
        import yaml

        data = {
            name: value for name, value in codec.to_dict(record).items() if name in _YAML_FIELDS
        }
        text: str = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=88)
        return f"# {record.key}: edit and save; delete everything to abandon.\n{text}"
    from bib import writers

    return writers.render([record], "biblatex")


def parse_edit(text: str, fmt: str, stored: Record) -> Record:
    """The record the user saved, or a BibError saying what is wrong with the text.

    Only what the user changed is taken: a field whose text reads back as it was shown
    keeps the stored value, so a round trip that loses detail (tag evidence, link roles)
    never changes the record.
    """
    shown = _parse(edit_text(stored, fmt), fmt, stored)
    saved = _parse(text, fmt, stored)
    if saved.key and saved.key != stored.key:
        raise BibError(
            f"the key changed to {saved.key!r}: keep {stored.key!r} here and use "
            f"`bib rekey {stored.key} {saved.key}`"
        )
    changes = {
        spec.name: getattr(saved, spec.name)
        for spec in dataclasses.fields(Record)
        if spec.name not in ("id", "key", "sources", "latex")
        and getattr(saved, spec.name) != getattr(shown, spec.name)
    }
    return dataclasses.replace(stored, **changes)


def _parse(text: str, fmt: str, stored: Record) -> Record:
    if fmt == "yaml":
        return _parse_yaml(text, stored)
    from bib.readers import bibtex

    records = list(bibtex.read(text.encode("utf-8"), "<edit>"))
    if len(records) != 1:
        raise BibError(f"the text holds {len(records)} entries; keep exactly one")
    return records[0]


def _parse_yaml(text: str, stored: Record) -> Record:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise BibError(f"not valid YAML{line}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise BibError("the YAML must be a mapping of field: value")
    unknown = sorted(set(data) - set(_YAML_FIELDS))
    if unknown:
        raise BibError(f"unknown field(s): {', '.join(map(str, unknown))}")
    merged: dict[str, Any] = {**codec.to_dict(stored), **data}
    try:
        return codec.from_dict(merged, key=stored.key)
    except (KeyError, ValueError, TypeError, AttributeError) as exc:
        raise BibError(f"a field has the wrong shape: {exc}") from None


class Assignment(NamedTuple):
    field: str
    value: str


def parse_assignments(items: Sequence[str]) -> list[Assignment]:
    """`FIELD=VALUE` arguments of `bib set`; an empty VALUE clears the field."""
    result = []
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip().lower()
        if not sep or not name:
            raise BibError(f"expected FIELD=VALUE, got {item!r}")
        if name in ("key", "id"):
            raise BibError("the key changes with `bib rekey KEY NEW`, not `bib set`")
        result.append(Assignment(name, value))
    return result


def assigned(record: Record, assignments: Sequence[Assignment]) -> Record:
    """`record` with every assignment applied, validated the way `bib edit` validates."""
    from bib.record import EntryType

    for name, value in assignments:
        target = SETTABLE.get(name)
        if target == "year":
            if value and not value.strip().isdigit():
                raise BibError(f"year must be a number, got {value!r}")
            record = dataclasses.replace(record, year=int(value) if value else None)
        elif target == "authors":
            record = dataclasses.replace(record, authors=_authors(value))
        elif target == "entry_type":
            try:
                record = dataclasses.replace(record, entry_type=EntryType(value.lower()))
            except ValueError:
                kinds = ", ".join(str(t) for t in EntryType)
                raise BibError(f"unknown entry type {value!r} (use one of: {kinds})") from None
        elif target in ("url", "code"):
            role = LinkRole.PAPER if target == "url" else LinkRole.CODE
            links = tuple(link for link in record.links if link.role != role)
            record = dataclasses.replace(
                record, links=((Link(value, role),) if value else ()) + links
            )
        elif target == "title":
            record = dataclasses.replace(record, title=value, title_derived=False)
        elif target is not None:
            record = evolve(record, **{target: value})
        else:
            fields = tuple((k, v) for k, v in record.fields if k.lower() != name)
            record = dataclasses.replace(
                record, fields=fields + (((name, value),) if value else ())
            )
    return record


def _authors(value: str) -> tuple[Author, ...]:
    """A BibTeX author list (`Family, Given and Given Family`), read as `bib add` reads it."""
    if not value.strip():
        return ()
    from bib.readers import bibtex

    entry = f"@misc{{set, author = {{{value}}}}}\n".encode()
    return next(iter(bibtex.read(entry, "<author>"))).authors


def revert(store: Store, key: str, number: int) -> Entry:
    """Make revision `number` of a record its current version (a new revision itself)."""
    versions = store.record_history(key)
    if not 1 <= number <= len(versions):
        raise BibError(f"{key} has versions 1 to {len(versions)}; see `bib history {key}`")
    return store.edit_record(key, versions[number - 1].record, origin="revert")


# Opening


class Target(NamedTuple):
    """What `bib open` opens and why it was chosen."""

    url: str
    kind: str


def best_target(entry: Entry, *, code: bool = False) -> Target:
    """The best thing to open: a PDF attachment, then the DOI, arXiv, OpenReview, the URL;
    with `code`, the code link."""
    record = entry.record
    if code:
        links = record.urls(LinkRole.CODE)
        if not links:
            raise BibError(f"{record.key} has no code link; add one with `bib set KEY code=URL`")
        return Target(links[0], "code")
    for attachment in entry.attachments:
        return Target(attachment.path, "attachment")
    if record.doi:
        return Target(f"https://doi.org/{record.doi}", "doi")
    if record.arxiv_id:
        return Target(f"https://arxiv.org/abs/{record.arxiv_id}", "arxiv")
    links = [link.url for link in record.links]
    for url in links:
        if "openreview.net" in url:
            return Target(url, "openreview")
    if record.url:
        return Target(record.url, "url")
    raise BibError(f"{record.key} has no attachment, DOI, arXiv id or URL to open")
