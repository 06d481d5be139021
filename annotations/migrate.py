"""Schema migrations: numbered SQL files applied in order, tracked by `PRAGMA user_version`.

Every `migrations/NNNN_name.sql` whose number is above the library's user_version runs,
in numeric order, inside the caller's write transaction, so a library is never left
half-migrated. Numbers are owned by area: 0001-0009 the store, 0010 the Zotero sync state.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

from bib.errors import OperationError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    number: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The shipped migrations, sorted by number."""
    found: dict[int, Migration] = {}
    for item in resources.files(__package__).joinpath("migrations").iterdir():
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


def latest() -> int:
    shipped = migrations()
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


def apply(conn: sqlite3.Connection, *, upto: int | None = None) -> list[int]:
    """Apply pending migrations inside the open write transaction; return their numbers."""
    current = user_version(conn)
    shipped = migrations()
    newest = shipped[-1].number if shipped else 0
    if current > newest:
        raise OperationError(
            f"the library uses schema version {current}, newer than this bib knows ({newest}); "
            "upgrade bib"
        )
    applied: list[int] = []
    for migration in shipped:
        if migration.number <= current or (upto is not None and migration.number > upto):
            continue
        for statement in statements(migration.sql):
            conn.execute(statement)
        applied.append(migration.number)
    if applied:
        conn.execute(f"PRAGMA user_version = {applied[-1]:d}")
    return applied
