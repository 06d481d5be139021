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
import difflib
import errno
import json
import os
import random
import re
import shutil
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from annotations import codec, migrate
from annotations.names import check_key, check_tag
from annotations.store import (
    MARK,
    Attachment,
    Entry,
    FieldConflict,
    Filters,
    Hit,
    ImportReport,
    Note,
    NotesImportReport,
    RecordRevision,
    Revision,
    Status,
)
from annotations.sync_state import RowId, SQLiteSyncTables, SyncRow
from bib.atomic import destination
from bib.errors import BibError, OperationError
from bib.failures import describe
from bib.record import Record

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5_000
CACHE_KIB = 64 * 1024
LOCK_DEADLINE_S = 120.0
"""How long a writer keeps retrying for the write lock before giving up with a clear error."""

ALL = Filters()

EXPORT_FORMAT = "bib-annotations"
EXPORT_VERSION = 1

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
EDITABLE = tuple(
    f.name for f in dataclasses.fields(Record) if f.name not in ("id", "key", "sources")
)
"""The Record fields `bib edit` and `bib set` change."""

PER_RECORD_TABLES = (
    "notes",
    "reading",
    "personal_tags",
    "record_tags",
    "key_aliases",
    "record_revisions",
    "attachments",
)
"""Tables whose rows belong to one record (`record_id`), deleted with it by a purge."""

_NOTE_COLUMNS = "n.id, n.uuid, n.record_id, r.key, n.body, n.created, n.updated, n.deleted_at"


def now() -> str:
    """UTC time with milliseconds, so that text order is time order."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


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
    path: Path | str, *, upto: int | None = None, migrations: Path | None = None
) -> sqlite3.Connection:
    """Open (creating and migrating when needed) a library; `upto` stops migrations early;
    `migrations` is another folder of migrations (default: the shipped ones).

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
                migrate.apply(conn, upto=upto, source=migrations)
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


class SQLiteStore:
    """The library in one SQLite file (see the module docstring for the guarantees)."""

    def __init__(self, path: Path | str, *, upto: int | None = None):
        self.path = None if str(path) == ":memory:" else Path(path)
        new = self.path is not None and not os.path.lexists(self.path)
        try:
            self.conn = connect(path, upto=upto)
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

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[sqlite3.Connection]:
        """One transaction; nested calls join the outer one, so a batch commits as a whole."""
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
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

    def _read(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return self.transaction(write=False)

    # Records

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM records").fetchone()[0])

    def pinned_keys(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT id, key FROM records"))

    def taken_keys(self) -> set[str]:
        """Every key that already names a record, current or alias."""
        with self._read() as conn:
            keys = {row[0] for row in conn.execute("SELECT key FROM records")}
            keys.update(row[0] for row in conn.execute("SELECT alias FROM key_aliases"))
        return keys

    def upsert(self, records: Iterable[Record], *, restore: bool = False) -> ImportReport:
        """Store records by id in one transaction: new ones keep their key, known ones keep theirs.

        An update never empties a field the stored record had, and never replaces a real
        title with a derived one; a field the user edited keeps the user's value (another
        incoming value is reported as a conflict); a removed record stays removed unless
        `restore`; annotations are untouched.
        """
        report = ImportReport()
        with self.transaction() as conn:
            for record in records:
                row = conn.execute(
                    "SELECT key, data, deleted_at, user_fields FROM records WHERE id = ?",
                    (record.id,),
                )
                found = row.fetchone()
                if found is None:
                    report.new.append(self._insert(conn, record))
                    continue
                key, data, deleted_at, user_fields = found
                if deleted_at is not None:
                    if not restore:
                        report.removed.append(key)
                        continue
                    conn.execute("UPDATE records SET deleted_at = NULL WHERE id = ?", (record.id,))
                    report.restored.append(key)
                stored = codec.loads(data)
                merged = _merge(stored, dataclasses.replace(record, key=key))
                merged, conflicts = _keep_user_fields(stored, merged, codec.json_list(user_fields))
                report.conflicts.extend(conflicts)
                if _comparable(merged) == _comparable(stored):
                    report.unchanged.append(key)
                    continue
                self._keep_revision(conn, record.id, "import")
                self._write_record(conn, merged, update=True)
                report.updated.append(key)
        return report

    def _insert(self, conn: sqlite3.Connection, record: Record) -> str:
        if not record.key:
            raise BibError(f"record {record.id} has no citation key")
        key = self._free_key(conn, record.key)
        self._write_record(conn, dataclasses.replace(record, key=key), update=False)
        return key

    @staticmethod
    def _free_key(conn: sqlite3.Connection, key: str) -> str:
        """The key, or the key with a letter suffix when a record or an alias already has it."""
        candidate = key
        suffix = ord("a")
        while conn.execute(
            "SELECT 1 FROM records WHERE key = ?"
            " UNION ALL SELECT 1 FROM key_aliases WHERE alias = ?",
            (candidate, candidate),
        ).fetchone():
            suffix += 1
            candidate = f"{key}{chr(suffix)}" if suffix <= ord("z") else f"{key}-{suffix}"
        return candidate

    def _write_record(self, conn: sqlite3.Connection, record: Record, *, update: bool) -> None:
        stamp = now()
        personal = [
            r[0]
            for r in conn.execute(
                "SELECT tag FROM personal_tags WHERE record_id = ? ORDER BY tag", (record.id,)
            )
        ]
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
                "UPDATE records SET key = ?, venue = ?, year = ?, title = ?, abstract = ?,"
                " data = ?, tags_text = ?, updated = ? WHERE id = ?",
                values,
            )
            conn.execute("DELETE FROM record_tags WHERE record_id = ?", (record.id,))
        else:
            conn.execute(
                "INSERT INTO records (key, venue, year, title, abstract, data, tags_text, updated,"
                " id, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, stamp),
            )
        conn.executemany(
            "INSERT OR IGNORE INTO record_tags (record_id, kind, value) VALUES (?, ?, ?)",
            [(record.id, str(t.kind), t.value) for t in record.tags],
        )

    def _record_row(self, conn: sqlite3.Connection, key: str) -> tuple[str, str, str]:
        """(id, key, data) of the record a key or alias names, or a did-you-mean error."""
        row = conn.execute("SELECT id, key, data FROM records WHERE key = ?", (key,)).fetchone()
        if row is None:
            row = conn.execute(
                "SELECT r.id, r.key, r.data FROM key_aliases a JOIN records r ON r.id = a.record_id"
                " WHERE a.alias = ?",
                (key,),
            ).fetchone()
        if row is None:
            raise self._unknown_key(conn, key)
        record_id, current, data = row
        return str(record_id), str(current), str(data)

    @staticmethod
    def _unknown_key(conn: sqlite3.Connection, key: str) -> BibError:
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
        """Give a record a new key on purpose; the old key stays as an alias that resolves."""
        check_key(new)
        with self.transaction() as conn:
            record_id, current, data = self._record_row(conn, old)
            if new == current:
                return codec.loads(data, key=current)
            owner = conn.execute(
                "SELECT id FROM records WHERE key = ? UNION SELECT record_id FROM key_aliases"
                " WHERE alias = ?",
                (new, new),
            ).fetchone()
            if owner is not None and owner[0] != record_id:
                raise BibError(f"key '{new}' already names another record")
            conn.execute("DELETE FROM key_aliases WHERE alias = ?", (new,))
            if new.casefold() != current.casefold():  # keys compare ignoring case
                conn.execute(
                    "INSERT INTO key_aliases (alias, record_id, created) VALUES (?, ?, ?)",
                    (current, record_id, now()),
                )
            record = codec.loads(data, key=new)
            conn.execute(
                "UPDATE records SET key = ?, data = ?, updated = ? WHERE id = ?",
                (new, codec.dumps(record), now(), record_id),
            )
        return record

    def entry(self, key: str) -> Entry:
        with self._read() as conn:
            record_id = self._record_row(conn, key)[0]
            return self._entries(conn, "r.id = ?", [record_id], full=True)[0]

    def entries(self, filters: Filters = ALL, *, full: bool = False) -> list[Entry]:
        where, params = _where(filters)
        with self._read() as conn:
            return self._entries(conn, where, params, full=full)

    def _entries(
        self, conn: sqlite3.Connection, where: str, params: Sequence[Any], *, full: bool
    ) -> list[Entry]:
        rows = conn.execute(
            "SELECT r.id, r.key, r.data, r.added, r.updated, r.deleted_at, r.user_fields,"
            " g.rating, coalesce(g.status, 'unread'),"
            " (SELECT group_concat(tag, char(31)) FROM"
            "   (SELECT tag FROM personal_tags WHERE record_id = r.id ORDER BY tag)),"
            " (SELECT count(*) FROM notes WHERE record_id = r.id AND deleted_at IS NULL)"
            f" FROM records r LEFT JOIN reading g ON g.record_id = r.id WHERE {where}"
            " ORDER BY r.key",
            params,
        ).fetchall()
        result = []
        for row in rows:
            record_id, key, data, added, updated, deleted_at, user_fields = row[:7]
            rating, status, tags, count = row[7:]
            record = codec.loads(data, key=key)
            aliases: tuple[str, ...] = ()
            notes: tuple[Note, ...] = ()
            attachments: tuple[Attachment, ...] = ()
            if full:
                attachments = tuple(
                    Attachment(path, bool(copied), stamp)
                    for path, copied, stamp in conn.execute(
                        "SELECT path, copied, added FROM attachments WHERE record_id = ?"
                        " ORDER BY id",
                        (record_id,),
                    )
                )
                aliases = tuple(
                    r[0]
                    for r in conn.execute(
                        "SELECT alias FROM key_aliases WHERE record_id = ? ORDER BY created",
                        (record_id,),
                    )
                )
                notes = tuple(
                    self._notes(conn, "n.record_id = ? AND n.deleted_at IS NULL", [record_id])
                )
            result.append(
                Entry(
                    record=record,
                    aliases=aliases,
                    rating=rating,
                    status=Status(status),
                    personal_tags=tuple(tags.split("\x1f")) if tags else (),
                    notes=notes,
                    note_count=count,
                    added=added,
                    updated=updated,
                    deleted_at=deleted_at,
                    user_fields=tuple(codec.json_list(user_fields)),
                    attachments=attachments,
                )
            )
        return result

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

    def edit_record(self, key: str, record: Record, *, origin: str = "edit") -> Entry:
        """Store `record` as the new version of the record `key` names, keeping the old one as
        a revision; every field it changes becomes the user's (imports never overwrite it).

        The id, key and sources stay the stored ones: a key change goes through `rekey`.
        """
        with self.transaction() as conn:
            record_id, current, data = self._record_row(conn, key)
            stored = codec.loads(data, key=current)
            incoming = dataclasses.replace(
                record, id=stored.id, key=current, sources=stored.sources
            )
            changed = [
                name for name in EDITABLE if getattr(stored, name) != getattr(incoming, name)
            ]
            if changed:
                self._keep_revision(conn, record_id, origin)
                self._write_record(conn, incoming, update=True)
                (user_fields,) = conn.execute(
                    "SELECT user_fields FROM records WHERE id = ?", (record_id,)
                ).fetchone()
                names = sorted({*codec.json_list(user_fields), *changed})
                conn.execute(
                    "UPDATE records SET user_fields = ? WHERE id = ?",
                    (json.dumps(names), record_id),
                )
            return self._entries(conn, "r.id = ?", [record_id], full=True)[0]

    @staticmethod
    def _keep_revision(conn: sqlite3.Connection, record_id: str, origin: str) -> None:
        """Copy the record's current version into its revisions, before it is replaced."""
        conn.execute(
            "INSERT INTO record_revisions (record_id, data, created, replaced, origin)"
            " SELECT id, data, updated, ?, ? FROM records WHERE id = ?",
            (now(), origin, record_id),
        )

    def record_history(self, key: str) -> list[RecordRevision]:
        """Every version of a record, oldest first; the current one last."""
        with self._read() as conn:
            record_id, current, data = self._record_row(conn, key)
            rows = conn.execute(
                "SELECT data, created, replaced, origin FROM record_revisions"
                " WHERE record_id = ? ORDER BY id",
                (record_id,),
            ).fetchall()
            (updated,) = conn.execute(
                "SELECT updated FROM records WHERE id = ?", (record_id,)
            ).fetchone()
        versions = [
            RecordRevision(number, codec.loads(text, key=current), created, replaced, origin)
            for number, (text, created, replaced, origin) in enumerate(rows, 1)
        ]
        versions.append(RecordRevision(len(rows) + 1, codec.loads(data, key=current), updated))
        return versions

    def remove(self, keys: Sequence[str]) -> list[str]:
        """Soft-delete records (notes, ratings and tags kept); their current keys."""
        return self._set_deleted(keys, now())

    def restore(self, keys: Sequence[str]) -> list[str]:
        """Bring removed records back; their current keys."""
        return self._set_deleted(keys, None)

    def _set_deleted(self, keys: Sequence[str], stamp: str | None) -> list[str]:
        done = []
        with self.transaction() as conn:
            for key in keys:
                record_id, current, _ = self._record_row(conn, key)
                conn.execute("UPDATE records SET deleted_at = ? WHERE id = ?", (stamp, record_id))
                done.append(current)
        return done

    def purge(self, keys: Sequence[str]) -> list[str]:
        """Delete records for good, with everything the user added to them."""
        done = []
        with self.transaction() as conn:
            for key in keys:
                record_id, current, _ = self._record_row(conn, key)
                conn.execute(
                    "DELETE FROM note_revisions WHERE note_id IN"
                    " (SELECT id FROM notes WHERE record_id = ?)",
                    (record_id,),
                )
                for table in PER_RECORD_TABLES:
                    conn.execute(f"DELETE FROM {table} WHERE record_id = ?", (record_id,))
                conn.execute("DELETE FROM records WHERE id = ?", (record_id,))
                done.append(current)
        return done

    def attach(self, key: str, path: str, *, copied: bool = False) -> Attachment:
        with self.transaction() as conn:
            record_id = self._record_row(conn, key)[0]
            stamp = now()
            conn.execute(
                "INSERT INTO attachments (record_id, path, copied, added) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (record_id, path) DO UPDATE SET copied = excluded.copied",
                (record_id, path, int(copied), stamp),
            )
        return Attachment(path, copied, stamp)

    # Notes

    @staticmethod
    def _notes(conn: sqlite3.Connection, where: str, params: Sequence[Any]) -> list[Note]:
        rows = conn.execute(
            f"SELECT {_NOTE_COLUMNS} FROM notes n JOIN records r ON r.id = n.record_id"
            f" WHERE {where} ORDER BY n.id",
            params,
        )
        return [Note(*row) for row in rows]

    def _note(self, conn: sqlite3.Connection, note_id: int) -> Note:
        found = self._notes(conn, "n.id = ?", [note_id])
        if not found:
            raise BibError(f"unknown note {note_id}; see `bib note list`")
        return found[0]

    def note(self, note_id: int) -> Note:
        with self._read() as conn:
            return self._note(conn, note_id)

    def notes(self, key: str | None = None, *, include_deleted: bool = False) -> list[Note]:
        with self._read() as conn:
            clauses, params = [], []
            if key is not None:
                clauses.append("n.record_id = ?")
                params.append(self._record_row(conn, key)[0])
            if not include_deleted:
                clauses.append("n.deleted_at IS NULL")
            return self._notes(conn, " AND ".join(clauses) or "1", params)

    def add_note(self, key: str, body: str) -> Note:
        body = _note_body(body)
        with self.transaction() as conn:
            record_id, current, _ = self._record_row(conn, key)
            stamp = now()
            note_uuid = str(uuid.uuid4())
            cursor = conn.execute(
                "INSERT INTO notes (uuid, record_id, body, created, updated)"
                " VALUES (?, ?, ?, ?, ?)",
                (note_uuid, record_id, body, stamp, stamp),
            )
        return Note(cursor.lastrowid or 0, note_uuid, record_id, current, body, stamp, stamp)

    def edit_note(self, note_id: int, body: str) -> Note:
        """Replace a note's text, keeping the previous text as a revision."""
        body = _note_body(body)
        with self.transaction() as conn:
            note = self._note(conn, note_id)
            if note.deleted:
                raise BibError(f"note {note_id} is deleted; `bib note restore {note_id}` first")
            if body == note.body:
                return note
            stamp = now()
            conn.execute(
                "INSERT INTO note_revisions (note_id, body, created, replaced) VALUES (?, ?, ?, ?)",
                (note_id, note.body, note.updated, stamp),
            )
            conn.execute(
                "UPDATE notes SET body = ?, updated = ? WHERE id = ?", (body, stamp, note_id)
            )
        return dataclasses.replace(note, body=body, updated=stamp)

    def delete_note(self, note_id: int) -> Note:
        with self.transaction() as conn:
            note = self._note(conn, note_id)
            if note.deleted:
                raise BibError(f"note {note_id} is already deleted")
            stamp = now()
            conn.execute("UPDATE notes SET deleted_at = ? WHERE id = ?", (stamp, note_id))
        return dataclasses.replace(note, deleted_at=stamp)

    def restore_note(self, note_id: int) -> Note:
        with self.transaction() as conn:
            note = self._note(conn, note_id)
            if not note.deleted:
                raise BibError(f"note {note_id} is not deleted")
            conn.execute("UPDATE notes SET deleted_at = NULL WHERE id = ?", (note_id,))
        return dataclasses.replace(note, deleted_at=None)

    def history(self, note_id: int) -> list[Revision]:
        """Earlier texts of a note, oldest first (the current text is the note itself)."""
        with self._read() as conn:
            self._note(conn, note_id)
            rows = conn.execute(
                "SELECT body, created, replaced FROM note_revisions WHERE note_id = ? ORDER BY id",
                (note_id,),
            )
            return [Revision(*row) for row in rows]

    # Rating, status, personal tags

    def rate(self, key: str, rating: int | None) -> Entry:
        if rating is not None and not 1 <= rating <= 5:
            raise BibError(f"rating must be 1 to 5, not {rating}")
        with self.transaction() as conn:
            record_id = self._record_row(conn, key)[0]
            conn.execute(
                "INSERT INTO reading (record_id, rating, updated) VALUES (?, ?, ?)"
                " ON CONFLICT (record_id) DO UPDATE SET rating = excluded.rating,"
                " updated = excluded.updated",
                (record_id, rating, now()),
            )
            return self._entries(conn, "r.id = ?", [record_id], full=False)[0]

    def set_status(self, key: str, status: Status) -> Entry:
        status = Status(status)
        with self.transaction() as conn:
            record_id = self._record_row(conn, key)[0]
            conn.execute(
                "INSERT INTO reading (record_id, status, updated) VALUES (?, ?, ?)"
                " ON CONFLICT (record_id) DO UPDATE SET status = excluded.status,"
                " updated = excluded.updated",
                (record_id, str(status), now()),
            )
            return self._entries(conn, "r.id = ?", [record_id], full=False)[0]

    def tag(self, key: str, add: Sequence[str], remove: Sequence[str]) -> Entry:
        for tag in add:
            check_tag(tag)
        with self.transaction() as conn:
            record_id, _, data = self._record_row(conn, key)
            stamp = now()
            conn.executemany(
                "INSERT OR IGNORE INTO personal_tags (record_id, tag, added) VALUES (?, ?, ?)",
                [(record_id, tag, stamp) for tag in add],
            )
            conn.executemany(
                "DELETE FROM personal_tags WHERE record_id = ? AND tag = ?",
                [(record_id, tag) for tag in remove],
            )
            self._refresh_tags_text(conn, record_id, codec.loads(data))
            return self._entries(conn, "r.id = ?", [record_id], full=False)[0]

    @staticmethod
    def _refresh_tags_text(conn: sqlite3.Connection, record_id: str, record: Record) -> None:
        personal = [
            r[0]
            for r in conn.execute(
                "SELECT tag FROM personal_tags WHERE record_id = ? ORDER BY tag", (record_id,)
            )
        ]
        conn.execute(
            "UPDATE records SET tags_text = ? WHERE id = ?",
            (_tags_text(record, personal), record_id),
        )

    # Search

    def search(self, query: str, *, limit: int = 20, raw: bool = False) -> list[Hit]:
        """Rank papers by bm25 over titles, abstracts, tags and notes, with snippets.

        Plain queries are quoted word by word (every word must occur; `word*` is a prefix);
        `raw=True` passes FTS5 syntax through and reports a malformed query as bad input.
        """
        match = query.strip() if raw else fts_query(query)
        if not match:
            raise BibError("empty search query")
        start, end = MARK
        hits: dict[str, dict[str, Any]] = {}
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
        for key, title, score, *snippets in [] if isinstance(records, Exception) else records:
            hit = hits.setdefault(key, {"title": title, "score": score, "snippets": []})
            for name, text in zip(("title", "abstract", "tags"), snippets, strict=True):
                if start in text:
                    hit["snippets"].append((name, text))
        rows = [] if isinstance(notes, Exception) else notes
        for key, title, score, note_id, text in rows:
            hit = hits.setdefault(key, {"title": title, "score": score, "snippets": []})
            hit["score"] = min(hit["score"], score)
            hit["snippets"].append((f"note {note_id}", text))
        ranked = sorted(hits.items(), key=lambda item: (item[1]["score"], item[0]))[:limit]
        return [
            Hit(key, h["title"], round(h["score"], 4), tuple(h["snippets"])) for key, h in ranked
        ]

    # Exchange

    def dump_annotations(self, filters: Filters = ALL) -> dict[str, Any]:
        """Every annotated paper (notes, rating, status or tags) in the exchange format."""
        with self._read() as conn:
            entries = [
                e
                for e in self._entries(conn, *_where(filters), full=False)
                if e.note_count
                or e.rating
                or e.status != Status.UNREAD
                or e.personal_tags
                or self._has_notes(conn, e.record.id)
            ]
            papers = []
            for entry in entries:
                record = entry.record
                reading = conn.execute(
                    "SELECT updated FROM reading WHERE record_id = ?", (record.id,)
                ).fetchone()
                notes = []
                for note in self._notes(conn, "n.record_id = ?", [record.id]):
                    revisions = conn.execute(
                        "SELECT body, created, replaced FROM note_revisions WHERE note_id = ?"
                        " ORDER BY id",
                        (note.id,),
                    )
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
                aliases = [
                    r[0]
                    for r in conn.execute(
                        "SELECT alias FROM key_aliases WHERE record_id = ? ORDER BY created",
                        (record.id,),
                    )
                ]
                papers.append(
                    {
                        "id": record.id,
                        "key": record.key,
                        "aliases": aliases,
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

    @staticmethod
    def _has_notes(conn: sqlite3.Connection, record_id: str) -> bool:
        return (
            conn.execute("SELECT 1 FROM notes WHERE record_id = ?", (record_id,)).fetchone()
            is not None
        )

    def load_annotations(self, data: Mapping[str, Any]) -> NotesImportReport:
        """Merge an exported file (already schema-valid) in one transaction.

        Notes are matched by uuid, so importing the same file twice changes nothing; a
        newer imported text replaces the local one and the local one becomes a revision.
        A paper the library lacks is added from the file's record; any failure rolls
        everything back.
        """
        report = NotesImportReport()
        papers = [_normalized(paper) for paper in data["papers"]]
        with self.transaction() as conn:
            for paper in papers:
                record_id = self._import_paper(conn, paper, report)
                self._import_reading(conn, record_id, paper)
                conn.executemany(
                    "INSERT OR IGNORE INTO personal_tags (record_id, tag, added) VALUES (?, ?, ?)",
                    [(record_id, tag, now()) for tag in paper.get("tags", ())],
                )
                record_data = conn.execute("SELECT data FROM records WHERE id = ?", (record_id,))
                self._refresh_tags_text(conn, record_id, codec.loads(record_data.fetchone()[0]))
                for note in paper.get("notes", ()):
                    self._import_note(conn, record_id, note, report)
        return report

    def _import_paper(
        self, conn: sqlite3.Connection, paper: Mapping[str, Any], report: NotesImportReport
    ) -> str:
        row = conn.execute("SELECT id FROM records WHERE id = ?", (paper["id"],)).fetchone()
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
    def _import_reading(conn: sqlite3.Connection, record_id: str, paper: Mapping[str, Any]) -> None:
        stamp = paper.get("reading_updated")
        if stamp is None:
            return
        local = conn.execute(
            "SELECT updated FROM reading WHERE record_id = ?", (record_id,)
        ).fetchone()
        if local is not None and local[0] >= stamp:
            return
        conn.execute(
            "INSERT INTO reading (record_id, rating, status, updated) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (record_id) DO UPDATE SET rating = excluded.rating,"
            " status = excluded.status, updated = excluded.updated",
            (record_id, paper.get("rating"), paper.get("status", "unread"), stamp),
        )

    def _import_note(
        self,
        conn: sqlite3.Connection,
        record_id: str,
        note: Mapping[str, Any],
        report: NotesImportReport,
    ) -> None:
        row = conn.execute(
            "SELECT id, record_id, body, updated, deleted_at FROM notes WHERE uuid = ?",
            (note["uuid"],),
        ).fetchone()
        if row is None:
            cursor = conn.execute(
                "INSERT INTO notes (uuid, record_id, body, created, updated, deleted_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    note["uuid"],
                    record_id,
                    note["body"],
                    note["created"],
                    note["updated"],
                    note.get("deleted"),
                ),
            )
            note_id = cursor.lastrowid
            report.notes_added += 1
        else:
            note_id, owner, body, updated, deleted_at = row
            if owner != record_id:
                raise BibError(f"note {note['uuid']} belongs to another paper in the library")
            changed = False
            if note["body"] != body and note["updated"] > updated:
                conn.execute(
                    "INSERT INTO note_revisions (note_id, body, created, replaced)"
                    " VALUES (?, ?, ?, ?)",
                    (note_id, body, updated, note["updated"]),
                )
                conn.execute(
                    "UPDATE notes SET body = ?, updated = ? WHERE id = ?",
                    (note["body"], note["updated"], note_id),
                )
                changed = True
            if note.get("deleted") and deleted_at is None and note["deleted"] > updated:
                conn.execute(
                    "UPDATE notes SET deleted_at = ? WHERE id = ?", (note["deleted"], note_id)
                )
                changed = True
            if changed:
                report.notes_updated += 1
            else:
                report.unchanged += 1
        known = {
            (b, c)
            for b, c in conn.execute(
                "SELECT body, created FROM note_revisions WHERE note_id = ?", (note_id,)
            )
        }
        for revision in note.get("revisions", ()):
            if (revision["body"], revision["created"]) not in known:
                conn.execute(
                    "INSERT INTO note_revisions (note_id, body, created, replaced)"
                    " VALUES (?, ?, ?, ?)",
                    (note_id, revision["body"], revision["created"], revision["replaced"]),
                )

    # Whole-library copy (annotations.copy)

    def rows(self, table: str, columns: Sequence[str], order: str) -> list[dict[str, Any]]:
        """Every row of one library table, as column -> value, ordered by `order`."""
        with self._read() as conn:
            result = conn.execute(
                f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}"
            ).fetchall()
        return [dict(zip(columns, row, strict=True)) for row in result]

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
        clauses.append(
            "r.id IN (SELECT record_id FROM record_tags WHERE value = ?"
            " UNION SELECT record_id FROM personal_tags WHERE tag = ?)"
        )
        params += [tag, tag]
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
    return " AND ".join(clauses) or "1", params


def stamp_of(text: str) -> str:
    """An imported ISO 8601 time in our UTC millisecond form, so string order is time order."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _normalized(paper: Mapping[str, Any]) -> dict[str, Any]:
    """A paper of an exchange file with every time in our form."""
    result = dict(paper)
    if result.get("reading_updated"):
        result["reading_updated"] = stamp_of(result["reading_updated"])
    notes = []
    for note in paper.get("notes", ()):
        copy = dict(note)
        for name in ("created", "updated", "deleted"):
            if copy.get(name):
                copy[name] = stamp_of(copy[name])
        copy["revisions"] = [
            {**r, "created": stamp_of(r["created"]), "replaced": stamp_of(r["replaced"])}
            for r in note.get("revisions", ())
        ]
        notes.append(copy)
    result["notes"] = notes
    return result


def _note_body(body: str) -> str:
    if not body.strip():
        raise BibError("empty note: nothing saved")
    return body.strip("\n") + "\n" if "\n" in body.strip("\n") else body.strip()


def _tags_text(record: Record, personal: Sequence[str]) -> str:
    words: list[str] = []
    for tag in record.tags:
        words.append(tag.value)
        if tag.label and tag.label != tag.value:
            words.append(tag.label)
    words.extend(personal)
    return " ".join(dict.fromkeys(words))


def _empty(value: object) -> bool:
    return value in ("", (), None)


def _merge(stored: Record, incoming: Record) -> Record:
    """The incoming record, with every field it leaves empty kept from the stored one."""
    keep: dict[str, Any] = {}
    for spec in dataclasses.fields(Record):
        name = spec.name
        if name in ("id", "key", "title_derived", "sources"):
            continue
        if _empty(getattr(incoming, name)) and not _empty(getattr(stored, name)):
            keep[name] = getattr(stored, name)
    if incoming.title_derived and stored.title and not stored.title_derived:
        keep["title"] = stored.title
        keep["title_derived"] = False
    keep["sources"] = tuple(dict.fromkeys((*stored.sources, *incoming.sources)))
    return dataclasses.replace(incoming, **keep)


def _keep_user_fields(
    stored: Record, merged: Record, user_fields: Sequence[str]
) -> tuple[Record, list[FieldConflict]]:
    """`merged` with the user's value of every field the user edited, and the conflicts:
    the fields where the import brought another value."""
    keep = {
        name: getattr(stored, name)
        for name in user_fields
        if name in EDITABLE and getattr(merged, name) != getattr(stored, name)
    }
    conflicts = [
        FieldConflict(stored.key, name, _plain(value), _plain(getattr(merged, name)))
        for name, value in keep.items()
    ]
    return dataclasses.replace(merged, **keep), conflicts


def _plain(value: object) -> Any:
    """A field value as JSON-ready data, for conflict reports."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    return value if value is None or isinstance(value, (str, int, bool)) else str(value)


def _comparable(record: Record) -> dict[str, Any]:
    data = codec.to_dict(record)
    data.pop("sources")
    return data
