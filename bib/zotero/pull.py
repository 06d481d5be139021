"""Pull what changed in Zotero since the last sync into the library, before the push.

For papers the library knows: field edits (title, abstract, date, creators, DOI, URL,
publisher, container title, arXiv id), collection moves (reported), manual tags <-> personal
tags, child notes added or edited (HTML -> markdown with markdownify; an edit of a pushed
note becomes a new revision of it) and items trashed or deleted in Zotero (marked
`deleted_remote`: the local record and its notes stay, and are reported). Items the library
does not know are imported with their notes and tags, under `citationKey` or Better
BibTeX's `Citation Key:` line when present.

A field changed on both sides is a conflict: `prefer="remote"` takes Zotero's value here,
`prefer="local"` keeps ours (the push then writes it), no `prefer` leaves it open (stored in
`zotero_conflict`, looked at again by every run until settled or agreed). A field emptied in
Zotero empties ours unless we changed it too. Nothing here advances the stored
library version: the push does that at the end of a complete run, so a pull cut short is
simply repeated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from annotations.store import Entry, Note, Store
from annotations.sync_state import (
    DELETED_REMOTE,
    SYNCED,
    ConflictId,
    OpenConflict,
    SyncRow,
    SyncState,
)
from bib import identity, keys
from bib.errors import OperationError
from bib.record import Author, Link, Record
from bib.zotero import mapping
from bib.zotero.client import RemoteChanges, ZoteroClient
from bib.zotero.merge import Kept, Prefer, strip_server_fields

Progress = Callable[[int, int], None]
ITEM, NOTE = "item", "note"
MASS_DELETION_SHARE = 0.1
"""A pull that would mark more than this share of the synced papers deleted is refused
unless forced: a truncated listing looks like a mass deletion, a user rarely does one."""
MASS_DELETION_FLOOR = 5
FIELDS = (
    "title",
    "abstractNote",
    "date",
    "DOI",
    "url",
    "publisher",
    "creators",
    "container",
    "arXiv",
)
"""What the pull reads back, by Zotero field (`container`: proceedings or publication title;
`arXiv`: the `arXiv:` line of `extra`, or `archiveID` of a preprint)."""
CLEARABLE = {
    "abstractNote": "abstract",
    "date": "year",
    "DOI": "doi",
    "url": "links",
    "publisher": "publisher",
    "creators": "authors",
    "container": "container_title",
    "arXiv": "arxiv_id",
}
"""Fields emptied in Zotero that empty the record's (a title is never emptied)."""
ARXIV_LINE = re.compile(r"^\s*arXiv:\s*(\S+)\s*$", re.MULTILINE | re.IGNORECASE)
CITATION_KEY_LINE = re.compile(r"^\s*Citation Key:\s*(\S+)\s*$", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class PullConflict:
    citation_key: str
    field: str
    kept: Kept
    what: str = ITEM
    """`item`, or `note N` for a note edited on both sides."""


@dataclass(frozen=True)
class CollectionMove:
    """An item put into or taken out of collections in Zotero (by collection name)."""

    citation_key: str
    added: tuple[str, ...]
    removed: tuple[str, ...]


@dataclass
class PullReport:
    updated: list[str] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    notes_added: int = 0
    notes_revised: int = 0
    deleted_in_zotero: list[str] = field(default_factory=list)
    conflicts: list[PullConflict] = field(default_factory=list)
    cleared: list[tuple[str, str]] = field(default_factory=list)
    """(citation key, field) emptied here because it was emptied in Zotero."""
    moved: list[CollectionMove] = field(default_factory=list)
    library_version: int = 0
    """The library version the pull read its changes at: stored only after a complete run."""
    remote: RemoteChanges | None = None
    """What the listings said, handed to the push so that it does not read them again."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "updated": self.updated,
            "imported": self.imported,
            "notes_added": self.notes_added,
            "notes_revised": self.notes_revised,
            "deleted_in_zotero": self.deleted_in_zotero,
            "conflicts": [c.__dict__ for c in self.conflicts],
            "cleared": [{"citation_key": k, "field": f} for k, f in self.cleared],
            "moved": [
                {"citation_key": m.citation_key, "added": m.added, "removed": m.removed}
                for m in self.moved
            ],
        }


def html_to_markdown(html: str) -> str:
    """A Zotero note (HTML) as markdown; our own wrapper div is dropped."""
    from markdownify import markdownify

    return str(markdownify(html, heading_style="ATX", bullets="-")).strip()


def _remote_value(data: dict[str, Any], name: str) -> Any:
    if name == "arXiv":
        archive = str(data.get("archiveID") or "")
        if archive.lower().startswith("arxiv:"):
            return archive[len("arXiv:") :]
        found = ARXIV_LINE.search(data.get("extra", "") or "")
        return found.group(1) if found else ""
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
    if name == "url":
        return record.url
    if name == "publisher":
        return record.publisher
    if name == "container":
        return record.container_title
    if name == "arXiv":
        return record.arxiv_id
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
    if name == "url":
        others = tuple(link for link in record.links if link.url != record.url)
        return replace(record, links=(Link(value), *others) if value else others)
    if name == "arXiv":
        return replace(record, arxiv_id=value)
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
        prefer: Prefer | None = None,
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
        self.open = state.conflicts()
        self._opened: list[OpenConflict] = []
        self._settled: list[ConflictId] = []
        self._by_id: dict[str, Entry] | None = None
        self._collection_names: dict[str, str] | None = None

    def run(self, progress: Progress | None = None) -> PullReport:
        since = self.state.library_version()
        changes = self.client.changes_since(since)
        self.report.remote = changes
        self.report.library_version = changes.library_version
        deleted = set(changes.deleted.get("items", []))
        by_key = {row.key: row for row in self.rows.values()}
        changed = [
            k for k, v in changes.versions.items() if k not in by_key or by_key[k].version != v
        ]
        # an open conflict is looked at again, to list it and to settle it if asked
        reopened = {
            self.rows[(c.kind, c.local_id)].key
            for c in self.open.values()
            if (c.kind, c.local_id) in self.rows
        }
        changed += sorted(reopened - set(changed) - deleted)
        say = progress or (lambda done, total: None)
        remote = self.client.items_by_key(changed, progress=say) if changed else {}
        trashed = {k for k, item in remote.items() if item["data"].get("deleted")}
        self._guard_mass_deletion(deleted | trashed, by_key)
        if self.dry_run:
            return self.report
        self._mark_deleted(deleted | trashed, by_key)
        live = {k: item for k, item in remote.items() if k not in trashed}
        items = {k: i for k, i in live.items() if i["data"]["itemType"] not in ("note",)}
        notes = {k: i for k, i in live.items() if i["data"]["itemType"] == "note"}
        total, done = len(items) + len(notes), 0
        for key, item in items.items():
            row = by_key.get(key)
            if row is not None and row.kind == ITEM and row.status == SYNCED:
                self._pull_item(row, item)
            elif row is None and item["data"]["itemType"] != "attachment":
                self._import(item)
            done += 1
            say(done, total)
        self.rows = self.state.rows()
        self._by_id = None
        by_key = {row.key: row for row in self.rows.values()}
        for key, item in notes.items():
            self._pull_note(by_key.get(key), item, by_key)
            done += 1
            say(done, total)
        if self._opened:
            self.state.keep_conflicts(self._opened)
        if self._settled:
            self.state.settle_conflicts(self._settled)
        return self.report

    def _conflict(self, cite: str, what: str, opened: OpenConflict) -> bool:
        """Note a conflict met; True when the remote value is to be taken here."""
        self.report.conflicts.append(PullConflict(cite, opened.field, self.prefer or "open", what))
        if self.prefer == "remote":
            if opened.id in self.open:
                self._settled.append(opened.id)
            return True
        # left open, or settled by the push (which writes ours with --prefer local)
        self._opened.append(opened)
        return False

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
        cleared: list[str] = []
        for name in FIELDS:
            theirs, was = _remote_value(data, name), _remote_value(base, name)
            ours = _local_value(record, name)
            opened = self.open.get((ITEM, row.local_id, name))
            if ours == theirs:
                if opened is not None:
                    self._settled.append(opened.id)  # the two sides agree again
                continue
            if opened is None and theirs == was:
                continue
            if opened is None and ours == was:
                take = True  # changed in Zotero only
            else:
                conflict = OpenConflict(ITEM, row.local_id, name, ours, theirs)
                take = self._conflict(record.key, ITEM, conflict)
            if take and name in CLEARABLE and theirs in ("", []):
                cleared.append(name)
            elif take:
                record = _apply(record, name, theirs)
        if record != entry.record:
            stored = self.store.upsert([record])
            # a field the user edited with `bib edit`/`bib set` keeps the user's value
            for clash in stored.conflicts:
                self.report.conflicts.append(PullConflict(clash.key, clash.field, "local"))
            if stored.updated:
                self.report.updated.append(record.key)
        if cleared:
            emptied = self.store.sync_clear_fields(record.key, [CLEARABLE[n] for n in cleared])
            self.report.cleared += [(record.key, name) for name in emptied]
            if emptied and record.key not in self.report.updated:
                self.report.updated.append(record.key)
        before, now = _manual_tags(base, self.tag_prefix), _manual_tags(data, self.tag_prefix)
        add = sorted((now - before) - set(entry.personal_tags))
        remove = sorted((before - now) & set(entry.personal_tags))
        if add or remove:
            self.store.tag(record.key, add, remove)
            if record.key not in self.report.updated:
                self.report.updated.append(record.key)
        self._moves(record.key, set(base.get("collections", [])), set(data.get("collections", [])))

    def _moves(self, cite: str, before: set[str], now: set[str]) -> None:
        """Report collection changes made in Zotero (the push never undoes them)."""
        if before == now:
            return
        if self._collection_names is None:
            self._collection_names = {
                c.get("data", c)["key"]: c.get("data", c)["name"] for c in self.client.collections()
            }
        names = self._collection_names
        self.report.moved.append(
            CollectionMove(
                cite,
                tuple(sorted(names.get(k, k) for k in now - before)),
                tuple(sorted(names.get(k, k) for k in before - now)),
            )
        )

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
        # The base of the next merge: what Zotero holds, except what bib does not map back
        # (automatic tags, status tags, collections), so that the push does not take their
        # absence here for a removal.
        base = {
            **written,
            "tags": [t for t in data.get("tags", []) if t["tag"] in set(tags)],
            "collections": [],
        }
        pushed = {"local": base, "written": written}
        self.state.save(
            [SyncRow(ITEM, record.id, item["key"], SYNCED, item["version"], None, pushed)]
        )
        self.report.imported.append(key)
        self._moves(key, set(), set(data.get("collections", [])))

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
            pushed = self.state.pushed_of([(NOTE, note.uuid)]).get((NOTE, note.uuid), {})
            if not self._pull_note_text(note, body, parent.key, pushed, cite):
                return
            note = self.store.note(note.id)
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

    def _pull_note_text(
        self, note: Note, body: str, parent: str, pushed: dict[str, Any], cite: str
    ) -> bool:
        """Bring a note's Zotero text; False when the note row must stay as it is.

        Edited only in Zotero: Zotero's text becomes a new revision. Edited on both sides:
        both texts are kept as revisions, the current one is Zotero's (`--prefer remote`)
        or ours (`--prefer local`, which the push then writes; or no `--prefer`: the
        conflict stays open, each side keeps its text).
        """
        opened = self.open.get((NOTE, note.uuid, "note"))
        if note.body.strip() == body:
            if opened is not None:
                self._settled.append(opened.id)
            return True
        base = pushed.get("local", {}).get("note")
        if opened is None and (base is None or _note_html(note.body, note.uuid, parent) == base):
            self.store.edit_note(note.id, body)
            self.report.notes_revised += 1
            return True
        conflict = OpenConflict(NOTE, note.uuid, "note", note.body, body)
        if self._conflict(cite, f"note {note.id}", conflict):
            self.store.edit_note(note.id, body)
            self.report.notes_revised += 1
            return True
        if opened is None:  # first met: Zotero's text becomes a revision, ours stays current
            ours = note.body
            self.store.edit_note(note.id, body)
            self.store.edit_note(note.id, ours)
            self.report.notes_revised += 1
        return False


def _note_html(body: str, uuid: str, parent: str) -> str:
    return str(mapping.note_data(mapping.Note(uuid, body), parent)["note"])


def pull(store: Store, client: ZoteroClient, state: SyncState, **options: Any) -> PullReport:
    return Puller(store, client, state, **options).run()
