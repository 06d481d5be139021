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
import difflib
import json
import random
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import errors as pg_errors

from annotations import codec, migrate
from annotations.names import check_key, check_tag
from annotations.sqlite import (
    ALL,
    EXPORT_FORMAT,
    EXPORT_VERSION,
    _comparable,
    _merge,
    _normalized,
    _note_body,
    _tags_text,
    now,
)
from annotations.store import (
    MARK,
    Attachment,
    Entry,
    Filters,
    Hit,
    ImportReport,
    Note,
    NotesImportReport,
    RecordRevision,
    Revision,
    Status,
)
from annotations.sync_state import RowId, SyncRow
from bib.errors import BibError, OperationError
from bib.record import Record

T = TypeVar("T")

MIGRATION_LOCK = 0x62696221
"""The advisory lock key (`bib!`) that serializes schema upgrades across clients."""
RETRIES = 8
_NOTE_COLUMNS = "n.id, n.uuid, n.record_id, r.key, n.body, n.created, n.updated, n.deleted_at"
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


def migrate_schema(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply the migrations the database lacks, in one transaction under the advisory lock."""
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


class PostgresStore:
    """A library in a PostgreSQL database (see the module docstring for the guarantees)."""

    def __init__(self, url: str) -> None:
        self.path: Path | None = None
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
            migrate_schema(self.conn)
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

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[psycopg.Connection[Any]]:
        """One transaction; nested calls join the outer one, so a batch commits as a whole."""
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
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

    def _read(self) -> contextlib.AbstractContextManager[psycopg.Connection[Any]]:
        return self.transaction(write=False)

    # Records

    def count(self) -> int:
        row = self.conn.execute("SELECT count(*) FROM records").fetchone()
        return int(row[0]) if row else 0

    def pinned_keys(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT id, key FROM records").fetchall())

    def taken_keys(self) -> set[str]:
        with self._read() as conn:
            keys = {row[0] for row in conn.execute("SELECT key FROM records")}
            keys.update(row[0] for row in conn.execute("SELECT alias FROM key_aliases"))
        return keys

    def upsert(self, records: Iterable[Record], *, restore: bool = False) -> ImportReport:
        """As `SQLiteStore.upsert`: new records keep their key, known ones keep theirs."""
        batch = list(records)

        def action(conn: psycopg.Connection[Any]) -> ImportReport:
            report = ImportReport()
            for record in batch:
                found = conn.execute(
                    "SELECT key, data FROM records WHERE id = %s FOR UPDATE", (record.id,)
                ).fetchone()
                if found is None:
                    report.new.append(self._insert(conn, record))
                    continue
                key, data = found
                stored = codec.loads(data)
                merged = _merge(stored, dataclasses.replace(record, key=key))
                if _comparable(merged) == _comparable(stored):
                    report.unchanged.append(key)
                    continue
                self._write_record(conn, merged, update=True)
                report.updated.append(key)
            return report

        return self._write(action)

    def _insert(self, conn: psycopg.Connection[Any], record: Record) -> str:
        if not record.key:
            raise BibError(f"record {record.id} has no citation key")
        key = self._free_key(conn, record.key)
        self._write_record(conn, dataclasses.replace(record, key=key), update=False)
        return key

    @staticmethod
    def _free_key(conn: psycopg.Connection[Any], key: str) -> str:
        candidate = key
        suffix = ord("a")
        while conn.execute(
            "SELECT 1 FROM records WHERE lower(key) = lower(%s)"
            " UNION ALL SELECT 1 FROM key_aliases WHERE lower(alias) = lower(%s)",
            (candidate, candidate),
        ).fetchone():
            suffix += 1
            candidate = f"{key}{chr(suffix)}" if suffix <= ord("z") else f"{key}-{suffix}"
        return candidate

    def _write_record(self, conn: psycopg.Connection[Any], record: Record, *, update: bool) -> None:
        stamp = now()
        personal = self._personal(conn, record.id)
        values = (
            record.key,
            record.venue,
            record.year,
            record.title,
            record.abstract,
            codec.dumps(record),
            _tags_text(record, personal),
            stamp,
            record.id,
        )
        if update:
            conn.execute(
                "UPDATE records SET key = %s, venue = %s, year = %s, title = %s, abstract = %s,"
                " data = %s, tags_text = %s, updated = %s WHERE id = %s",
                values,
            )
            conn.execute("DELETE FROM record_tags WHERE record_id = %s", (record.id,))
        else:
            conn.execute(
                "INSERT INTO records (key, venue, year, title, abstract, data, tags_text, updated,"
                " id, added) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (*values, stamp),
            )
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO record_tags (record_id, kind, value) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                [(record.id, str(t.kind), t.value) for t in record.tags],
            )

    @staticmethod
    def _personal(conn: psycopg.Connection[Any], record_id: str) -> list[str]:
        rows = conn.execute(
            'SELECT tag FROM personal_tags WHERE record_id = %s ORDER BY lower(tag) COLLATE "C"',
            (record_id,),
        )
        return [row[0] for row in rows]

    def _record_row(self, conn: psycopg.Connection[Any], key: str) -> tuple[str, str, str]:
        row = conn.execute(
            "SELECT id, key, data FROM records WHERE lower(key) = lower(%s)", (key,)
        ).fetchone()
        if row is None:
            row = conn.execute(
                "SELECT r.id, r.key, r.data FROM key_aliases a JOIN records r ON r.id = a.record_id"
                " WHERE lower(a.alias) = lower(%s)",
                (key,),
            ).fetchone()
        if row is None:
            raise self._unknown_key(conn, key)
        return row[0], row[1], row[2]

    @staticmethod
    def _unknown_key(conn: psycopg.Connection[Any], key: str) -> BibError:
        keys = [
            r[0]
            for r in conn.execute("SELECT key FROM records UNION SELECT alias FROM key_aliases")
        ]
        close = difflib.get_close_matches(key, keys, n=3, cutoff=0.6)
        if not close:
            close = difflib.get_close_matches(key.lower(), [k.lower() for k in keys], n=3)
            close = [k for k in keys if k.lower() in close][:3]
        hint = f"; did you mean: {', '.join(close)}?" if close else "; see `bib list`"
        return BibError(f"unknown key '{key}'{hint}")

    def resolve(self, key: str) -> Record:
        with self._read() as conn:
            _, current, data = self._record_row(conn, key)
        return codec.loads(data, key=current)

    def rekey(self, old: str, new: str) -> Record:
        check_key(new)

        def action(conn: psycopg.Connection[Any]) -> Record:
            record_id, current, data = self._record_row(conn, old)
            if new == current:
                return codec.loads(data, key=current)
            owner = conn.execute(
                "SELECT id FROM records WHERE lower(key) = lower(%s) UNION SELECT record_id"
                " FROM key_aliases WHERE lower(alias) = lower(%s)",
                (new, new),
            ).fetchone()
            if owner is not None and owner[0] != record_id:
                raise BibError(f"key '{new}' already names another record")
            conn.execute("DELETE FROM key_aliases WHERE lower(alias) = lower(%s)", (new,))
            if new.casefold() != current.casefold():
                conn.execute(
                    "INSERT INTO key_aliases (alias, record_id, created) VALUES (%s, %s, %s)",
                    (current, record_id, now()),
                )
            record = codec.loads(data, key=new)
            conn.execute(
                "UPDATE records SET key = %s, data = %s, updated = %s WHERE id = %s",
                (new, codec.dumps(record), now(), record_id),
            )
            return record

        return self._write(action)

    def complete_keys(self, prefix: str, *, limit: int = 200) -> list[str]:
        """Keys and aliases of live records starting with `prefix` (any case), for the shell."""
        pattern = re.sub(r"([\\%_])", r"\\\1", prefix) + "%"
        with self._read() as conn:
            rows = conn.execute(
                "SELECT key FROM records WHERE key ILIKE %s AND deleted_at IS NULL"
                " UNION SELECT a.alias FROM key_aliases a JOIN records r ON r.id = a.record_id"
                ' WHERE a.alias ILIKE %s AND r.deleted_at IS NULL ORDER BY 1 COLLATE "C" LIMIT %s',
                (pattern, pattern, limit),
            ).fetchall()
        return [row[0] for row in rows]

    def remove(self, keys: Sequence[str]) -> list[str]:
        """Soft-delete records (notes, ratings and tags kept); their current keys."""
        return self._set_deleted(keys, now())

    def restore(self, keys: Sequence[str]) -> list[str]:
        """Bring removed records back; their current keys."""
        return self._set_deleted(keys, None)

    def _set_deleted(self, keys: Sequence[str], stamp: str | None) -> list[str]:
        def action(conn: psycopg.Connection[Any]) -> list[str]:
            done = []
            for key in keys:
                record_id, current, _ = self._record_row(conn, key)
                conn.execute("UPDATE records SET deleted_at = %s WHERE id = %s", (stamp, record_id))
                done.append(current)
            return done

        return self._write(action)

    # Record revisions, purge and attachments: not on PostgreSQL yet; each says so in one line.

    def edit_record(self, key: str, record: Record, *, origin: str = "edit") -> Entry:
        raise _not_yet("editing a record (bib edit, set, revert)")

    def record_history(self, key: str) -> list[RecordRevision]:
        raise _not_yet("record history")

    def purge(self, keys: Sequence[str]) -> list[str]:
        raise _not_yet("bib rm --purge")

    def attach(self, key: str, path: str, *, copied: bool = False) -> Attachment:
        raise _not_yet("attachments")

    def entry(self, key: str) -> Entry:
        with self._read() as conn:
            record_id = self._record_row(conn, key)[0]
            return self._entries(conn, "r.id = %s", [record_id], full=True)[0]

    def entries(self, filters: Filters = ALL, *, full: bool = False) -> list[Entry]:
        where, params = _where(filters)
        with self._read() as conn:
            return self._entries(conn, where, params, full=full)

    def _entries(
        self, conn: psycopg.Connection[Any], where: str, params: Sequence[Any], *, full: bool
    ) -> list[Entry]:
        rows = conn.execute(
            "SELECT r.id, r.key, r.data, r.added, r.updated, g.rating,"
            " coalesce(g.status, 'unread'),"
            ' (SELECT string_agg(tag, chr(31) ORDER BY lower(tag) COLLATE "C")'
            "   FROM personal_tags WHERE record_id = r.id),"
            " (SELECT count(*) FROM notes WHERE record_id = r.id AND deleted_at IS NULL)"
            f" FROM records r LEFT JOIN reading g ON g.record_id = r.id WHERE {where}"
            ' ORDER BY lower(r.key) COLLATE "C", r.key COLLATE "C"',
            params,
        ).fetchall()
        result = []
        for record_id, key, data, added, updated, rating, status, tags, count in rows:
            aliases: tuple[str, ...] = ()
            notes: tuple[Note, ...] = ()
            if full:
                aliases = self._aliases(conn, record_id)
                notes = tuple(
                    self._notes(conn, "n.record_id = %s AND n.deleted_at IS NULL", [record_id])
                )
            result.append(
                Entry(
                    record=codec.loads(data, key=key),
                    aliases=aliases,
                    rating=rating,
                    status=Status(status),
                    personal_tags=tuple(tags.split("\x1f")) if tags else (),
                    notes=notes,
                    note_count=int(count),
                    added=added,
                    updated=updated,
                )
            )
        return result

    @staticmethod
    def _aliases(conn: psycopg.Connection[Any], record_id: str) -> tuple[str, ...]:
        rows = conn.execute(
            "SELECT alias FROM key_aliases WHERE record_id = %s ORDER BY created, alias",
            (record_id,),
        )
        return tuple(row[0] for row in rows)

    # Notes

    @staticmethod
    def _notes(conn: psycopg.Connection[Any], where: str, params: Sequence[Any]) -> list[Note]:
        rows = conn.execute(
            f"SELECT {_NOTE_COLUMNS} FROM notes n JOIN records r ON r.id = n.record_id"
            f" WHERE {where} ORDER BY n.id",
            params,
        )
        return [Note(*row) for row in rows]

    def _note(self, conn: psycopg.Connection[Any], note_id: int, *, lock: bool = False) -> Note:
        found = self._locked(conn, note_id) if lock else self._notes(conn, "n.id = %s", [note_id])
        if not found:
            raise BibError(f"unknown note {note_id}; see `bib note list`")
        return found[0]

    @staticmethod
    def _locked(conn: psycopg.Connection[Any], note_id: int) -> list[Note]:
        """The note with its row locked until the transaction ends: two edits take turns, and
        the second one sees (and keeps as a revision) the text the first one wrote."""
        rows = conn.execute(
            f"SELECT {_NOTE_COLUMNS} FROM notes n JOIN records r ON r.id = n.record_id"
            " WHERE n.id = %s FOR UPDATE OF n",
            (note_id,),
        )
        return [Note(*row) for row in rows]

    def note(self, note_id: int) -> Note:
        with self._read() as conn:
            return self._note(conn, note_id)

    def notes(self, key: str | None = None, *, include_deleted: bool = False) -> list[Note]:
        with self._read() as conn:
            clauses: list[str] = []
            params: list[Any] = []
            if key is not None:
                clauses.append("n.record_id = %s")
                params.append(self._record_row(conn, key)[0])
            if not include_deleted:
                clauses.append("n.deleted_at IS NULL")
            return self._notes(conn, " AND ".join(clauses) or "TRUE", params)

    def add_note(self, key: str, body: str) -> Note:
        body = _text(body)

        def action(conn: psycopg.Connection[Any]) -> Note:
            record_id, current, _ = self._record_row(conn, key)
            stamp = now()
            note_uuid = str(uuid.uuid4())
            row = conn.execute(
                "INSERT INTO notes (uuid, record_id, body, created, updated)"
                " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                (note_uuid, record_id, body, stamp, stamp),
            ).fetchone()
            assert row is not None
            return Note(int(row[0]), note_uuid, record_id, current, body, stamp, stamp)

        return self._write(action)

    def edit_note(self, note_id: int, body: str) -> Note:
        """Replace a note's text, keeping the previous text as a revision (row-locked)."""
        body = _text(body)

        def action(conn: psycopg.Connection[Any]) -> Note:
            note = self._note(conn, note_id, lock=True)
            if note.deleted:
                raise BibError(f"note {note_id} is deleted; `bib note restore {note_id}` first")
            if body == note.body:
                return note
            stamp = now()
            conn.execute(
                "INSERT INTO note_revisions (note_id, body, created, replaced)"
                " VALUES (%s, %s, %s, %s)",
                (note_id, note.body, note.updated, stamp),
            )
            conn.execute(
                "UPDATE notes SET body = %s, updated = %s WHERE id = %s", (body, stamp, note_id)
            )
            return dataclasses.replace(note, body=body, updated=stamp)

        return self._write(action)

    def delete_note(self, note_id: int) -> Note:
        def action(conn: psycopg.Connection[Any]) -> Note:
            note = self._note(conn, note_id, lock=True)
            if note.deleted:
                raise BibError(f"note {note_id} is already deleted")
            stamp = now()
            conn.execute("UPDATE notes SET deleted_at = %s WHERE id = %s", (stamp, note_id))
            return dataclasses.replace(note, deleted_at=stamp)

        return self._write(action)

    def restore_note(self, note_id: int) -> Note:
        def action(conn: psycopg.Connection[Any]) -> Note:
            note = self._note(conn, note_id, lock=True)
            if not note.deleted:
                raise BibError(f"note {note_id} is not deleted")
            conn.execute("UPDATE notes SET deleted_at = NULL WHERE id = %s", (note_id,))
            return dataclasses.replace(note, deleted_at=None)

        return self._write(action)

    def history(self, note_id: int) -> list[Revision]:
        with self._read() as conn:
            self._note(conn, note_id)
            rows = conn.execute(
                "SELECT body, created, replaced FROM note_revisions WHERE note_id = %s ORDER BY id",
                (note_id,),
            )
            return [Revision(*row) for row in rows]

    # Rating, status, personal tags

    def rate(self, key: str, rating: int | None) -> Entry:
        if rating is not None and not 1 <= rating <= 5:
            raise BibError(f"rating must be 1 to 5, not {rating}")

        def action(conn: psycopg.Connection[Any]) -> Entry:
            record_id = self._record_row(conn, key)[0]
            conn.execute(
                "INSERT INTO reading (record_id, rating, updated) VALUES (%s, %s, %s)"
                " ON CONFLICT (record_id) DO UPDATE SET rating = excluded.rating,"
                " updated = excluded.updated",
                (record_id, rating, now()),
            )
            return self._entries(conn, "r.id = %s", [record_id], full=False)[0]

        return self._write(action)

    def set_status(self, key: str, status: Status) -> Entry:
        status = Status(status)

        def action(conn: psycopg.Connection[Any]) -> Entry:
            record_id = self._record_row(conn, key)[0]
            conn.execute(
                "INSERT INTO reading (record_id, status, updated) VALUES (%s, %s, %s)"
                " ON CONFLICT (record_id) DO UPDATE SET status = excluded.status,"
                " updated = excluded.updated",
                (record_id, str(status), now()),
            )
            return self._entries(conn, "r.id = %s", [record_id], full=False)[0]

        return self._write(action)

    def tag(self, key: str, add: Sequence[str], remove: Sequence[str]) -> Entry:
        for name in (*add, *remove):
            check_tag(name)

        def action(conn: psycopg.Connection[Any]) -> Entry:
            record_id, _, data = self._record_row(conn, key)
            conn.execute("SELECT 1 FROM records WHERE id = %s FOR UPDATE", (record_id,))
            stamp = now()
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO personal_tags (record_id, tag, added) VALUES (%s, %s, %s)"
                    " ON CONFLICT DO NOTHING",
                    [(record_id, name, stamp) for name in add],
                )
                cursor.executemany(
                    "DELETE FROM personal_tags WHERE record_id = %s AND lower(tag) = lower(%s)",
                    [(record_id, name) for name in remove],
                )
            self._refresh_tags_text(conn, record_id, codec.loads(data))
            return self._entries(conn, "r.id = %s", [record_id], full=False)[0]

        return self._write(action)

    def _refresh_tags_text(
        self, conn: psycopg.Connection[Any], record_id: str, record: Record
    ) -> None:
        conn.execute(
            "UPDATE records SET tags_text = %s WHERE id = %s",
            (_tags_text(record, self._personal(conn, record_id)), record_id),
        )

    # Search

    def search(self, query: str, *, limit: int = 20, raw: bool = False) -> list[Hit]:
        """Rank papers by ts_rank over the weighted tsvector (title A, tags B, abstract C)
        and their notes, with ts_headline snippets.

        Plain queries mean what they mean on SQLite: every word must occur, `word*` is a
        prefix, a word with punctuation (`llm-as-a-judge`) is a phrase. `raw=True` passes
        PostgreSQL `to_tsquery` syntax through and reports a malformed query as bad input.
        """
        text = query.strip() if raw else ts_query(query)
        if not text:
            raise BibError("empty search query")
        start, end = MARK
        options = f"StartSel={start}, StopSel={end}, MaxWords=16, MinWords=8"
        whole = f"StartSel={start}, StopSel={end}, HighlightAll=true"
        hits: dict[str, dict[str, Any]] = {}
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
        for key, title, score, *snippets in records:
            hit = hits.setdefault(key, {"title": title, "score": score, "snippets": []})
            for name, snippet in zip(("title", "abstract", "tags"), snippets, strict=True):
                if start in snippet:
                    hit["snippets"].append((name, snippet))
        for key, title, score, note_id, snippet in notes:
            hit = hits.setdefault(key, {"title": title, "score": score, "snippets": []})
            hit["score"] = min(hit["score"], score)
            hit["snippets"].append((f"note {note_id}", snippet))
        ranked = sorted(hits.items(), key=lambda item: (item[1]["score"], item[0]))[:limit]
        return [
            Hit(key, h["title"], round(float(h["score"]), 4), tuple(h["snippets"]))
            for key, h in ranked
        ]

    # Exchange

    def dump_annotations(self, filters: Filters = ALL) -> dict[str, Any]:
        """Every annotated paper in the exchange format (as `SQLiteStore.dump_annotations`)."""
        where, params = _where(filters)
        with self._read() as conn:
            papers = []
            for entry in self._entries(conn, where, params, full=False):
                record = entry.record
                has_notes = conn.execute(
                    "SELECT 1 FROM notes WHERE record_id = %s LIMIT 1", (record.id,)
                ).fetchone()
                annotated = entry.rating or entry.status != Status.UNREAD or entry.personal_tags
                if not (entry.note_count or annotated or has_notes):
                    continue
                reading = conn.execute(
                    "SELECT updated FROM reading WHERE record_id = %s", (record.id,)
                ).fetchone()
                notes = []
                for note in self._notes(conn, "n.record_id = %s", [record.id]):
                    revisions = conn.execute(
                        "SELECT body, created, replaced FROM note_revisions WHERE note_id = %s"
                        " ORDER BY id",
                        (note.id,),
                    ).fetchall()
                    notes.append(
                        {
                            "uuid": note.uuid,
                            "body": note.body,
                            "created": note.created,
                            "updated": note.updated,
                            "deleted": note.deleted_at,
                            "revisions": [
                                {"body": b, "created": c, "replaced": r} for b, c, r in revisions
                            ],
                        }
                    )
                papers.append(
                    {
                        "id": record.id,
                        "key": record.key,
                        "aliases": list(self._aliases(conn, record.id)),
                        "title": record.title,
                        "authors": [a.display for a in record.authors],
                        "year": record.year,
                        "venue": record.venue,
                        "url": record.url,
                        "rating": entry.rating,
                        "status": str(entry.status),
                        "reading_updated": reading[0] if reading else None,
                        "tags": list(entry.personal_tags),
                        "notes": notes,
                        "record": codec.to_dict(record),
                    }
                )
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "exported": now(),
            "papers": papers,
        }

    def load_annotations(self, data: Mapping[str, Any]) -> NotesImportReport:
        """Merge an exported file in one transaction (as `SQLiteStore.load_annotations`)."""
        papers = [_normalized(paper) for paper in data["papers"]]

        def action(conn: psycopg.Connection[Any]) -> NotesImportReport:
            report = NotesImportReport()
            for paper in papers:
                record_id = self._import_paper(conn, paper, report)
                self._import_reading(conn, record_id, paper)
                with conn.cursor() as cursor:
                    cursor.executemany(
                        "INSERT INTO personal_tags (record_id, tag, added) VALUES (%s, %s, %s)"
                        " ON CONFLICT DO NOTHING",
                        [(record_id, name, now()) for name in paper.get("tags", ())],
                    )
                row = conn.execute("SELECT data FROM records WHERE id = %s", (record_id,))
                found = row.fetchone()
                assert found is not None
                self._refresh_tags_text(conn, record_id, codec.loads(found[0]))
                for note in paper.get("notes", ()):
                    self._import_note(conn, record_id, note, report)
            return report

        return self._write(action)

    def _import_paper(
        self, conn: psycopg.Connection[Any], paper: Mapping[str, Any], report: NotesImportReport
    ) -> str:
        row = conn.execute("SELECT id FROM records WHERE id = %s", (paper["id"],)).fetchone()
        if row is not None:
            return str(row[0])
        if "record" not in paper:
            raise BibError(
                f"paper {paper['key']} ({paper['id']}) is not in the library and the file "
                "has no record for it; `bib add` it first"
            )
        try:
            record = dataclasses.replace(codec.from_dict(paper["record"]), id=paper["id"])
        except (KeyError, ValueError, TypeError) as exc:
            raise BibError(f"paper {paper['key']}: unreadable record ({exc!r})") from None
        record = dataclasses.replace(record, key=record.key or paper["key"])
        self._insert(conn, record)
        report.papers_added += 1
        return record.id

    @staticmethod
    def _import_reading(
        conn: psycopg.Connection[Any], record_id: str, paper: Mapping[str, Any]
    ) -> None:
        stamp = paper.get("reading_updated")
        if stamp is None:
            return
        local = conn.execute(
            "SELECT updated FROM reading WHERE record_id = %s", (record_id,)
        ).fetchone()
        if local is not None and local[0] >= stamp:
            return
        conn.execute(
            "INSERT INTO reading (record_id, rating, status, updated) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (record_id) DO UPDATE SET rating = excluded.rating,"
            " status = excluded.status, updated = excluded.updated",
            (record_id, paper.get("rating"), paper.get("status", "unread"), stamp),
        )

    @staticmethod
    def _import_note(
        conn: psycopg.Connection[Any],
        record_id: str,
        note: Mapping[str, Any],
        report: NotesImportReport,
    ) -> None:
        row = conn.execute(
            "SELECT id, record_id, body, updated, deleted_at FROM notes WHERE uuid = %s FOR UPDATE",
            (note["uuid"],),
        ).fetchone()
        if row is None:
            inserted = conn.execute(
                "INSERT INTO notes (uuid, record_id, body, created, updated, deleted_at)"
                " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                (
                    note["uuid"],
                    record_id,
                    note["body"],
                    note["created"],
                    note["updated"],
                    note.get("deleted"),
                ),
            ).fetchone()
            assert inserted is not None
            note_id = inserted[0]
            report.notes_added += 1
        else:
            note_id, owner, body, updated, deleted_at = row
            if owner != record_id:
                raise BibError(f"note {note['uuid']} belongs to another paper in the library")
            changed = False
            if note["body"] != body and note["updated"] > updated:
                conn.execute(
                    "INSERT INTO note_revisions (note_id, body, created, replaced)"
                    " VALUES (%s, %s, %s, %s)",
                    (note_id, body, updated, note["updated"]),
                )
                conn.execute(
                    "UPDATE notes SET body = %s, updated = %s WHERE id = %s",
                    (note["body"], note["updated"], note_id),
                )
                changed = True
            if note.get("deleted") and deleted_at is None and note["deleted"] > updated:
                conn.execute(
                    "UPDATE notes SET deleted_at = %s WHERE id = %s", (note["deleted"], note_id)
                )
                changed = True
            if changed:
                report.notes_updated += 1
            else:
                report.unchanged += 1
        known = {
            (b, c)
            for b, c in conn.execute(
                "SELECT body, created FROM note_revisions WHERE note_id = %s", (note_id,)
            )
        }
        for revision in note.get("revisions", ()):
            if (revision["body"], revision["created"]) not in known:
                conn.execute(
                    "INSERT INTO note_revisions (note_id, body, created, replaced)"
                    " VALUES (%s, %s, %s, %s)",
                    (note_id, revision["body"], revision["created"], revision["replaced"]),
                )

    # Whole-library copy (annotations.copy)

    def rows(self, table: str, columns: Sequence[str], order: str) -> list[dict[str, Any]]:
        """Every row of one library table, as column -> value, ordered by `order`."""
        names = ", ".join(columns)
        with self._read() as conn:
            result = conn.execute(f"SELECT {names} FROM {table} ORDER BY {order}").fetchall()
        return [dict(zip(columns, row, strict=True)) for row in result]

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


def _not_yet(what: str) -> OperationError:
    return OperationError(
        f"{what} is not available on a PostgreSQL library yet; use a SQLite library for it"
    )


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


def _text(body: str) -> str:
    """A note body PostgreSQL can store: its text type cannot hold NUL."""
    body = _note_body(body)
    if "\x00" in body:
        raise BibError("the note contains a NUL character, which PostgreSQL cannot store")
    return body


def _where(filters: Filters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for name in filters.tags:
        clauses.append(
            "r.id IN (SELECT record_id FROM record_tags WHERE lower(value) = lower(%s)"
            " UNION SELECT record_id FROM personal_tags WHERE lower(tag) = lower(%s))"
        )
        params += [name, name]
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
