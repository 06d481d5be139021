"""Sync papers with their notes into a Zotero library: plan, push, reconcile.

plan      map every paper and note to Zotero JSON, hash it, compare with the stored state:
          unchanged objects cost nothing, so a second sync with no change writes nothing.
push      new objects get client-generated keys, saved as `pending` before the request
          that creates them (with a Zotero-Write-Token); parents go before their notes in
          batches of at most 50. Changed objects are merged three-way against what Zotero
          holds and written with their object version.
reconcile pending keys from a run whose response was lost (or that was killed) are read
          back with `itemKey=`: those that exist are marked synced, the rest are created.
Objects deleted in Zotero are not recreated unless asked to be.
"""

from __future__ import annotations

import hashlib
import json
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from annotations.sync_state import (
    DELETED_REMOTE,
    PENDING,
    SYNCED,
    ConflictId,
    OpenConflict,
    SyncRow,
    SyncState,
)
from bib.errors import OperationError
from bib.zotero import mapping
from bib.zotero.client import (
    MAX_OBJECTS,
    RemoteChanges,
    ZoteroClient,
    ZoteroHTTPError,
    encode,
    new_write_token,
)
from bib.zotero.merge import FieldConflict, Kept, Prefer, differs, merge, strip_server_fields

KEY_ALPHABET = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
MAPPING_VERSION = 1
"""Part of every object's source fingerprint: bump it when `mapping` changes its output,
so that the next sync maps (and, where the output changed, rewrites) every object."""
ITEM, NOTE, COLLECTION = "item", "note", "collection"
ZOTERO_FIELDS = {"container": ("proceedingsTitle", "publicationTitle"), "arXiv": ("extra",)}
"""The Zotero fields behind a pull field name (open conflicts are stored under the latter)."""


@dataclass(frozen=True)
class SyncOptions:
    prefer: Prefer | None = None
    """None: a field changed on both sides stays an open conflict, each side keeping its value."""
    collection: str | None = None
    recreate_deleted: bool = False
    dry_run: bool = False
    mapping: mapping.Options = field(default_factory=mapping.Options)


@dataclass(frozen=True)
class Conflict:
    citation_key: str
    what: str
    field: str
    kept: Kept


@dataclass(frozen=True)
class Failure:
    citation_key: str
    what: str
    message: str


@dataclass
class Report:
    created: dict[str, int] = field(default_factory=lambda: {ITEM: 0, NOTE: 0, COLLECTION: 0})
    updated: dict[str, int] = field(default_factory=lambda: {ITEM: 0, NOTE: 0})
    unchanged: dict[str, int] = field(default_factory=lambda: {ITEM: 0, NOTE: 0})
    deleted: dict[str, int] = field(default_factory=lambda: {NOTE: 0})
    deleted_in_zotero: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    dropped_fields: dict[str, list[str]] = field(default_factory=dict)
    requests: int = 0
    writes: int = 0
    reads: int = 0
    dry_run: bool = False

    @property
    def ok(self) -> bool:
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "deleted_in_zotero": self.deleted_in_zotero,
            "conflicts": [c.__dict__ for c in self.conflicts],
            "failed": [f.__dict__ for f in self.failures],
            "dropped_fields": self.dropped_fields,
            "requests": self.requests,
            "write_requests": self.writes,
            "read_requests": self.reads,
        }


@dataclass
class _Object:
    """One object the local side wants in Zotero."""

    kind: str
    local_id: str
    key: str
    data: dict[str, Any] | None
    cite: str
    row: SyncRow | None
    generation: int = 0
    parent_key: str | None = None
    source: Any = None
    """The Paper or Note to map later, when `data` is None (new papers, mapped while the
    previous batch is on the wire)."""
    _digest: str | None = None
    source_hash: str | None = None

    @property
    def digest(self) -> str:
        if self._digest is None:
            assert self.data is not None
            self._digest = digest(self.data)
        return self._digest

    @property
    def label(self) -> str:
        return self.cite if self.kind == ITEM else f"{self.cite} (note {self.local_id})"


def digest(data: dict[str, Any]) -> str:
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def object_key(library: str, kind: str, local_id: str, generation: int = 0) -> str:
    """A Zotero key derived from the object's identity: the same object, the same key.

    Derived, not random, so that even a run that lost its state before saving the pending
    row cannot create a second copy: the server refuses a keyed create of an existing key.
    """
    raw = hashlib.sha256(f"{library}\0{kind}\0{local_id}\0{generation}".encode()).digest()
    number = int.from_bytes(raw[:8], "big")
    chars = []
    for _ in range(8):
        number, index = divmod(number, len(KEY_ALPHABET))
        chars.append(KEY_ALPHABET[index])
    return "".join(chars)


def library_id(endpoint: str, library_type: str, library: str) -> str:
    return f"{endpoint.rstrip('/')}|{library_type}|{library}"


class Syncer:
    """One sync run: the client, the state, the options and the running report."""

    def __init__(
        self,
        client: ZoteroClient,
        state: SyncState,
        options: SyncOptions,
        progress: Callable[[int, int], None] | None = None,
        remote: RemoteChanges | None = None,
    ) -> None:
        self.client = client
        self.remote = remote
        """The pull's listings of this run, when it made them (not read twice)."""
        self.state = state
        self.options = options
        self.report = Report(dry_run=options.dry_run)
        self.progress = progress or (lambda done, total: None)
        self._done = 0
        self._total = 0
        self.rows = state.rows()
        self._dropped = mapping.Dropped()
        self._allowed: dict[str, frozenset[str]] = {}
        self._collection_keys: dict[str, str] = {}
        self._writer: ThreadPoolExecutor | None = None
        self._saves: list[Future[None]] = []
        self._prefetched: dict[str, dict[str, Any]] = {}
        self._late_updates: list[_Object] = []
        self._refreshed: list[SyncRow] = []
        self._pushed: dict[tuple[str, str], dict[str, Any]] = {}
        """Objects found in Zotero under our key, holding something else than we map."""
        self.open: dict[tuple[str, str], list[OpenConflict]] = {}
        for conflict in state.conflicts().values():
            self.open.setdefault((conflict.kind, conflict.local_id), []).append(conflict)
        self._opened: list[OpenConflict] = []
        self._settling: dict[tuple[str, str], list[ConflictId]] = {}
        self._settled: list[ConflictId] = []

    # -- entry point -------------------------------------------------------------------
    def run(self, papers: Sequence[mapping.Paper]) -> Report:
        # One thread owns the state's connection while the run lasts: commits overlap the
        # network waits, and their order is the order they were asked for.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bib-sync-state")
        try:
            self._run(papers)
            self._flush()
        finally:
            self._writer.shutdown(wait=True)
            self.report.requests = self.client.counts.total
            self.report.writes = self.client.counts.writes
            self.report.reads = self.client.counts.reads
            self.report.dropped_fields = {t: sorted(f) for t, f in self._dropped.fields.items()}
        return self.report

    def _save(self, rows: Iterable[SyncRow], *, wait: bool = True) -> None:
        """Commit rows on the writer thread; `wait` when a write request depends on them."""
        assert self._writer is not None
        self._saves.append(self._writer.submit(self.state.save, list(rows)))
        if wait:
            self._flush()

    def _flush(self) -> None:
        saves, self._saves = self._saves, []
        for future in saves:
            future.result()

    def _run(self, papers: Sequence[mapping.Paper]) -> None:
        access = self.client.key_access()
        if not self.options.dry_run and not _can_write(access, self.client):
            raise OperationError("the Zotero API key has no write access to this library")
        since = self.state.library_version()
        changes = self.remote or self.client.changes_since(since)
        deleted, remote_versions = changes.deleted, changes.versions
        start_version = changes.library_version
        self._absorb_deletions(set(deleted.get("items", [])), set(deleted.get("collections", [])))
        types = sorted({mapping.item_type(p.record) for p in papers})
        self._allowed = {t: self.client.item_type_fields(t) for t in types}
        deleted_collections = set(deleted.get("collections", []))
        self._collection_keys = self._collections(papers, deleted_collections)
        creates, updates = self._plan(papers)
        creates = self._reconcile_pending(creates, updates)
        self._prefetched = self._prefetch(updates, remote_versions)
        self._total = len(creates) + len(updates)
        if self.options.dry_run:
            for obj in creates:
                self._fill(obj)
            self.report.created[ITEM] += sum(o.kind == ITEM for o in creates)
            self.report.created[NOTE] += sum(o.kind == NOTE for o in creates)
            for obj, _, _ in self._planned_updates(updates):
                self.report.updated[obj.kind] += 1
            self.report.deleted[NOTE] += len(self._removed_notes(papers))
            return
        self._push_creates(creates)
        self._push_updates(updates + self._late_updates)
        self._delete_removed_notes(papers)
        self._flush()
        if self._opened:
            self.state.keep_conflicts(self._opened)
        if self._settled:
            self.state.settle_conflicts(self._settled)
        self.state.set_library_version(start_version)

    # -- deletions in Zotero -------------------------------------------------------------
    def _absorb_deletions(self, items: set[str], collections: set[str]) -> None:
        gone = [
            replace(row, status=DELETED_REMOTE)
            for row in self.rows.values()
            if row.status == SYNCED
            and row.key in (collections if row.kind == COLLECTION else items)
        ]
        if not gone:
            return
        for row in gone:
            self.rows[(row.kind, row.local_id)] = row
        if not self.options.dry_run:
            self._save(gone)

    # -- collections ---------------------------------------------------------------------
    def _collections(self, papers: Sequence[mapping.Paper], deleted: set[str]) -> dict[str, str]:
        """Collection name -> key: stored, else found by name, else created."""
        names = {self._collection_name(p) for p in papers} - {""}
        keys: dict[str, str] = {}
        for name in names:
            row = self.rows.get((COLLECTION, name))
            if row and row.status == SYNCED and row.key not in deleted:
                keys[name] = row.key
        missing = sorted(names - set(keys))
        if not missing:
            return keys
        by_name: dict[str, str] = {}
        for coll in self.client.collections():
            data = coll.get("data", coll)
            if not data.get("parentCollection"):
                by_name.setdefault(data["name"], data["key"])
        found = [SyncRow(COLLECTION, n, by_name[n], SYNCED) for n in missing if n in by_name]
        keys.update({row.local_id: row.key for row in found})
        to_create = [n for n in missing if n not in by_name]
        if self.options.dry_run:
            self.report.created[COLLECTION] += len(to_create)
            keys.update({n: object_key(self.state.library, COLLECTION, n) for n in to_create})
            return keys
        if found:
            self._save(found)
        for batch in _chunks(to_create, MAX_OBJECTS):
            keys.update(self._create_collections(batch))
        return keys

    def _create_collections(self, names: list[str], attempts: int = 3) -> dict[str, str]:
        """Create collections under derived keys; a lost response is settled by reading back."""
        created: dict[str, str] = {}
        todo = names
        message = ""
        for _ in range(attempts):
            if not todo:
                break
            keyed = {n: object_key(self.state.library, COLLECTION, n) for n in todo}
            payload = [
                {"key": keyed[n], "version": 0, "name": n, "parentCollection": False} for n in todo
            ]
            result = self.client.post(
                "create collections", "collections", payload, write_token=new_write_token()
            )
            settle = result.status == 412
            for index, name in enumerate(todo if result.status == 200 else ()):
                if str(index) in result.report["success"]:
                    created[name] = keyed[name]
                    self.report.created[COLLECTION] += 1
                    continue
                failure = result.report["failed"].get(str(index), {})
                settle |= failure.get("code") in (412, 428)
                message = failure.get("message", "")
            if settle:
                for coll in self.client.collections():
                    data = coll.get("data", coll)
                    if data["name"] in keyed and data["key"] == keyed[data["name"]]:
                        created[data["name"]] = data["key"]
            todo = [n for n in todo if n not in created]
        for name in todo:
            self.report.failures.append(Failure(name, COLLECTION, message or "not created"))
        self._save(SyncRow(COLLECTION, n, k, SYNCED) for n, k in created.items())
        return created

    def _collection_name(self, paper: mapping.Paper) -> str:
        return self.options.collection or paper.collection or mapping.collection_name(paper.record)

    # -- plan ----------------------------------------------------------------------------
    def _plan(self, papers: Sequence[mapping.Paper]) -> tuple[list[_Object], list[_Object]]:
        """Creates and updates; papers never synced are left unmapped until pushed."""
        creates: list[_Object] = []
        updates: list[_Object] = []
        library = self.state.library
        for paper in papers:
            record = paper.record
            cite = record.key or record.id
            row = self.rows.get((ITEM, record.id))
            generation = row.generation if row else 0
            if row and row.status == DELETED_REMOTE:
                if not self.options.recreate_deleted:
                    self.report.deleted_in_zotero.append(cite)
                    continue
                generation += 1
                row = None
            key = row.key if row else object_key(library, ITEM, record.id, generation)
            fresh = row is None and not any((NOTE, n.id) in self.rows for n in paper.notes)
            item = _Object(ITEM, record.id, key, None, cite, row, generation, source=paper)
            objects = [item]
            for note in paper.notes:
                note_row = self.rows.get((NOTE, note.id))
                note_gen = note_row.generation if note_row else 0
                if (
                    note_row is not None
                    and note_row.status == DELETED_REMOTE
                    and note_row.parent_key == key
                    and not self.options.recreate_deleted
                ):
                    # deleted in Zotero under a paper that is still there: kept here only
                    self.report.deleted_in_zotero.append(f"{cite} (note {note.id})")
                    continue
                if note_row and (note_row.status == DELETED_REMOTE or note_row.parent_key != key):
                    note_gen += 1
                    note_row = None
                note_key = (
                    note_row.key if note_row else object_key(library, NOTE, note.id, note_gen)
                )
                objects.append(
                    _Object(
                        NOTE,
                        note.id,
                        note_key,
                        None,
                        cite,
                        note_row,
                        note_gen,
                        parent_key=key,
                        source=note,
                    )
                )
            if fresh:
                creates += objects
                continue
            for obj in objects:
                obj.source_hash = self._fingerprint(obj)
                row = obj.row
                forced = self._settles(obj)
                if (
                    row
                    and row.status == SYNCED
                    and row.source_hash == obj.source_hash
                    and not forced
                ):
                    self.report.unchanged[obj.kind] += 1
                    continue
                self._fill(obj)
                self._classify(obj, creates, updates)
        if self._refreshed and not self.options.dry_run:
            self._save(self._refreshed, wait=False)
        return creates, updates

    def _settles(self, obj: _Object) -> bool:
        """An object with open conflicts that `--prefer` settles this run: written again."""
        return self.options.prefer is not None and (obj.kind, obj.local_id) in self.open

    def _fingerprint(self, obj: _Object) -> str:
        """A hash of everything the object's Zotero JSON is mapped from."""
        if obj.kind == NOTE:
            parts: tuple[Any, ...] = (MAPPING_VERSION, obj.source.text, obj.parent_key)
        else:
            paper = obj.source
            fields = sorted(self._allowed.get(mapping.item_type(paper.record), ()))
            coll = self._collection_keys.get(self._collection_name(paper))
            parts = (
                MAPPING_VERSION,
                paper.record,
                paper.rating,
                paper.status,
                paper.personal_tags,
                coll,
                fields,
                self.options.mapping,
            )
        return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()

    def _fill(self, obj: _Object) -> None:
        """Map an object's source to its Zotero JSON (once)."""
        if obj.data is not None:
            return
        if obj.kind == NOTE:
            obj.data = mapping.note_data(obj.source, obj.parent_key or "")
            return
        coll = self._collection_keys.get(self._collection_name(obj.source))
        obj.data = mapping.item_data(
            obj.source,
            allowed=self._allowed,
            options=self.options.mapping,
            collections=[coll] if coll else [],
            dropped=self._dropped,
        )

    def _classify(self, obj: _Object, creates: list[_Object], updates: list[_Object]) -> None:
        row = obj.row
        if row is None or row.status == PENDING:
            creates.append(obj)
        elif row.pushed_hash == obj.digest and not self._settles(obj):
            self.report.unchanged[obj.kind] += 1
            if row.source_hash != obj.source_hash:
                self._refreshed.append(replace(row, source_hash=obj.source_hash))
        else:
            updates.append(obj)

    # -- reconcile -----------------------------------------------------------------------
    def _reconcile_pending(self, creates: list[_Object], updates: list[_Object]) -> list[_Object]:
        """Pending keys that exist in Zotero were created by an earlier, interrupted run."""
        pending = [o for o in creates if o.row is not None and o.row.status == PENDING]
        if not pending:
            return creates
        found = self.client.items_by_key(o.key for o in pending)
        rows = []
        for obj in pending:
            if obj.key in found:
                obj.row = self._adopt(obj, found[obj.key])
                rows.append(obj.row)
                if obj.row.pushed_hash == obj.digest:
                    self.report.unchanged[obj.kind] += 1
                else:
                    updates.append(obj)
        if rows and not self.options.dry_run:
            self._save(rows)
        return [o for o in creates if o.key not in found]

    def _adopt(self, obj: _Object, remote: dict[str, Any]) -> SyncRow:
        """A synced row for an object found in Zotero under our key.

        When Zotero holds what we map now, that is the base; otherwise Zotero's data is, so
        the next merge pushes our changes and keeps what was edited there.
        """
        assert obj.data is not None
        held = strip_server_fields(remote["data"])
        base = obj.data if not differs(obj.data, held) else held
        return SyncRow(
            obj.kind,
            obj.local_id,
            obj.key,
            SYNCED,
            remote["version"],
            digest(base),
            {"local": base},
            obj.parent_key,
            obj.generation,
            obj.source_hash if base is obj.data else None,
        )

    def _settle_existing(self, objs: list[_Object]) -> list[_Object]:
        """After an ambiguous create: adopt the keys that exist; return the rest."""
        if not objs:
            return []
        found = self.client.items_by_key(o.key for o in objs)
        rows = []
        for obj in objs:
            if obj.key in found:
                obj.row = self._adopt(obj, found[obj.key])
                rows.append(obj.row)
                if obj.row.pushed_hash != obj.digest:
                    self._late_updates.append(obj)
        if rows:
            self._save(rows, wait=False)
            for obj in objs:
                if obj.key in found:
                    self.report.created[obj.kind] += 1
            self._done += len(rows)
            self.progress(self._done, self._total)
        return [o for o in objs if o.key not in found]

    # -- push: creates -------------------------------------------------------------------
    def _push_creates(self, creates: list[_Object]) -> None:
        if not creates:
            return
        self._save(
            SyncRow(
                o.kind, o.local_id, o.key, PENDING, parent_key=o.parent_key, generation=o.generation
            )
            for o in creates
        )
        failed_parents: set[str] = set()
        for batch, body in self._mapped_batches(creates):
            blocked = [o for o in batch if o.parent_key in failed_parents]
            for obj in blocked:
                self._fail(obj, "its paper could not be created")
            if blocked:
                batch, body = [o for o in batch if o.parent_key not in failed_parents], None
            for obj in self._create_batch(batch, body):
                if obj.kind == ITEM:
                    failed_parents.add(obj.key)

    def _mapped_batches(self, objs: list[_Object]) -> Iterator[tuple[list[_Object], bytes | None]]:
        """Batches of at most 50, mapped, hashed and encoded on a helper thread while
        earlier batches travel: the main thread only sends and books."""
        Batch = tuple[list[_Object], bytes | None]
        ready: queue.Queue[Batch | BaseException | None] = queue.Queue(maxsize=4)
        stop = threading.Event()

        def offer(item: Batch | BaseException | None) -> bool:
            while not stop.is_set():
                try:
                    ready.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        def produce() -> None:
            try:
                for chunk in _chunks(objs, MAX_OBJECTS):
                    for obj in chunk:
                        self._fill(obj)
                        obj.digest  # noqa: B018 - computed here, off the critical path
                        obj.source_hash = obj.source_hash or self._fingerprint(obj)
                    body = encode([_new_object(o) for o in chunk])
                    if not offer((chunk, body)):
                        return
            except BaseException as exc:  # handed to the consumer, raised there
                offer(exc)
                return
            offer(None)

        thread = threading.Thread(target=produce, name="bib-sync-map", daemon=True)
        thread.start()
        try:
            while (batch := ready.get()) is not None:
                if isinstance(batch, BaseException):
                    raise batch
                yield batch
        finally:
            stop.set()
            thread.join()

    def _create_batch(
        self, batch: list[_Object], body: bytes | None = None, attempts: int = 3
    ) -> list[_Object]:
        """Create a batch; returns the objects that failed for good."""
        failed: list[_Object] = []
        todo = batch
        for _ in range(attempts):
            if not todo:
                return failed
            payload = [_new_object(o) for o in todo]
            try:
                result = self.client.post(
                    "create items",
                    "items",
                    payload,
                    write_token=new_write_token(),
                    body=body if todo is batch else None,
                )
            except ZoteroHTTPError as exc:
                for obj in todo:
                    self._fail(obj, str(exc))
                return failed + todo
            if result.status == 412:
                todo = self._settle_existing(todo)
                continue
            done, existing, retry = [], [], []
            for index, obj in enumerate(todo):
                idx = str(index)
                if idx in result.report["success"] or idx in result.report["unchanged"]:
                    version = result.report["successful"].get(idx, {}).get("version")
                    assert obj.data is not None
                    done.append((obj, obj.data, version or result.version))
                    continue
                failure = result.report["failed"].get(idx)
                if failure is None:
                    retry.append(obj)
                elif failure.get("code") in (412, 428):
                    existing.append(obj)
                else:
                    self._fail(obj, f"HTTP {failure.get('code')}: {failure.get('message')}")
                    failed.append(obj)
            self._mark_synced(done, created=True)
            retry += self._settle_existing(existing)
            self._forget([o for o in failed])
            todo = retry
        for obj in todo:
            self._fail(obj, "could not be created")
        return failed + todo

    # -- push: updates -------------------------------------------------------------------
    def _prefetch(
        self, updates: list[_Object], remote_versions: dict[str, int]
    ) -> dict[str, dict[str, Any]]:
        changed = [
            o.key
            for o in updates
            if o.row and remote_versions.get(o.key, o.row.version) != o.row.version
        ]
        return self.client.items_by_key(changed) if changed else {}

    def _planned_updates(self, updates: list[_Object]) -> list[tuple[_Object, dict[str, Any], int]]:
        """Merge every changed object; those Zotero already holds drop out."""
        assert self._writer is not None
        wanted = [(o.kind, o.local_id) for o in updates if o.row and o.row.pushed is None]
        self._pushed = self._writer.submit(self.state.pushed_of, wanted).result()
        outgoing = []
        for obj in updates:
            planned = self._merge(obj, self._prefetched.get(obj.key))
            if planned is not None:
                outgoing.append(planned)
        return outgoing

    def _push_updates(self, updates: list[_Object]) -> None:
        if not updates:
            return
        outgoing = self._planned_updates(updates)
        for _ in range(2):
            stale: list[_Object] = []
            for batch in _chunks(outgoing, MAX_OBJECTS):
                stale += self._update_batch(batch)
            if not stale:
                return
            fresh = self.client.items_by_key(o.key for o in stale)
            outgoing = []
            for obj in stale:
                planned = self._merge(obj, fresh.get(obj.key))
                if planned is not None:
                    outgoing.append(planned)
        for obj, _, _ in outgoing:
            self._fail(obj, "changed in Zotero again during the sync; run it again")

    def _merge(
        self, obj: _Object, remote: dict[str, Any] | None
    ) -> tuple[_Object, dict[str, Any], int] | None:
        """What to write for a changed object, or None when Zotero already holds it."""
        assert obj.row is not None
        pushed = obj.row.pushed or self._pushed.get((obj.kind, obj.local_id), {})
        base = pushed.get("local", {})
        if remote is None:
            written, version = pushed.get("written", base), obj.row.version or 0
        else:
            if remote["data"].get("deleted"):
                self.report.deleted_in_zotero.append(obj.label)
                return None
            written, version = strip_server_fields(remote["data"]), remote["version"]
        assert obj.data is not None
        merged, conflicts = merge(base, obj.data, written, self.options.prefer)
        self._conflicts(obj, conflicts)
        self._settle_open(obj, merged)
        if not differs(merged, written):
            self._mark_synced([(obj, merged, version)], created=False, wrote=False)
            return None
        return obj, merged, version

    def _update_batch(self, batch: list[tuple[_Object, dict[str, Any], int]]) -> list[_Object]:
        payload = [{**merged, "key": o.key, "version": v} for o, merged, v in batch]
        try:
            result = self.client.post("update items", "items", payload)
        except ZoteroHTTPError as exc:
            for obj, _, _ in batch:
                self._fail(obj, str(exc))
            return []
        if result.status == 412:
            return [o for o, _, _ in batch]
        stale, done = [], []
        for index, (obj, merged, version) in enumerate(batch):
            idx = str(index)
            if idx in result.report["success"]:
                new = result.report["successful"].get(idx, {}).get("version") or result.version
                done.append((obj, merged, new))
            elif idx in result.report["unchanged"]:
                done.append((obj, merged, version))
            else:
                failure = result.report["failed"].get(idx, {})
                code = failure.get("code")
                if code == 412:
                    stale.append(obj)
                elif code == 404 and obj.row is not None:
                    self.report.deleted_in_zotero.append(obj.label)
                    self._save([replace(obj.row, status=DELETED_REMOTE)])
                else:
                    self._fail(obj, f"HTTP {code}: {failure.get('message')}")
        self._mark_synced(done, created=False)
        return stale

    # -- notes deleted here ------------------------------------------------------------
    def _removed_notes(self, papers: Sequence[mapping.Paper]) -> list[SyncRow]:
        """Synced notes of papers still here whose note was deleted here."""
        live = {note.id for paper in papers for note in paper.notes}
        here = {paper.record.id for paper in papers}
        parents = {row.key: row.local_id for row in self.rows.values() if row.kind == ITEM}
        return [
            row
            for row in self.rows.values()
            if row.kind == NOTE
            and row.status == SYNCED
            and row.local_id not in live
            and parents.get(row.parent_key or "") in here
        ]

    def _delete_removed_notes(self, papers: Sequence[mapping.Paper]) -> None:
        """Delete them in Zotero too, unless Zotero's copy changed since we pushed it.

        A multi-object DELETE is conditional on the library version (read just before),
        not on an object version: that is what pyzotero's delete_item([list]) gets wrong.
        """
        removed = self._removed_notes(papers)
        if not removed:
            return
        cite = {p.record.id: p.record.key or p.record.id for p in papers}
        parents = {row.key: row.local_id for row in self.rows.values() if row.kind == ITEM}
        for chunk in _chunks(removed, MAX_OBJECTS):
            settled: list[SyncRow] = []
            for _ in range(3):
                todo = [r for r in chunk if r not in settled]
                if not todo:
                    break
                versions, library_version = self.client.versions_and_library([r.key for r in todo])
                doomed = []
                for row in todo:
                    if row.key not in versions:
                        settled.append(row)
                    elif versions[row.key] != row.version:
                        settled.append(row)
                        owner = cite.get(parents.get(row.parent_key or "", ""), "?")
                        what = f"note {row.local_id}"
                        self.report.conflicts.append(
                            Conflict(owner, what, "deleted here, edited in Zotero", "remote")
                        )
                    else:
                        doomed.append(row)
                if not doomed:
                    continue
                if self.client.delete_items([r.key for r in doomed], library_version) is None:
                    continue  # the library moved on between the read and the delete
                settled += doomed
                self.report.deleted[NOTE] += len(doomed)
            for row in chunk:
                if row not in settled:
                    owner = cite.get(parents.get(row.parent_key or "", ""), "?")
                    self.report.failures.append(
                        Failure(owner, f"note {row.local_id}", "could not be deleted in Zotero")
                    )
            if settled:
                assert self._writer is not None
                self._saves.append(self._writer.submit(self.state.forget, settled))

    # -- bookkeeping ---------------------------------------------------------------------
    def _mark_synced(
        self,
        done: list[tuple[_Object, dict[str, Any], int | None]],
        *,
        created: bool,
        wrote: bool = True,
    ) -> None:
        if not done:
            return
        rows = []
        for obj, written, version in done:
            self._settled += self._settling.pop((obj.kind, obj.local_id), [])
            # `written` (what Zotero holds) is stored only when it differs from `local`
            pushed = {"local": obj.data}
            if written != obj.data:
                pushed["written"] = written
            rows.append(
                SyncRow(
                    obj.kind,
                    obj.local_id,
                    obj.key,
                    SYNCED,
                    version,
                    obj.digest,
                    pushed,
                    obj.parent_key,
                    obj.generation,
                    obj.source_hash,
                )
            )
            if created:
                self.report.created[obj.kind] += 1
            elif wrote:
                self.report.updated[obj.kind] += 1
            else:
                self.report.unchanged[obj.kind] += 1
        if not self.options.dry_run:
            self._save(rows, wait=False)
        self._done += len(done)
        self.progress(self._done, self._total)

    def _conflicts(self, obj: _Object, conflicts: list[FieldConflict]) -> None:
        """Report the conflicts the merge met; with no `--prefer`, keep them open.

        A field already open (the pull met it first, or an earlier run) is not listed twice.
        """
        what = ITEM if obj.kind == ITEM else f"note {obj.local_id}"
        known = {
            name
            for c in self.open.get((obj.kind, obj.local_id), [])
            for name in ZOTERO_FIELDS.get(c.field, (c.field,))
        }
        for c in conflicts:
            if c.field in known:
                continue
            self.report.conflicts.append(Conflict(obj.cite, what, c.field, c.kept))
            if c.kept == "open" and not self.options.dry_run:
                self._opened.append(
                    OpenConflict(obj.kind, obj.local_id, c.field, c.local, c.remote)
                )

    def _settle_open(self, obj: _Object, merged: dict[str, Any]) -> None:
        """Open conflicts of the object, settled by `--prefer` once the write succeeds:
        `local` writes our value over Zotero's, `remote` keeps Zotero's (the pull took it)."""
        if self.options.prefer is None or self.options.dry_run:
            return
        assert obj.data is not None
        opened = self.open.get((obj.kind, obj.local_id), [])
        for conflict in opened:
            for name in ZOTERO_FIELDS.get(conflict.field, (conflict.field,)):
                if self.options.prefer == "local" and name in obj.data:
                    merged[name] = obj.data[name]
        if opened:
            self._settling[(obj.kind, obj.local_id)] = [c.id for c in opened]

    def _fail(self, obj: _Object, message: str) -> None:
        self.report.failures.append(
            Failure(obj.cite, obj.kind if obj.kind == ITEM else f"note {obj.local_id}", message)
        )
        self._done += 1
        self.progress(self._done, self._total)

    def _forget(self, objs: list[_Object]) -> None:
        rows = [SyncRow(o.kind, o.local_id, o.key, PENDING) for o in objs]
        if rows:
            assert self._writer is not None
            self._saves.append(self._writer.submit(self.state.forget, rows))


def _new_object(obj: _Object) -> dict[str, Any]:
    """A create under a client key: `version` 0 says "must not exist yet".

    Without it (and without If-Unmodified-Since-Version) the dataserver refuses every
    keyed object with a per-object 428, new keys included (docs/zotero.md, rule R1).
    """
    assert obj.data is not None
    return {**obj.data, "key": obj.key, "version": 0}


def _can_write(access: dict[str, Any], client: ZoteroClient) -> bool:
    rights = access.get("access", {})
    if client.credentials.library_type == "user":
        return bool(rights.get("user", {}).get("write"))
    groups = rights.get("groups", {})
    group = groups.get(client.credentials.library_id) or groups.get("all") or {}
    return bool(group.get("write"))


def _chunks(items: list[Any], size: int) -> list[list[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def sync(
    papers: Sequence[mapping.Paper],
    client: ZoteroClient,
    state: SyncState,
    options: SyncOptions,
    progress: Callable[[int, int], None] | None = None,
    remote: RemoteChanges | None = None,
) -> Report:
    return Syncer(client, state, options, progress, remote).run(papers)
