"""Zotero sync state: rows of migration 0010_zotero_sync.sql, reached through the `Store`.

The sync engine keeps, per object, the Zotero key, the object version after our last write
and the JSON we last pushed (the base of a three-way merge). New objects are written as
`pending` with their client-generated keys before the request that creates them, so a lost
response or a killed process is reconciled on the next run by reading those keys back.

The engine sees only `SyncState` (one Zotero library of one store); the store implements the
`sync_*` methods of the `Store` protocol, each one transaction, so that a crash leaves
either the old row or the new one. The SQL for SQLite lives here (`SQLiteSyncTables`), so the
store module only delegates to it; another backend implements the same methods.

Conflicts left open (a field changed on both sides, no `--prefer`) are rows of
`zotero_conflict` (migration 0011): both values, until a later run settles them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from bib.record import Record

if TYPE_CHECKING:
    from annotations.store import Store

PENDING = "pending"
SYNCED = "synced"
DELETED_REMOTE = "deleted_remote"

RowId = tuple[str, str]
"""(kind, local id) of a synced object."""


@dataclass(frozen=True, slots=True)
class SyncRow:
    kind: str
    local_id: str
    key: str
    status: str
    version: int | None = None
    pushed_hash: str | None = None
    pushed: dict[str, Any] | None = None
    parent_key: str | None = None
    generation: int = 0
    source_hash: str | None = None


@dataclass(frozen=True, slots=True)
class OpenConflict:
    """A field changed both here and in Zotero, settled by neither side yet."""

    kind: str
    local_id: str
    field: str
    local: Any
    remote: Any

    @property
    def id(self) -> ConflictId:
        return (self.kind, self.local_id, self.field)


ConflictId = tuple[str, str, str]
"""(kind, local id, field) of an open conflict."""


class SyncState:
    """The sync state of one Zotero library (`endpoint|type|id`) in one store."""

    def __init__(self, store: Store, library: str) -> None:
        self.store = store
        self.library = library

    def library_version(self) -> int:
        return self.store.sync_library_version(self.library)

    def set_library_version(self, version: int) -> None:
        self.store.set_sync_library_version(self.library, version)

    def rows(self) -> dict[RowId, SyncRow]:
        return self.store.sync_rows(self.library)

    def pushed_of(self, ids: Iterable[RowId]) -> dict[RowId, dict[str, Any]]:
        return self.store.sync_pushed(self.library, list(ids))

    def save(self, rows: Iterable[SyncRow]) -> None:
        self.store.save_sync_rows(self.library, list(rows))

    def forget(self, rows: Iterable[SyncRow]) -> None:
        self.store.forget_sync_rows(self.library, list(rows))

    def conflicts(self) -> dict[ConflictId, OpenConflict]:
        return {c.id: c for c in self.store.sync_conflicts(self.library)}

    def keep_conflicts(self, conflicts: Iterable[OpenConflict]) -> None:
        self.store.save_sync_conflicts(self.library, list(conflicts))

    def settle_conflicts(self, ids: Iterable[ConflictId]) -> None:
        self.store.drop_sync_conflicts(self.library, list(ids))


class SQLiteSyncTables:
    """The six sync-state operations on a SQLite connection in autocommit mode."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.db = connection

    def _write(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.executemany(sql, params)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def library_version(self, library: str) -> int:
        row = self.db.execute(
            "SELECT version FROM zotero_library WHERE library = ?", (library,)
        ).fetchone()
        return int(row[0]) if row else 0

    def set_library_version(self, library: str, version: int) -> None:
        self._write(
            "INSERT INTO zotero_library (library, version, synced_at) VALUES "
            "(?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) ON CONFLICT (library) DO "
            "UPDATE SET version = excluded.version, synced_at = excluded.synced_at",
            [(library, version)],
        )

    def rows(self, library: str) -> dict[RowId, SyncRow]:
        """Every row of the library, without the pushed JSON (see `pushed`)."""
        sql = (
            "SELECT kind, local_id, zotero_key, status, version, pushed_hash, parent_key, "
            "generation, source_hash FROM zotero_object WHERE library = ?"
        )
        out = {}
        for r in self.db.execute(sql, (library,)):
            row = SyncRow(r[0], r[1], r[2], r[3], r[4], r[5], None, r[6], r[7], r[8])
            out[(row.kind, row.local_id)] = row
        return out

    def pushed(self, library: str, ids: list[RowId]) -> dict[RowId, dict[str, Any]]:
        out = {}
        for kind, local_id in ids:
            found = self.db.execute(
                "SELECT pushed FROM zotero_object WHERE library = ? AND kind = ? AND local_id = ?",
                (library, kind, local_id),
            ).fetchone()
            if found and found[0]:
                out[(kind, local_id)] = json.loads(found[0])
        return out

    def save(self, library: str, rows: list[SyncRow]) -> None:
        """Insert or replace rows (a row without pushed JSON keeps the stored one)."""
        self._write(
            "INSERT INTO zotero_object (library, kind, local_id, zotero_key, parent_key, "
            "status, version, pushed_hash, pushed, generation, source_hash, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) "
            "ON CONFLICT (library, kind, local_id) DO UPDATE SET "
            "zotero_key = excluded.zotero_key, parent_key = excluded.parent_key, "
            "status = excluded.status, version = excluded.version, "
            "pushed_hash = excluded.pushed_hash, "
            "pushed = coalesce(excluded.pushed, zotero_object.pushed), "
            "generation = excluded.generation, source_hash = excluded.source_hash, "
            "updated_at = excluded.updated_at",
            [
                (
                    library,
                    r.kind,
                    r.local_id,
                    r.key,
                    r.parent_key,
                    r.status,
                    r.version,
                    r.pushed_hash,
                    json.dumps(r.pushed, sort_keys=True) if r.pushed else None,
                    r.generation,
                    r.source_hash,
                )
                for r in rows
            ],
        )

    def forget(self, library: str, rows: list[SyncRow]) -> None:
        self._write(
            "DELETE FROM zotero_object WHERE library = ? AND kind = ? AND local_id = ?",
            [(library, r.kind, r.local_id) for r in rows],
        )

    def conflicts(self, library: str) -> list[OpenConflict]:
        sql = (
            "SELECT kind, local_id, field, local, remote FROM zotero_conflict"
            " WHERE library = ? ORDER BY kind, local_id, field"
        )
        return [
            OpenConflict(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]))
            for r in self.db.execute(sql, (library,))
        ]

    def save_conflicts(self, library: str, conflicts: list[OpenConflict]) -> None:
        self._write(
            "INSERT INTO zotero_conflict (library, kind, local_id, field, local, remote)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (library, kind, local_id, field) DO UPDATE"
            " SET local = excluded.local, remote = excluded.remote",
            [conflict_values(library, c) for c in conflicts],
        )

    def drop_conflicts(self, library: str, ids: list[ConflictId]) -> None:
        self._write(
            "DELETE FROM zotero_conflict WHERE library = ? AND kind = ? AND local_id = ?"
            " AND field = ?",
            [(library, *i) for i in ids],
        )


def cleared(stored: Record, names: Iterable[str], mine: Iterable[str] = ()) -> dict[str, Any]:
    """The fields of `names` to empty in `stored` (their defaults), leaving out those the
    user edited (`mine`) and those already empty: what a pull of emptied fields changes."""
    defaults = {f.name: f.default for f in fields(Record)}
    keep = set(mine)
    return {
        name: defaults[name]
        for name in names
        if name in defaults and name not in keep and getattr(stored, name) != defaults[name]
    }


def conflict_values(library: str, conflict: OpenConflict) -> tuple[str, ...]:
    """The row of an open conflict; both values as JSON (text, creator lists, note HTML)."""
    return (
        library,
        conflict.kind,
        conflict.local_id,
        conflict.field,
        json.dumps(conflict.local, sort_keys=True, ensure_ascii=False),
        json.dumps(conflict.remote, sort_keys=True, ensure_ascii=False),
    )
