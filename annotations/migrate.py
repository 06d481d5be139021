"""Schema migrations: numbered SQL files applied in order, tracked by `PRAGMA user_version`.

Every `migrations/NNNN_name.sql` whose number is above the library's user_version runs,
in numeric order, inside the caller's write transaction, so a library is never left
half-migrated. A ledger (`schema_migrations`) records each number applied, so a migration
numbered below one already applied still runs; see migrations/README.md for numbering.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bib.errors import BibError, OperationError

if TYPE_CHECKING:
    from importlib.abc import Traversable

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

SHIPPED = Path(__file__).with_name("migrations")
"""The shipped migrations: files beside this module, as pip installs package data. Not
`importlib.resources`, whose import is 8 % of `import click`'s instructions, paid by every
command that opens the library (issue 16's start-up target, docs/convert.md)."""


@dataclass(frozen=True, slots=True)
class Migration:
    number: int
    name: str
    sql: str


def migrations(source: Traversable | Path | None = None) -> list[Migration]:
    """The migrations in `source` (default: the shipped ones), sorted by number."""
    folder = source if source is not None else SHIPPED
    found: dict[int, Migration] = {}
    for item in folder.iterdir():
        match = _NAME.match(item.name)
        if not match:
            continue
        number = int(match.group(1))
        if number in found:
            raise OperationError(
                f"two migrations numbered {number}: {found[number].name}, {item.name}"
            )
        found[number] = Migration(number, item.name, item.read_text(encoding="utf-8"))
    return [found[n] for n in sorted(found)]


def latest(source: Traversable | Path | None = None) -> int:
    shipped = migrations(source)
    return shipped[-1].number if shipped else 0


def statements(sql: str) -> list[str]:
    """Split a script into statements (triggers included), so they run in one transaction.

    `executescript` would commit the caller's transaction first.
    """
    result: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                result.append(pending.strip())
            pending = ""
    if pending.strip() and not _only_comments(pending):
        raise OperationError(f"incomplete SQL statement in migration: {pending.strip()[:60]}")
    return result


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in text.splitlines())


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


LEDGER = "schema_migrations"


def applied_numbers(conn: sqlite3.Connection, source: Traversable | Path | None = None) -> set[int]:
    """Migrations this library has had: from the ledger, or (before it) all up to user_version."""
    has_ledger = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (LEDGER,)
    ).fetchone()
    if has_ledger:
        return {n for (n,) in conn.execute(f"SELECT number FROM {LEDGER}")}
    version = user_version(conn)
    return {m.number for m in migrations(source) if m.number <= version}


def pending(
    conn: sqlite3.Connection, *, upto: int | None = None, source: Traversable | Path | None = None
) -> list[Migration]:
    """Shipped migrations this library lacks, in numeric order, even below its user_version.

    A migration may ship with a number below one a library already has (branches merged
    in another order); the ledger of applied numbers makes sure it still runs.
    """
    done = applied_numbers(conn, source)
    return [
        m for m in migrations(source) if m.number not in done and (upto is None or m.number <= upto)
    ]


CONTEXT = "migration_context"
"""A temporary table (name, value) of the upgrading connection: `user` is who upgrades, the
owner a migration gives rows written before there were owners (see migrations/README.md)."""


def apply(
    conn: sqlite3.Connection,
    *,
    upto: int | None = None,
    source: Traversable | Path | None = None,
    user: str = "",
) -> list[int]:
    """Apply pending migrations inside the open write transaction; return their numbers.

    `PRAGMA user_version` ends at the highest number applied so far; `user` fills the
    migration context.
    """
    current = user_version(conn)
    shipped = migrations(source)
    newest = shipped[-1].number if shipped else 0
    if current > newest:
        raise BibError(
            f"the library uses schema version {current}, newer than this bib knows ({newest}); "
            "upgrade bib"
        )
    todo = pending(conn, upto=upto, source=source)
    done = applied_numbers(conn, source)
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {LEDGER} (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))"
    )
    names = {m.number: m.name for m in shipped}
    conn.executemany(
        f"INSERT OR IGNORE INTO {LEDGER} (number, name) VALUES (?, ?)",
        [(n, names.get(n, "")) for n in sorted(done)],
    )
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {CONTEXT} (name TEXT PRIMARY KEY, value TEXT)")
    conn.execute(f"INSERT OR REPLACE INTO temp.{CONTEXT} VALUES ('user', ?)", (user,))
    for migration in todo:
        for statement in statements(migration.sql):
            conn.execute(statement)
        conn.execute(
            f"INSERT INTO {LEDGER} (number, name) VALUES (?, ?)", (migration.number, migration.name)
        )
    if todo:
        conn.execute(f"PRAGMA user_version = {max(current, todo[-1].number):d}")
    return [m.number for m in todo]
