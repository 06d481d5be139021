"""Copy a whole library between backends: `bib library copy SRC DST` and `bib backup` of a
PostgreSQL library to a SQLite file.

Both backends hold the same tables with the same values (times are the same ISO 8601 text),
so a copy moves rows, table by table, read in one snapshot of the source and written in one
transaction on the destination. Note ids are kept when the destination is empty, so
`bib note edit 12` means the same note after a move; with `merge=True` rows the destination
already has (same record id, note uuid, alias, tag) are kept and the rest are added.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotations.sqlite import SQLiteStore
from annotations.store import Store
from bib.errors import OperationError


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[str, ...]
    order: str


TABLES = (
    Table(
        "records",
        (
            "id",
            "key",
            "venue",
            "year",
            "title",
            "abstract",
            "data",
            "latex",
            "added",
            "updated",
            "tags_text",
            "deleted_at",
            "user_fields",
        ),
        "id",
    ),
    Table(
        "record_revisions", ("record_id", "data", "latex", "created", "replaced", "origin"), "id"
    ),
    Table("latex_preambles", ("digest", "text"), "digest"),
    Table("attachments", ("record_id", "path", "copied", "added"), "id"),
    Table("key_aliases", ("alias", "record_id", "created"), "alias"),
    Table("record_tags", ("record_id", "kind", "value"), "record_id, kind, value"),
    Table(
        "notes",
        (
            "id",
            "uuid",
            "record_id",
            "body",
            "created",
            "updated",
            "deleted_at",
            "author",
            "edited_by",
        ),
        "id",
    ),
    Table("note_revisions", ("id", "note_id", "body", "created", "replaced", "author"), "id"),
    Table("reading", ("record_id", "reader", "rating", "status", "updated"), "record_id, reader"),
    Table("personal_tags", ("record_id", "tag", "added"), "record_id, tag"),
    Table("zotero_library", ("library", "version", "synced_at"), "library"),
    Table(
        "zotero_object",
        (
            "library",
            "kind",
            "local_id",
            "zotero_key",
            "parent_key",
            "status",
            "version",
            "pushed_hash",
            "pushed",
            "source_hash",
            "generation",
            "updated_at",
        ),
        "library, kind, local_id",
    ),
    Table(
        "zotero_conflict",
        ("library", "kind", "local_id", "field", "local", "remote", "seen_at"),
        "library, kind, local_id, field",
    ),
)
"""Every table a library holds, parents before children (the foreign keys need it)."""


@dataclass(slots=True)
class CopyReport:
    """Rows written per table, and rows skipped because the destination had them."""

    copied: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


def snapshot(store: Store) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, read in one transaction (one consistent state)."""
    with store.transaction(write=False):
        return {t.name: store.rows(t.name, t.columns, t.order) for t in TABLES}


def copy_library(source: Store, dest: Store, *, merge: bool = False) -> CopyReport:
    """Copy every row of `source` into `dest` in one transaction on `dest`.

    Refuses a destination that already has papers unless `merge`.
    """
    data = snapshot(source)
    report = CopyReport()
    with dest.transaction():
        if dest.count() and not merge:
            raise OperationError(
                f"the destination already holds {dest.count()} papers; use --merge to add to it"
            )
        note_ids: dict[int, int | None] = {}
        new_records: set[str] = set()
        for table in TABLES:
            rows = data[table.name]
            if merge and table.name == "notes":
                rows = [{k: v for k, v in row.items() if k != "id"} for row in rows]
            if table.name == "note_revisions":
                rows = _revisions(rows, note_ids if merge else None)
            if merge and table.name == "record_revisions":
                rows = [row for row in rows if row["record_id"] in new_records]
            written = dest.insert_rows(table.name, rows)
            if table.name == "records":
                new_records = {
                    row["id"] for row, done in zip(rows, written, strict=True) if done is not None
                }
            if table.name == "notes":
                note_ids = {
                    int(row["id"]): new for row, new in zip(data["notes"], written, strict=True)
                }
            report.copied[table.name] = sum(1 for item in written if item is not None)
            report.skipped[table.name] = len(data[table.name]) - report.copied[table.name]
    return report


def _revisions(
    rows: list[dict[str, Any]], note_ids: dict[int, int | None] | None
) -> list[dict[str, Any]]:
    """Revisions as the destination numbers their notes: unchanged for an empty destination;
    on a merge, only those of notes newly added, under their new ids."""
    if note_ids is None:
        return rows
    result = []
    for row in rows:
        new = note_ids.get(int(row["note_id"]))
        if new is not None:
            result.append({**{k: v for k, v in row.items() if k != "id"}, "note_id": new})
    return result


def backup_to_sqlite(source: Store, dest: Path) -> None:
    """A consistent SQLite copy of any library, written beside `dest`, checked, fsynced and
    renamed over it: `dest` is the old file or a complete new one, never half."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    os.unlink(tmp)  # SQLiteStore creates it private (0600)
    try:
        with SQLiteStore(tmp) as copy:
            copy_library(source, copy)
            check = copy.integrity()
            if check != "ok":
                raise OperationError(f"backup failed its integrity check: {check}")
            copy.conn.execute("PRAGMA journal_mode = DELETE")
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, dest)
    except BaseException:
        for leftover in (tmp, f"{tmp}-wal", f"{tmp}-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)
        raise
