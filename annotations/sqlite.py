"""The embedded SQLite library: one file, WAL, foreign keys, every change one transaction.

Writers take the write lock up front (`BEGIN IMMEDIATE`), so a transaction never fails
half-way on a lock; waiting for the lock uses SQLite's busy timeout and then a retry with
backoff, and only a library busy for minutes becomes an OperationError (never the raw
"database is locked"). Nothing ever cascades: notes point to the stable record id, a
re-import updates a record in place, and a note can only be soft-deleted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import random
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from annotations import codec, migrate
from annotations.names import check_user, current_user
from annotations.rows import ALL, EDITABLE, RowStore, now, ranked_hits
from annotations.store import (
    MARK,
    Filters,
    Hit,
)
from annotations.sync_state import (
    ConflictId,
    OpenConflict,
    RowId,
    SQLiteSyncTables,
    SyncRow,
    cleared,
)
from bib.atomic import destination
from bib.errors import BibError, OperationError
from bib.failures import describe

__all__ = ["ALL", "EDITABLE", "SQLiteStore", "connect", "now"]

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5_000
CACHE_KIB = 64 * 1024
LOCK_DEADLINE_S = 120.0
"""How long a writer keeps retrying for the write lock before giving up with a clear error."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _retry(action: Callable[[], T], what: str) -> T:
    """Run `action` until it gets past a busy library, with jittered exponential backoff."""
    deadline = time.monotonic() + LOCK_DEADLINE_S
    delay = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            if time.monotonic() >= deadline:
                raise OperationError(
                    f"the library is busy ({what}): another bib kept it locked for "
                    f"{LOCK_DEADLINE_S:.0f} s; try again"
                ) from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.5)


def create_private(path: Path) -> None:
    """Create the library file readable by its owner only, before SQLite opens it.

    SQLite gives the -wal and -shm files the permissions of the database file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _tighten(path: Path) -> None:
    """A library (and its -wal/-shm) readable by others is made private again: notes are
    personal, and an older bib or a copy may have left the file 0644."""
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(OSError):
            mode = part.stat().st_mode
            if mode & 0o077:
                os.chmod(part, mode & 0o700)


def _writable(place: Path) -> bool:
    """Whether `place` takes writes: permissions, and a file system not mounted read-only."""
    if not os.access(place, os.W_OK):
        return False
    try:
        return not os.statvfs(place).f_flag & os.ST_RDONLY
    except OSError:
        return True


def _read_only(path: Path) -> bool:
    """Whether an existing library can only be read here: the file, or its folder (where
    SQLite keeps the -wal and -shm files), refuses writes."""
    return path.exists() and not (_writable(path) and _writable(path.parent))


def _open(path: Path | str, read_only: bool) -> sqlite3.Connection:
    target, uri = str(path), False
    if read_only:
        # Where SQLite cannot create its -shm file nobody can write the library, so it need
        # not look for writers (immutable).
        immutable = "" if _writable(Path(path).parent) else "&immutable=1"
        target, uri = f"{Path(path).resolve().as_uri()}?mode=ro{immutable}", True
    return sqlite3.connect(
        target,
        timeout=BUSY_TIMEOUT_MS / 1000,
        isolation_level=None,
        check_same_thread=False,
        uri=uri,
    )


def connect(
    path: Path | str,
    *,
    upto: int | None = None,
    migrations: Path | None = None,
    user: str | None = None,
) -> sqlite3.Connection:
    """Open (creating and migrating when needed) a library; `upto` stops migrations early;
    `migrations` is another folder of migrations (default: the shipped ones); `user` owns
    rows a migration gives an owner (default: the current user).

    A library on a place that refuses writes opens read-only: listing, showing, searching and
    exporting work, and a change fails with one line."""
    memory = str(path) == ":memory:"
    read_only = not memory and _read_only(Path(path))
    if not memory and not read_only:
        create_private(Path(path))
        _tighten(Path(path))
    conn = _open(path, read_only)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")
        # A page cache big enough for the search index of a large library (allocated only
        # as used); not mmap, which turns an I/O error into SIGBUS instead of an error.
        conn.execute(f"PRAGMA cache_size = {-CACHE_KIB:d}")
        current = migrate.user_version(conn)
        if current > migrate.latest(migrations):
            migrate.apply(conn, source=migrations)  # raises: written by a newer bib
        if read_only:
            if migrate.pending(conn, upto=upto, source=migrations):
                raise OperationError(
                    f"the library is read-only here and needs a schema upgrade (it has version "
                    f"{current}); open it once where it can be written"
                )
            return conn
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            _retry(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone(), "enabling WAL")
        if migrate.pending(conn, upto=upto, source=migrations):
            if current > 0 and not memory:
                backup_to(conn, Path(f"{path}.schema-{current}.bak"))
            _retry(lambda: conn.execute("BEGIN IMMEDIATE"), "migrating")
            try:
                migrate.apply(conn, upto=upto, source=migrations, user=user or current_user())
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
    except BaseException:
        conn.close()
        raise
    return conn


def _is_live_file(dest: Path, library: Path) -> bool:
    """Whether `dest`, links followed, is the library file or one of SQLite's files beside it."""
    live = [library, Path(f"{library}-wal"), Path(f"{library}-shm"), Path(f"{library}-journal")]
    target = dest.resolve()
    for path in live:
        if target == path.resolve():
            return True
        with contextlib.suppress(OSError):
            if dest.exists() and path.exists() and os.path.samefile(dest, path):
                return True
    return False


def backup_to(conn: sqlite3.Connection, dest: Path) -> None:
    """Copy a library with SQLite's backup API into a private temp file, check it, fsync it,
    and rename it over `dest`: `dest` is the old file or a complete new one, never half."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    os.chmod(tmp, 0o600)
    try:
        target = sqlite3.connect(tmp)
        try:
            _retry(lambda: conn.backup(target), "backing up")
            target.execute("PRAGMA journal_mode = DELETE")
            check = target.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise OperationError(f"backup failed its integrity check: {check}")
        finally:
            target.close()
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, dest)
        with contextlib.suppress(OSError):
            directory = os.open(dest.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, sqlite3.DatabaseError):
            raise OperationError(f"backup failed: {_sqlite_reason(exc)}", dest) from None
        raise


def _sqlite_reason(exc: sqlite3.DatabaseError) -> str:
    """SQLite's message, in the words `bib.failures` uses for the same failure."""
    if (getattr(exc, "sqlite_errorname", "") or "").startswith("SQLITE_FULL"):
        return "no space left on device"
    return str(exc)


_FAILED_CODES = {"SQLITE_FULL", "SQLITE_IOERR", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_NOMEM"}
"""SQLite's result codes (primary, without the extended part) of a library that could not be
opened although nothing is wrong with it: a full disk, an I/O error, a lock. Exit 1; the rest
(not a database, corrupt, cannot open the path) say the file or place is wrong: exit 2."""


def _open_failure(exc: sqlite3.DatabaseError, path: Path | str) -> BibError:
    """A failed open as one line: a failed operation (exit 1) or a bad library (exit 2)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    primary = "_".join(name.split("_")[:2])
    if primary in _FAILED_CODES:
        return OperationError(f"cannot open the library: {_sqlite_reason(exc)}", path)
    return BibError(f"cannot open the library: {exc}", path)


def _os_open_failure(exc: OSError, path: Path) -> BibError:
    """An OSError of preparing the library file, worded by `bib.failures` (a place through a
    file reads as "File exists" from mkdir: it is a path that is not a directory)."""
    if exc.errno == errno.EEXIST and any(p.is_file() for p in path.parents):
        exc = OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
    failure = describe(OSError(exc.errno, exc.strerror))
    error = OperationError if failure.exit_code == 1 else BibError
    return error(f"cannot open the library: {failure.message}", path)


def _remove_library_files(path: Path) -> None:
    for part in (path, *(Path(f"{path}{suffix}") for suffix in ("-wal", "-shm", "-journal"))):
        with contextlib.suppress(OSError):
            part.unlink()


class SQLiteStore(RowStore):
    """The library in one SQLite file (see the module docstring for the guarantees)."""

    def __init__(self, path: Path | str, *, upto: int | None = None, user: str | None = None):
        self.path = None if str(path) == ":memory:" else Path(path)
        self.user = check_user(user) if user is not None else current_user()
        new = self.path is not None and not os.path.lexists(self.path)
        try:
            self.conn = connect(path, upto=upto, user=self.user)
        except BaseException as exc:
            if new and self.path is not None:
                _remove_library_files(self.path)  # a failed first open leaves no empty library
            if isinstance(exc, sqlite3.DatabaseError):
                raise _open_failure(exc, path) from None
            if isinstance(exc, OSError):
                raise _os_open_failure(exc, Path(path)) from None
            raise
        self._depth = 0

    # Lifecycle and transactions

    @contextlib.contextmanager
    def _outermost(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """The outermost transaction: the write lock up front, a refusal as one line."""
        begin = "BEGIN IMMEDIATE" if write else "BEGIN"
        _retry(lambda: self.conn.execute(begin), "waiting for the write lock")
        self._depth = 1
        try:
            yield self.conn
        except BaseException as exc:
            self._depth = 0
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.DatabaseError):
                raise OperationError(
                    f"the library refused the change: {_sqlite_reason(exc)}"
                ) from exc
            raise
        self._depth = 0
        try:
            _retry(lambda: self.conn.execute("COMMIT"), "committing")
        except sqlite3.DatabaseError as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise OperationError(f"the library could not save the change: {exc}") from exc

    # Dialect (annotations.rows holds the rest): keys, aliases and tags are COLLATE NOCASE
    # columns, so plain comparisons ignore case and use their indexes; BEGIN IMMEDIATE
    # serializes writers, so nothing needs a row lock.

    TAG_ORDER = "tag"
    KEY_ORDER = "r.key"
    TAGS_OF_RECORD = (
        "(SELECT group_concat(tag, char(31)) FROM"
        " (SELECT tag FROM personal_tags WHERE record_id = r.id ORDER BY tag))"
    )

    def _where(self, filters: Filters) -> tuple[str, list[Any]]:
        return _where(filters)

    def complete_keys(self, prefix: str, *, limit: int = 200) -> list[str]:
        """Keys and aliases of live records starting with `prefix` (any case), for the shell:
        one indexed query, no record is decoded."""
        pattern = re.sub(r"([\\%_])", r"\\\1", prefix) + "%"
        with self._read() as conn:
            rows = conn.execute(
                "SELECT key FROM records WHERE key LIKE ? ESCAPE '\\' AND deleted_at IS NULL"
                " UNION SELECT a.alias FROM key_aliases a JOIN records r ON r.id = a.record_id"
                " WHERE a.alias LIKE ? ESCAPE '\\' AND r.deleted_at IS NULL ORDER BY 1 LIMIT ?",
                (pattern, pattern, limit),
            )
            return [row[0] for row in rows]

    # Record revisions, removal, attachments
    # Search

    def search(
        self, query: str, *, limit: int = 20, raw: bool = False, also: Sequence[str] = ()
    ) -> list[Hit]:
        """Rank papers by bm25 over titles, abstracts, tags and notes, with snippets.

        Plain queries are quoted word by word (every word must occur; `word*` is a prefix);
        `raw=True` passes FTS5 syntax through and reports a malformed query as bad input.
        `also`: words (tag values) any of which matches as well as the query does.
        """
        match = query.strip() if raw else fts_query(query)
        if not match:
            raise BibError("empty search query")
        if also:  # tag values that match too (the topics below a topic searched for)
            match = " OR ".join([f"({match})", *(f"({fts_query(value)})" for value in also)])
        start, end = MARK
        with self._read() as conn:
            records = _fts_rows(
                conn,
                "SELECT r.key, r.title, f.rank,"
                f" highlight(records_fts, 0, '{start}', '{end}'),"
                f" snippet(records_fts, 1, '{start}', '{end}', '…', 16),"
                f" snippet(records_fts, 2, '{start}', '{end}', '…', 16)"
                " FROM records_fts f JOIN records r ON r.num = f.rowid"
                " WHERE records_fts MATCH ? AND rank MATCH 'bm25(10.0, 1.0, 5.0)'"
                " AND r.deleted_at IS NULL"
                " ORDER BY rank LIMIT ?",
                (match, limit),
            )
            notes = _fts_rows(
                conn,
                "SELECT r.key, r.title, f.rank, n.id,"
                f" snippet(notes_fts, 0, '{start}', '{end}', '…', 16)"
                " FROM notes_fts f JOIN notes n ON n.id = f.rowid"
                " JOIN records r ON r.id = n.record_id"
                " WHERE notes_fts MATCH ? AND n.deleted_at IS NULL AND r.deleted_at IS NULL"
                " ORDER BY rank LIMIT ?",
                (match, limit),
            )
        if isinstance(records, Exception) and isinstance(notes, Exception):
            raise BibError(f"malformed search query {query!r}: {records}")
        return ranked_hits(
            [] if isinstance(records, Exception) else records,
            [] if isinstance(notes, Exception) else notes,
            limit,
        )

    # Whole-library copy (annotations.copy)

    def insert_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> list[int | None]:
        """Insert rows inside the open transaction, skipping any that collide with one already
        here; per row the new id (notes) or 0 when inserted, None when skipped."""
        ids: list[int | None] = []
        for row in rows:
            columns = list(row)
            cursor = self.conn.execute(
                f"INSERT OR IGNORE INTO {table} ({', '.join(columns)})"
                f" VALUES ({', '.join('?' * len(columns))})",
                [row[c] for c in columns],
            )
            ids.append((cursor.lastrowid or 0) if cursor.rowcount == 1 else None)
        return ids

    # Safety

    def backup(self, dest: Path) -> None:
        """Write a consistent copy with SQLite's online backup API, then rename it into place.

        The live library and its -wal and -shm files are never a destination: renaming a copy
        over them would lose what the write-ahead log still holds."""
        dest = Path(dest)
        if self.path is not None and _is_live_file(dest, self.path):
            raise BibError("is the live library (or its -wal/-shm file); back up elsewhere", dest)
        where = destination(dest)  # a link is followed: the link stays, its target is replaced
        if not where.stream:
            backup_to(self.conn, where.path)
            return
        with tempfile.TemporaryDirectory() as scratch:  # a device or FIFO: written through
            copy = Path(scratch) / "backup.sqlite"
            backup_to(self.conn, copy)
            with copy.open("rb") as source, open(where.path, "wb") as stream:
                shutil.copyfileobj(source, stream)

    def integrity(self) -> str:
        return str(self.conn.execute("PRAGMA integrity_check").fetchone()[0])

    # Zotero sync state: the SQL lives in annotations/sync_state.py

    def sync_library_version(self, library: str) -> int:
        return SQLiteSyncTables(self.conn).library_version(library)

    def set_sync_library_version(self, library: str, version: int) -> None:
        SQLiteSyncTables(self.conn).set_library_version(library, version)

    def sync_rows(self, library: str) -> dict[RowId, SyncRow]:
        return SQLiteSyncTables(self.conn).rows(library)

    def sync_pushed(self, library: str, ids: list[RowId]) -> dict[RowId, dict[str, Any]]:
        return SQLiteSyncTables(self.conn).pushed(library, ids)

    def save_sync_rows(self, library: str, rows: list[SyncRow]) -> None:
        SQLiteSyncTables(self.conn).save(library, rows)

    def forget_sync_rows(self, library: str, rows: list[SyncRow]) -> None:
        SQLiteSyncTables(self.conn).forget(library, rows)

    def sync_conflicts(self, library: str) -> list[OpenConflict]:
        return SQLiteSyncTables(self.conn).conflicts(library)

    def save_sync_conflicts(self, library: str, conflicts: list[OpenConflict]) -> None:
        SQLiteSyncTables(self.conn).save_conflicts(library, conflicts)

    def drop_sync_conflicts(self, library: str, ids: list[ConflictId]) -> None:
        SQLiteSyncTables(self.conn).drop_conflicts(library, ids)

    def sync_clear_fields(self, key: str, fields: list[str]) -> list[str]:
        """Empty record fields that were emptied in Zotero (an import never empties one),
        except those the user edited; the old version stays as a revision (origin
        `zotero`). Returns the fields emptied."""
        with self.transaction() as conn:
            record_id, current, _ = self._record_row(conn, key)
            stored = self._stored(conn, record_id, current, lock=True)
            (user_fields,) = conn.execute(
                "SELECT user_fields FROM records WHERE id = ?", (record_id,)
            ).fetchone()
            clear = cleared(stored, fields, codec.json_list(user_fields))
            if clear:
                self._keep_revision(conn, record_id, "zotero")
                self._write_record(conn, dataclasses.replace(stored, **clear), update=True)
            return sorted(clear)


def _fts_rows(
    conn: sqlite3.Connection, sql: str, params: Sequence[Any]
) -> list[Any] | sqlite3.OperationalError:
    """Rows of one index, or the error a query malformed for it raised (column filters
    name columns of one index only, so the caller decides when both failed)."""
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if _is_busy(exc):
            raise
        return exc


def fts_query(text: str) -> str:
    """User words as an FTS5 query that cannot be malformed: each word quoted, all required."""
    terms = []
    for word in _CONTROL.sub(" ", text).split():
        prefix = word.endswith("*") and len(word) > 1
        word = word.rstrip("*") if prefix else word
        if not word:
            continue
        terms.append('"' + word.replace('"', '""') + '"' + ("*" if prefix else ""))
    return " ".join(terms)


def _where(filters: Filters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for tag in filters.tags:
        values = filters.tag_values(tag)
        marks = ", ".join("?" * len(values))
        clauses.append(
            f"r.id IN (SELECT record_id FROM record_tags WHERE value IN ({marks})"
            f" UNION SELECT record_id FROM personal_tags WHERE tag IN ({marks}))"
        )
        params += [*values, *values]
    if filters.status is not None:
        clauses.append("coalesce(g.status, 'unread') = ?")
        params.append(str(filters.status))
    if filters.min_rating is not None:
        clauses.append("g.rating >= ?")
        params.append(filters.min_rating)
    if filters.venue:
        clauses.append("r.venue = ? COLLATE NOCASE")
        params.append(filters.venue)
    if filters.deleted is not None:
        clauses.append("r.deleted_at IS NOT NULL" if filters.deleted else "r.deleted_at IS NULL")
    return " AND ".join(clauses) or "TRUE", params
