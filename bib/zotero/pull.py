"""Pull what changed in Zotero since the last sync into the library, before the push.

For papers the library knows: field edits (title, abstract, date, creators, DOI, publisher,
container title), manual tags <-> personal tags, child notes added or edited (HTML ->
markdown with markdownify; an edit of a pushed note becomes a new revision of it) and items
trashed or deleted in Zotero (marked `deleted_remote`: the local record and its notes stay,
and are reported). Items the library does not know are imported with their notes and tags,
under `citationKey` or Better BibTeX's `Citation Key:` line when present.

A field changed on both sides is a conflict: `prefer="remote"` takes Zotero's value here,
`prefer="local"` keeps ours (the push then writes it). Nothing here advances the stored
library version: the push does that at the end of a complete run, so a pull cut short is
simply repeated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from annotations.store import Entry, Store
from annotations.sync_state import DELETED_REMOTE, SYNCED, SyncRow, SyncState
from bib import identity, keys
from bib.errors import OperationError
from bib.record import Author, Record
from bib.zotero import mapping
from bib.zotero.client import ZoteroClient
from bib.zotero.merge import Prefer, strip_server_fields

ITEM, NOTE = "item", "note"
MASS_DELETION_SHARE = 0.1
"""A pull that would mark more than this share of the synced papers deleted is refused
unless forced: a truncated listing looks like a mass deletion, a user rarely does one."""
MASS_DELETION_FLOOR = 5
FIELDS = ("title", "abstractNote", "date", "DOI", "publisher", "creators", "container")
CITATION_KEY_LINE = re.compile(r"^\s*Citation Key:\s*(\S+)\s*$", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class PullConflict:
    citation_key: str
    field: str
    kept: Prefer


@dataclass
class PullReport:
    updated: list[str] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    notes_added: int = 0
    notes_revised: int = 0
    deleted_in_zotero: list[str] = field(default_factory=list)
    conflicts: list[PullConflict] = field(default_factory=list)
    library_version: int = 0
    """The library version the pull read its changes at: stored only after a complete run."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "updated": self.updated,
            "imported": self.imported,
            "notes_added": self.notes_added,
            "notes_revised": self.notes_revised,
            "deleted_in_zotero": self.deleted_in_zotero,
            "conflicts": [c.__dict__ for c in self.conflicts],
        }


def html_to_markdown(html: str) -> str:
    """A Zotero note (HTML) as markdown; our own wrapper div is dropped."""
    from markdownify import markdownify

    return str(markdownify(html, heading_style="ATX", bullets="-")).strip()


def _remote_value(data: dict[str, Any], name: str) -> Any:
    if name == "container":
        return data.get("proceedingsTitle") or data.get("publicationTitle") or ""
    if name == "creators":
        return [
            {k: v for k, v in c.items() if k in ("name", "firstName", "lastName")}
            for c in data.get("creators", [])
        ]
    return data.get(name, "")


def _local_value(record: Record, name: str) -> Any:
    if name == "title":
        return record.title
    if name == "abstractNote":
        return mapping.plain_text(record.abstract)
    if name == "date":
        return str(record.year) if record.year else ""
    if name == "DOI":
        return record.doi
    if name == "publisher":
        return record.publisher
    if name == "container":
        return record.container_title
    return [{k: v for k, v in c.items() if k != "creatorType"} for c in mapping.creators(record)]


def _authors(creators: list[dict[str, Any]]) -> tuple[Author, ...]:
    out = []
    for c in creators:
        if c.get("name"):
            out.append(Author(literal=c["name"]))
        else:
            out.append(Author(family=c.get("lastName", ""), given=c.get("firstName", "")))
    return tuple(out)


def _apply(record: Record, name: str, value: Any) -> Record:
    if name == "title":
        return replace(record, title=value, title_derived=False)
    if name == "abstractNote":
        return replace(record, abstract=value)
    if name == "date":
        year = re.search(r"\b(\d{4})\b", value or "")
        return replace(record, year=int(year.group(1)) if year else record.year)
    if name == "DOI":
        return replace(record, doi=value)
    if name == "publisher":
        return replace(record, publisher=value)
    if name == "container":
        return replace(record, container_title=value)
    return replace(record, authors=_authors(value))


def _manual_tags(data: dict[str, Any], prefix: str) -> set[str]:
    """Manual tags that are personal tags (not our status/rating tags)."""
    return {
        t["tag"]
        for t in data.get("tags", [])
        if t.get("type", 0) == 0 and not t["tag"].startswith(prefix)
    }


def citation_key_of(data: dict[str, Any]) -> str:
    if data.get("citationKey"):
        return str(data["citationKey"])
    found = CITATION_KEY_LINE.search(data.get("extra", "") or "")
    return found.group(1) if found else ""


def record_from_zotero(data: dict[str, Any]) -> Record:
    """A new record from a Zotero item the library does not know."""
    authors = _authors(data.get("creators", []))
    year_match = re.search(r"\b(\d{4})\b", data.get("date", "") or "")
    year = int(year_match.group(1)) if year_match else None
    title = data.get("title", "")
    record = Record(
        id=identity.record_id(
            doi=data.get("DOI", ""),
            abstract=data.get("abstractNote", ""),
            title=title,
            year=year,
            authors=authors,
        ),
        title=title,
        abstract=data.get("abstractNote", ""),
        authors=authors,
        year=year,
        doi=data.get("DOI", ""),
        publisher=data.get("publisher", ""),
        container_title=data.get("proceedingsTitle") or data.get("publicationTitle") or "",
    )
    return replace(record, key=citation_key_of(data) or keys.base_key(record))


class Puller:
    """One pull: what changed in Zotero since the stored library version."""

    def __init__(
        self,
        store: Store,
        client: ZoteroClient,
        state: SyncState,
        *,
        prefer: Prefer = "remote",
        force: bool = False,
        tag_prefix: str = "/",
        dry_run: bool = False,
    ) -> None:
        self.store = store
        self.client = client
        self.state = state
        self.prefer = prefer
        self.force = force
        self.tag_prefix = tag_prefix
        self.dry_run = dry_run
        self.report = PullReport()
        self.rows = state.rows()
        self._by_id: dict[str, Entry] | None = None

    def run(self) -> PullReport:
        since = self.state.library_version()
        deleted = set(self.client.deleted_since(since).get("items", []))
        versions, self.report.library_version = self.client.versions_since(since)
        by_key = {row.key: row for row in self.rows.values()}
        changed = [k for k, v in versions.items() if k not in by_key or by_key[k].version != v]
        remote = self.client.items_by_key(changed) if changed else {}
        trashed = {k for k, item in remote.items() if item["data"].get("deleted")}
        self._guard_mass_deletion(deleted | trashed, by_key)
        if self.dry_run:
            return self.report
        self._mark_deleted(deleted | trashed, by_key)
        live = {k: item for k, item in remote.items() if k not in trashed}
        items = {k: i for k, i in live.items() if i["data"]["itemType"] not in ("note",)}
        notes = {k: i for k, i in live.items() if i["data"]["itemType"] == "note"}
        for key, item in items.items():
            row = by_key.get(key)
            if row is not None and row.kind == ITEM and row.status == SYNCED:
                self._pull_item(row, item)
            elif row is None and item["data"]["itemType"] != "attachment":
                self._import(item)
        self.rows = self.state.rows()
        self._by_id = None
        by_key = {row.key: row for row in self.rows.values()}
        for key, item in notes.items():
            self._pull_note(by_key.get(key), item, by_key)
        return self.report

    # -- deletions -------------------------------------------------------------------
    def _guard_mass_deletion(self, gone: set[str], by_key: dict[str, SyncRow]) -> None:
        ours = [r for r in by_key.values() if r.kind == ITEM and r.status == SYNCED]
        hit = sum(1 for r in ours if r.key in gone)
        limit = max(MASS_DELETION_FLOOR, int(len(ours) * MASS_DELETION_SHARE))
        if hit > limit and not self.force:
            raise OperationError(
                f"Zotero reports {hit} of {len(ours)} synced papers deleted or trashed; "
                "refusing to apply that (a truncated listing?); rerun with --force if it is real"
            )

    def _mark_deleted(self, gone: Iterable[str], by_key: dict[str, SyncRow]) -> None:
        rows = [
            replace(by_key[k], status=DELETED_REMOTE)
            for k in gone
            if k in by_key and by_key[k].status == SYNCED
        ]
        if not rows:
            return
        self.state.save(rows)
        cites = self._cites()
        for row in rows:
            if row.kind == ITEM:
                self.report.deleted_in_zotero.append(cites.get(row.local_id, row.local_id))

    def _entries(self) -> dict[str, Entry]:
        """Stored papers by record id, read once per run (a pull touches many)."""
        if self._by_id is None:
            self._by_id = {e.record.id: e for e in self.store.entries()}
        return self._by_id

    def _cites(self) -> dict[str, str]:
        return {record_id: e.record.key for record_id, e in self._entries().items()}

    # -- items ---------------------------------------------------------------------
    def _pull_item(self, row: SyncRow, item: dict[str, Any]) -> None:
        pushed = self.state.pushed_of([(ITEM, row.local_id)]).get((ITEM, row.local_id), {})
        base = pushed.get("written", pushed.get("local", {}))
        entry = self._entries().get(row.local_id)
        if entry is None:
            return
        record, data = entry.record, item["data"]
        for name in FIELDS:
            theirs = _remote_value(data, name)
            if theirs == _remote_value(base, name):
                continue
            ours = _local_value(record, name)
            if ours == theirs:
                continue
            if ours != _remote_value(base, name):
                self.report.conflicts.append(PullConflict(record.key, name, self.prefer))
                if self.prefer == "local":
                    continue
            record = _apply(record, name, theirs)
        if record != entry.record:
            stored = self.store.upsert([record])
            # a field the user edited with `bib edit`/`bib set` keeps the user's value
            for clash in stored.conflicts:
                self.report.conflicts.append(PullConflict(clash.key, clash.field, "local"))
            if stored.updated:
                self.report.updated.append(record.key)
        before, now = _manual_tags(base, self.tag_prefix), _manual_tags(data, self.tag_prefix)
        add = sorted((now - before) - set(entry.personal_tags))
        remove = sorted((before - now) & set(entry.personal_tags))
        if add or remove:
            self.store.tag(record.key, add, remove)
            if record.key not in self.report.updated:
                self.report.updated.append(record.key)

    def _import(self, item: dict[str, Any]) -> None:
        data = item["data"]
        record = record_from_zotero(data)
        if not record.title:
            return
        imported = self.store.upsert([record])
        key = (imported.new or imported.updated or imported.unchanged or [record.key])[0]
        tags = sorted(_manual_tags(data, self.tag_prefix))
        if tags:
            self.store.tag(key, tags, [])
        written = strip_server_fields(data)
        self.state.save(
            [
                SyncRow(
                    ITEM, record.id, item["key"], SYNCED, item["version"], None, {"local": written}
                )
            ]
        )
        self.report.imported.append(key)

    # -- notes ---------------------------------------------------------------------
    def _pull_note(
        self, row: SyncRow | None, item: dict[str, Any], by_key: dict[str, SyncRow]
    ) -> None:
        data = item["data"]
        parent = by_key.get(data.get("parentItem") or "")
        if parent is None or parent.kind != ITEM:
            return
        cite = self._cites().get(parent.local_id)
        if cite is None:
            return
        body = html_to_markdown(data.get("note", ""))
        here = self.store.notes(cite)
        if row is None:
            # A run killed between adding the note and saving its row left the note
            # without a row: adopt it instead of adding it twice.
            unsynced = [
                n for n in here if n.body.strip() == body and (NOTE, n.uuid) not in self.rows
            ]
            if unsynced:
                note = unsynced[0]
            else:
                note = self.store.add_note(cite, body)
                self.report.notes_added += 1
        else:
            if row.kind != NOTE or row.status != SYNCED:
                return
            found = [n for n in here if n.uuid == row.local_id]
            if not found:
                return
            note = found[0]
            if note.body.strip() != body:
                note = self.store.edit_note(note.id, body)
                self.report.notes_revised += 1
        ours = mapping.note_data(mapping.Note(note.uuid, note.body), parent.key)
        pushed = {"local": ours, "written": strip_server_fields(data)}
        self.state.save(
            [
                SyncRow(
                    NOTE,
                    note.uuid,
                    item["key"],
                    SYNCED,
                    item["version"],
                    None,
                    pushed,
                    parent.key,
                )
            ]
        )


def pull(store: Store, client: ZoteroClient, state: SyncState, **options: Any) -> PullReport:
    return Puller(store, client, state, **options).run()
