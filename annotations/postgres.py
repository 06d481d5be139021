"""The team library on PostgreSQL (psycopg 3): the same Store as `annotations.sqlite`, shared.

Connection settings follow libpq: the URL (`postgresql://user@host:5432/db?sslmode=require`),
then `PGPASSWORD`, `~/.pgpass` and the other `PG*` variables; a password is never printed (every
location shown goes through `redacted`). Migrations (`pg_migrations/`, same numbers and
meaning as the SQLite ones) run in one transaction under an advisory lock, so two people
upgrading at once take turns. Every method is one transaction; a transaction the server aborts
for a serialization failure or a deadlock is retried from the start. A role without write
grants can read; a write it attempts becomes one OperationError line.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import errors as pg_errors

from annotations import migrate
from annotations.names import check_user, current_user
from annotations.rows import RowStore, note_body, now, ranked_hits
from annotations.store import (
    MARK,
    Filters,
    Hit,
)
from annotations.sync_state import (
    ConflictId,
    OpenConflict,
    RowId,
    SyncRow,
    cleared,
    conflict_values,
)
from bib.errors import BibError, OperationError

T = TypeVar("T")

MIGRATION_LOCK = 0x62696221
"""The advisory lock key (`bib!`) that serializes schema upgrades across clients."""
RETRIES = 8
_WORD = re.compile(r"\w+")
_RETRYABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected)


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def _migrations() -> list[migrate.Migration]:
    return migrate.migrations(resources.files(__package__) / "pg_migrations")


def _applied(conn: psycopg.Connection[Any]) -> set[int]:
    exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return set()
    return {int(row[0]) for row in conn.execute("SELECT number FROM schema_migrations")}


def migrate_schema(conn: psycopg.Connection[Any], user: str = "") -> list[int]:
    """Apply the migrations the database lacks, in one transaction under the advisory lock;
    `user` owns rows a migration gives an owner (migrations/README.md)."""
    shipped = _migrations()
    newest = shipped[-1].number if shipped else 0
    done = _applied(conn)
    if done and max(done) > newest:
        raise OperationError(
            f"the library uses schema version {max(done)}, newer than this bib knows ({newest}); "
            "upgrade bib"
        )
    if all(m.number in done for m in shipped):
        return []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (number INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL, applied TEXT NOT NULL)"
        )
        done = _applied(conn)  # another client may have upgraded while we waited
        todo = [m for m in shipped if m.number not in done]
        conn.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {migrate.CONTEXT} (name TEXT PRIMARY KEY,"
            " value TEXT) ON COMMIT DROP"
        )
        conn.execute(f"INSERT INTO {migrate.CONTEXT} VALUES ('user', %s)", (user,))
        for migration in todo:
            conn.execute(migration.sql.encode())
            conn.execute(
                "INSERT INTO schema_migrations (number, name, applied) VALUES (%s, %s, %s)",
                (migration.number, migration.name, now()),
            )
    return [m.number for m in todo]


def _refusal(exc: psycopg.Error) -> OperationError:
    if isinstance(exc, pg_errors.InsufficientPrivilege | pg_errors.ReadOnlySqlTransaction):
        return OperationError(
            "the library is read-only for this PostgreSQL role (list, show, search and export "
            "work; ask the library's admin for write grants)"
        )
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return OperationError(f"the library refused the change: {first}")


class PostgresStore(RowStore):
    """A library in a PostgreSQL database (see the module docstring for the guarantees)."""

    def __init__(self, url: str, *, user: str | None = None) -> None:
        self.path: Path | None = None
        self.user = check_user(user) if user is not None else current_user()
        try:
            self.location = redacted(url)
        except ValueError as exc:  # not shown: the text may hold a password
            raise BibError(f"the library URL is not a valid URL: {exc}") from None
        try:
            self.conn: psycopg.Connection[Any] = psycopg.connect(url, autocommit=True)
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else "no answer"
            raise OperationError(
                f"cannot open the library {self.location}: {reason.replace(url, self.location)}"
            ) from None
        try:
            migrate_schema(self.conn, self.user)
        except pg_errors.InsufficientPrivilege:
            self.conn.close()
            raise OperationError(
                f"the library {self.location} has no schema yet and this role may not create "
                "it; run bib once as the library's owner"
            ) from None
        except BaseException:
            self.conn.close()
            raise
        self._depth = 0

    # Lifecycle and transactions

    @contextlib.contextmanager
    def _outermost(self, *, write: bool) -> Iterator[psycopg.Connection[Any]]:
        """The outermost transaction: a read sees one snapshot; a refusal is one line (an
        abort `_write` retries is passed on as it is)."""
        self._depth = 1
        try:
            with self.conn.transaction():
                if not write:  # one snapshot for every statement of a read (backup, copy)
                    self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                yield self.conn
        except psycopg.Error as exc:
            if isinstance(exc, _RETRYABLE):
                raise
            raise _refusal(exc) from exc
        finally:
            self._depth = 0

    def _write(self, action: Callable[[psycopg.Connection[Any]], T]) -> T:
        """Run `action` in a transaction, again from the start when the server aborted it
        for a serialization failure, a deadlock or a key another writer took meanwhile."""
        delay = 0.005
        for attempt in range(RETRIES):
            try:
                with self.transaction() as conn:
                    return action(conn)
            except (*_RETRYABLE, OperationError) as exc:
                cause = exc.__cause__ if isinstance(exc, OperationError) else exc
                retry = isinstance(cause, (*_RETRYABLE, pg_errors.UniqueViolation))
                if not retry or self._depth or attempt == RETRIES - 1:
                    if isinstance(exc, OperationError):
                        raise
                    raise _refusal(exc) from exc
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)
        raise AssertionError("unreachable")

    # Dialect (annotations.rows holds the rest): `%s` placeholders; keys, aliases and tags
    # compare through lower() (the unique indexes are on lower(...)); rows about to change
    # are locked (FOR UPDATE), so two writers take turns instead of losing an update.

    TAG_ORDER = 'lower(tag) COLLATE "C"'
    KEY_ORDER = 'lower(r.key) COLLATE "C", r.key COLLATE "C"'
    FOR_UPDATE = " FOR UPDATE"
    TAGS_OF_RECORD = (
        '(SELECT string_agg(tag, chr(31) ORDER BY lower(tag) COLLATE "C")'
        " FROM personal_tags WHERE record_id = r.id)"
    )

    def _exec(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return conn.execute(_dialect(sql), params)

    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with conn.cursor() as cursor:
            cursor.executemany(_dialect(sql), rows)

    def _same(self, column: str) -> str:
        return f"lower({column}) = lower(?)"

    def _where(self, filters: Filters) -> tuple[str, list[Any]]:
        return _where(filters)  # already in `%s` style, which `_dialect` leaves alone

    def _clean_body(self, body: str) -> str:
        return _text(body)

    def complete_keys(self, prefix: str, *, limit: int = 200) -> list[str]:
        """Keys and aliases of live records starting with `prefix` (any case), for the shell."""
        pattern = re.sub(r"([\\%_])", r"\\\1", prefix) + "%"
        with self._read() as conn:
            rows = conn.execute(
                "SELECT name FROM (SELECT key FROM records WHERE key ILIKE %s"
                " AND deleted_at IS NULL UNION SELECT a.alias FROM key_aliases a"
                " JOIN records r ON r.id = a.record_id WHERE a.alias ILIKE %s"
                ' AND r.deleted_at IS NULL) AS found (name) ORDER BY name COLLATE "C" LIMIT %s',
                (pattern, pattern, limit),
            ).fetchall()
        return [row[0] for row in rows]

    # Search

    def search(
        self, query: str, *, limit: int = 20, raw: bool = False, also: Sequence[str] = ()
    ) -> list[Hit]:
        """Rank papers by ts_rank over the weighted tsvector (title A, tags B, abstract C)
        and their notes, with ts_headline snippets.

        Plain queries mean what they mean on SQLite: every word must occur, `word*` is a
        prefix, a word with punctuation (`llm-as-a-judge`) is a phrase. `raw=True` passes
        PostgreSQL `to_tsquery` syntax through and reports a malformed query as bad input.
        """
        text = query.strip() if raw else ts_query(query)
        if not text:
            raise BibError("empty search query")
        if also:  # tag values that match too (the topics below a topic searched for)
            text = " | ".join([f"({text})", *(f"({ts_query(value)})" for value in also)])
        start, end = MARK
        options = f"StartSel={start}, StopSel={end}, MaxWords=16, MinWords=8"
        whole = f"StartSel={start}, StopSel={end}, HighlightAll=true"
        with self._read() as conn:
            try:
                with conn.transaction():
                    records = conn.execute(
                        "WITH q AS (SELECT to_tsquery('simple', %s) AS q)"
                        " SELECT r.key, r.title, -ts_rank(r.search, q.q),"
                        " ts_headline('simple', r.title, q.q, %s),"
                        " ts_headline('simple', r.abstract, q.q, %s),"
                        " ts_headline('simple', r.tags_text, q.q, %s)"
                        " FROM records r, q WHERE r.search @@ q.q AND r.deleted_at IS NULL"
                        " ORDER BY ts_rank(r.search, q.q) DESC, r.key LIMIT %s",
                        (text, whole, options, options, limit),
                    ).fetchall()
                    notes = conn.execute(
                        "WITH q AS (SELECT to_tsquery('simple', %s) AS q)"
                        " SELECT r.key, r.title, -ts_rank(n.search, q.q), n.id,"
                        " ts_headline('simple', n.body, q.q, %s)"
                        " FROM notes n JOIN records r ON r.id = n.record_id, q"
                        " WHERE n.search @@ q.q AND n.deleted_at IS NULL AND r.deleted_at IS NULL"
                        " ORDER BY ts_rank(n.search, q.q) DESC, n.id LIMIT %s",
                        (text, options, limit),
                    ).fetchall()
            except pg_errors.SyntaxError as exc:
                first = str(exc).strip().splitlines()[0]
                raise BibError(f"malformed search query {query!r}: {first}") from None
        return ranked_hits(records, notes, limit)

    # Whole-library copy (annotations.copy)

    def insert_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> list[int | None]:
        """Insert rows inside the open transaction, skipping any that collide with one already
        here; per row the new id (notes) or 0 when inserted, None when skipped."""
        if not rows:
            return []
        columns = list(rows[0])
        marks = ", ".join(["%s"] * len(columns))
        returning = " RETURNING id" if table == "notes" else ""
        sql = (
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            f" ON CONFLICT DO NOTHING{returning}"
        )
        ids: list[int | None] = []
        for row in rows:
            found = self.conn.execute(sql, [row[c] for c in columns])
            if returning:
                fetched = found.fetchone()
                ids.append(int(fetched[0]) if fetched else None)
            else:
                ids.append(0 if found.rowcount == 1 else None)
        if table in ("notes", "note_revisions", "records"):
            column = "num" if table == "records" else "id"
            self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
                f" greatest((SELECT max({column}) FROM {table}), 1))"
            )
        return ids

    # Safety

    def backup(self, dest: Path) -> None:
        """Write a consistent SQLite copy of the library (one snapshot), renamed into place."""
        from annotations.copy import backup_to_sqlite

        backup_to_sqlite(self, Path(dest))

    def integrity(self) -> str:
        """`ok` when every note, alias, tag and reading row points at a record (the foreign
        keys promise it; this reads it back), else what is wrong."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT (SELECT count(*) FROM notes n WHERE NOT EXISTS"
                "  (SELECT 1 FROM records r WHERE r.id = n.record_id))"
                " + (SELECT count(*) FROM note_revisions v WHERE NOT EXISTS"
                "  (SELECT 1 FROM notes n WHERE n.id = v.note_id))"
            ).fetchone()
        orphans = int(row[0]) if row else 0
        return "ok" if orphans == 0 else f"{orphans} rows point at nothing"

    # Zotero sync state (the tables of pg_migrations/0010; the same rows as on SQLite)

    def sync_library_version(self, library: str) -> int:
        with self._read() as conn:
            row = conn.execute(
                "SELECT version FROM zotero_library WHERE library = %s", (library,)
            ).fetchone()
        return int(row[0]) if row else 0

    def set_sync_library_version(self, library: str, version: int) -> None:
        def action(conn: psycopg.Connection[Any]) -> None:
            conn.execute(
                "INSERT INTO zotero_library (library, version, synced_at) VALUES (%s, %s, %s)"
                " ON CONFLICT (library) DO UPDATE SET version = excluded.version,"
                " synced_at = excluded.synced_at",
                (library, version, now()),
            )

        self._write(action)

    def sync_rows(self, library: str) -> dict[RowId, SyncRow]:
        """Every row of the library, without the pushed JSON (see `sync_pushed`)."""
        with self._read() as conn:
            found = conn.execute(
                "SELECT kind, local_id, zotero_key, status, version, pushed_hash, parent_key,"
                " generation, source_hash FROM zotero_object WHERE library = %s",
                (library,),
            ).fetchall()
        rows = [SyncRow(r[0], r[1], r[2], r[3], r[4], r[5], None, r[6], r[7], r[8]) for r in found]
        return {(row.kind, row.local_id): row for row in rows}

    def sync_pushed(self, library: str, ids: list[RowId]) -> dict[RowId, dict[str, Any]]:
        out: dict[RowId, dict[str, Any]] = {}
        with self._read() as conn:
            for kind, local_id in ids:
                found = conn.execute(
                    "SELECT pushed FROM zotero_object WHERE library = %s AND kind = %s"
                    " AND local_id = %s",
                    (library, kind, local_id),
                ).fetchone()
                if found and found[0]:
                    out[(kind, local_id)] = json.loads(found[0])
        return out

    def save_sync_rows(self, library: str, rows: list[SyncRow]) -> None:
        """Insert or replace rows (a row without pushed JSON keeps the stored one)."""
        values = [_sync_values(library, row) for row in rows]

        def action(conn: psycopg.Connection[Any]) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO zotero_object (library, kind, local_id, zotero_key, parent_key,"
                    " status, version, pushed_hash, pushed, generation, source_hash, updated_at)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (library, kind, local_id) DO UPDATE SET"
                    " zotero_key = excluded.zotero_key, parent_key = excluded.parent_key,"
                    " status = excluded.status, version = excluded.version,"
                    " pushed_hash = excluded.pushed_hash,"
                    " pushed = coalesce(excluded.pushed, zotero_object.pushed),"
                    " generation = excluded.generation, source_hash = excluded.source_hash,"
                    " updated_at = excluded.updated_at",
                    values,
                )

        self._write(action)

    def forget_sync_rows(self, library: str, rows: list[SyncRow]) -> None:
        keys = [(library, row.kind, row.local_id) for row in rows]

        def action(conn: psycopg.Connection[Any]) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "DELETE FROM zotero_object WHERE library = %s AND kind = %s AND local_id = %s",
                    keys,
                )

        self._write(action)

    def sync_conflicts(self, library: str) -> list[OpenConflict]:
        with self._read() as conn:
            found = conn.execute(
                "SELECT kind, local_id, field, local, remote FROM zotero_conflict"
                " WHERE library = %s ORDER BY kind, local_id, field",
                (library,),
            ).fetchall()
        return [OpenConflict(r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4])) for r in found]

    def save_sync_conflicts(self, library: str, conflicts: list[OpenConflict]) -> None:
        values = [conflict_values(library, c) for c in conflicts]

        def action(conn: psycopg.Connection[Any]) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO zotero_conflict (library, kind, local_id, field, local, remote)"
                    " VALUES (%s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT (library, kind, local_id, field) DO UPDATE"
                    " SET local = excluded.local, remote = excluded.remote",
                    values,
                )

        self._write(action)

    def sync_clear_fields(self, key: str, fields: list[str]) -> list[str]:
        """As `SQLiteStore.sync_clear_fields` (this backend keeps no user-edited fields)."""

        def action(conn: psycopg.Connection[Any]) -> list[str]:
            record_id, current, _ = self._record_row(conn, key)
            stored = self._stored(conn, record_id, current, lock=True)
            clear = cleared(stored, fields)
            if clear:
                self._write_record(conn, dataclasses.replace(stored, **clear), update=True)
            return sorted(clear)

        return self._write(action)

    def drop_sync_conflicts(self, library: str, ids: list[ConflictId]) -> None:
        keys = [(library, *i) for i in ids]

        def action(conn: psycopg.Connection[Any]) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "DELETE FROM zotero_conflict WHERE library = %s AND kind = %s"
                    " AND local_id = %s AND field = %s",
                    keys,
                )

        self._write(action)


def ts_query(text: str) -> str:
    """User words as a `to_tsquery` text that cannot be malformed: each word's letters and
    digits as quoted lexemes (a phrase when a word has several), all required, `word*` a
    prefix. The same meaning as `annotations.sqlite.fts_query` gives FTS5."""
    terms = []
    for word in text.split():
        prefix = word.endswith("*") and len(word) > 1
        parts = [part.lower() for part in _WORD.findall(word)]
        if not parts:
            continue
        lexemes = [f"'{part}'" for part in parts]
        if prefix:
            lexemes[-1] += ":*"
        terms.append(lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")")
    return " & ".join(terms)


def _sync_values(library: str, row: SyncRow) -> tuple[Any, ...]:
    pushed = json.dumps(row.pushed, sort_keys=True) if row.pushed else None
    return (
        library,
        row.kind,
        row.local_id,
        row.key,
        row.parent_key,
        row.status,
        row.version,
        row.pushed_hash,
        pushed,
        row.generation,
        row.source_hash,
        now(),
    )


def _dialect(sql: str) -> str:
    """SQL written for `annotations.rows` (`?` placeholders, no `%` in it) for psycopg."""
    return sql.replace("?", "%s")


def _text(body: str) -> str:
    """A note body PostgreSQL can store: its text type cannot hold NUL."""
    body = note_body(body)
    if "\x00" in body:
        raise BibError("the note contains a NUL character, which PostgreSQL cannot store")
    return body


def _where(filters: Filters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for name in filters.tags:
        values = [v.lower() for v in filters.tag_values(name)]
        clauses.append(
            "r.id IN (SELECT record_id FROM record_tags WHERE lower(value) = ANY(%s)"
            " UNION SELECT record_id FROM personal_tags WHERE lower(tag) = ANY(%s))"
        )
        params += [values, values]
    if filters.status is not None:
        clauses.append("coalesce(g.status, 'unread') = %s")
        params.append(str(filters.status))
    if filters.min_rating is not None:
        clauses.append("g.rating >= %s")
        params.append(filters.min_rating)
    if filters.venue:
        clauses.append("lower(r.venue) = lower(%s)")
        params.append(filters.venue)
    if filters.deleted is not None:
        clauses.append("r.deleted_at IS NOT NULL" if filters.deleted else "r.deleted_at IS NULL")
    return " AND ".join(clauses) or "TRUE", params
