"""Zotero sync state in the annotation library (tables of migration 0010_zotero_sync.sql).

The sync engine keeps, per object, the Zotero key, the object version after our last write
and the JSON we last pushed (the base of a three-way merge). New objects are written here
as `pending` with their client-generated keys before the request that creates them, so a
lost response or a killed process is reconciled on the next run by reading those keys back.
Every method commits its own transaction: a crash leaves either the old row or the new one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PENDING = "pending"
SYNCED = "synced"
DELETED_REMOTE = "deleted_remote"


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


class SyncState:
    """Sync state for one Zotero library (`endpoint|type|id`) over a SQLite connection."""

    def __init__(self, connection: sqlite3.Connection, library: str) -> None:
        self.db = connection
        self.library = library
        found = self.db.execute(
            "SELECT count(*) FROM sqlite_master WHERE name IN ('zotero_object', 'zotero_library')"
        ).fetchone()[0]
        if found != 2:
            raise LookupError("the library has no Zotero sync tables (migration 0010 missing)")

    @classmethod
    def open(cls, path: str | Path, library: str) -> SyncState:
        connection = sqlite3.connect(
            path, timeout=30, isolation_level=None, check_same_thread=False
        )
        connection.execute("PRAGMA busy_timeout = 30000")
        connection.execute("PRAGMA foreign_keys = ON")
        return cls(connection, library)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- library -------------------------------------------------------------------------
    def library_version(self) -> int:
        row = self.db.execute(
            "SELECT version FROM zotero_library WHERE library = ?", (self.library,)
        ).fetchone()
        return int(row[0]) if row else 0

    def set_library_version(self, version: int) -> None:
        with self.transaction():
            self.db.execute(
                "INSERT INTO zotero_library (library, version, synced_at) VALUES "
                "(?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) ON CONFLICT (library) DO "
                "UPDATE SET version = excluded.version, synced_at = excluded.synced_at",
                (self.library, version),
            )

    # -- objects -------------------------------------------------------------------------
    def rows(self) -> dict[tuple[str, str], SyncRow]:
        """Every row of the library, without the pushed JSON (see `pushed_of`)."""
        sql = (
            "SELECT kind, local_id, zotero_key, status, version, pushed_hash, parent_key, "
            "generation, source_hash FROM zotero_object WHERE library = ?"
        )
        out = {}
        for r in self.db.execute(sql, (self.library,)):
            row = SyncRow(r[0], r[1], r[2], r[3], r[4], r[5], None, r[6], r[7], r[8])
            out[(row.kind, row.local_id)] = row
        return out

    def pushed_of(self, ids: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        """The pushed JSON of the given (kind, local id) pairs that have one."""
        out = {}
        for kind, local_id in ids:
            found = self.db.execute(
                "SELECT pushed FROM zotero_object WHERE library = ? AND kind = ? AND local_id = ?",
                (self.library, kind, local_id),
            ).fetchone()
            if found and found[0]:
                out[(kind, local_id)] = json.loads(found[0])
        return out

    def save(self, rows: Iterable[SyncRow]) -> None:
        """Insert or replace rows in one transaction (a row without pushed JSON keeps the
        stored one)."""
        with self.transaction():
            self.db.executemany(
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
                        self.library,
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

    def forget(self, rows: Iterable[SyncRow]) -> None:
        with self.transaction():
            self.db.executemany(
                "DELETE FROM zotero_object WHERE library = ? AND kind = ? AND local_id = ?",
                [(self.library, r.kind, r.local_id) for r in rows],
            )
