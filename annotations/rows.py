"""What both backends do with rows, written once: records, revisions, removal, attachments,
notes, reading state, personal tags and the exchange format.

`RowStore` holds every method whose meaning does not depend on the database. Its SQL is
written with `?` placeholders in the dialect SQLite and PostgreSQL share (`ON CONFLICT`,
`RETURNING`, `TRUE`); each backend (`annotations.sqlite`, `annotations.postgres`) supplies the
connection and transactions, the few fragments that differ (how keys and tags compare ignoring
case, how a row is locked for an edit, how tags are joined), search, the whole-library copy,
backups and the Zotero sync state.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

from annotations import codec, latex_source
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
    Reading,
    RecordRevision,
    Revision,
    Status,
)
from bib.errors import BibError
from bib.record import Record, evolve

T = TypeVar("T")

ALL = Filters()

EXPORT_FORMAT = "bib-annotations"
EXPORT_VERSION = 1

EDITABLE = tuple(
    f.name for f in dataclasses.fields(Record) if f.name not in ("id", "key", "sources", "latex")
)
"""The Record fields `bib edit` and `bib set` change. Not `latex`, what a `.bib` input wrote:
it follows the values (a changed value drops its field's LaTeX, `latex_source.pruned`)."""

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

NOTE_COLUMNS = (
    "n.id, n.uuid, n.record_id, r.key, n.body, n.created, n.updated, n.deleted_at,"
    " n.author, n.edited_by"
)


def now() -> str:
    """UTC time with milliseconds, so that text order is time order."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class RowStore:
    """The backend-independent half of a `Store`; a backend subclasses it with its dialect."""

    conn: Any
    path: Path | None
    user: str

    TAG_ORDER: ClassVar[str] = "tag"
    """ORDER BY expression putting a record's personal tags in case-insensitive order."""
    KEY_ORDER: ClassVar[str] = "r.key"
    """ORDER BY expression for records by citation key, ignoring case."""
    FOR_UPDATE: ClassVar[str] = ""
    """Appended to a read of the row a transaction is about to change (a row lock)."""
    TAGS_OF_RECORD: ClassVar[str] = ""
    """A scalar subquery: the personal tags of record `r`, in TAG_ORDER, joined by chr(31)."""

    # Dialect hooks

    def _exec(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement written with `?` placeholders; the cursor."""
        return conn.execute(sql, params)

    def _many(self, conn: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        conn.executemany(sql, rows)

    def _same(self, column: str) -> str:
        """`column` equal to a `?` parameter, ignoring case (keys, aliases, tags)."""
        return f"{column} = ?"

    def _where(self, filters: Filters) -> tuple[str, list[Any]]:
        raise NotImplementedError

    def _clean_body(self, body: str) -> str:
        return note_body(body)

    _depth: int = 0
    """How many `transaction()` blocks are open: only the outermost one commits."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Any]:
        """One transaction; nested calls join the outer one, so a batch commits as a whole."""
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
        with self._outermost(write=write) as conn:
            yield conn

    def _outermost(self, *, write: bool) -> AbstractContextManager[Any]:
        """Begin and end the outermost transaction (setting `_depth`); the backend's."""
        raise NotImplementedError

    def _write(self, action: Callable[[Any], T]) -> T:
        """Run `action(conn)` in one write transaction (a backend may retry it)."""
        with self.transaction() as conn:
            return action(conn)

    def _read(self) -> AbstractContextManager[Any]:
        return self.transaction(write=False)

    def _lock_record(self, conn: Any, record_id: str) -> None:
        """Hold the record's row until the transaction ends (where the dialect can)."""
        if self.FOR_UPDATE:
            self._exec(conn, f"SELECT 1 FROM records WHERE id = ?{self.FOR_UPDATE}", (record_id,))

    # Records

    def count(self) -> int:
        row = self._exec(self.conn, "SELECT count(*) FROM records").fetchone()
        return int(row[0]) if row else 0

    def pinned_keys(self) -> dict[str, str]:
        return dict(self._exec(self.conn, "SELECT id, key FROM records").fetchall())

    def taken_keys(self) -> set[str]:
        """Every key that already names a record, current or alias."""
        with self._read() as conn:
            keys = {row[0] for row in self._exec(conn, "SELECT key FROM records").fetchall()}
            aliases = self._exec(conn, "SELECT alias FROM key_aliases").fetchall()
            keys.update(row[0] for row in aliases)
        return keys

    def upsert(self, records: Iterable[Record], *, restore: bool = False) -> ImportReport:
        """Store records by id in one transaction: new ones keep their key, known ones keep theirs.

        An update never empties a field the stored record had, and never replaces a real
        title with a derived one; a field the user edited keeps the user's value (another
        incoming value is reported as a conflict); a removed record stays removed unless
        `restore`; annotations are untouched.
        """
        batch = list(records)

        def action(conn: Any) -> ImportReport:
            report = ImportReport()
            preamble = self._preamble_texts(conn)
            for record in batch:
                found = self._exec(
                    conn,
                    "SELECT key, data, latex, deleted_at, user_fields FROM records WHERE id = ?"
                    + self.FOR_UPDATE,
                    (record.id,),
                ).fetchone()
                if found is None:
                    report.new.append(self._insert(conn, record))
                    continue
                key, data, latex, deleted_at, user_fields = found
                if deleted_at is not None:
                    if not restore:
                        report.removed.append(key)
                        continue
                    self._exec(
                        conn, "UPDATE records SET deleted_at = NULL WHERE id = ?", (record.id,)
                    )
                    report.restored.append(key)
                stored = self._with_latex(codec.loads(data), latex, preamble)
                merged = merge(stored, dataclasses.replace(record, key=key))
                merged, conflicts = keep_user_fields(stored, merged, codec.json_list(user_fields))
                merged = evolve(merged, latex=latex_source.pruned(merged))
                report.conflicts.extend(conflicts)
                if comparable(merged) == comparable(stored) and same_output(stored, merged):
                    report.unchanged.append(key)
                    continue
                self._keep_revision(conn, record.id, "import")
                self._write_record(conn, merged, update=True)
                report.updated.append(key)
            return report

        return self._write(action)

    def _insert(self, conn: Any, record: Record) -> str:
        if not record.key:
            raise BibError(f"record {record.id} has no citation key")
        key = self._free_key(conn, record.key)
        self._write_record(conn, dataclasses.replace(record, key=key), update=False)
        return key

    def _free_key(self, conn: Any, key: str) -> str:
        """The key, or the key with a letter suffix when a record or an alias already has it."""
        candidate = key
        suffix = ord("a")
        while self._exec(
            conn,
            f"SELECT 1 FROM records WHERE {self._same('key')}"
            f" UNION ALL SELECT 1 FROM key_aliases WHERE {self._same('alias')}",
            (candidate, candidate),
        ).fetchone():
            suffix += 1
            candidate = f"{key}{chr(suffix)}" if suffix <= ord("z") else f"{key}-{suffix}"
        return candidate

    def _write_record(self, conn: Any, record: Record, *, update: bool) -> None:
        stamp = now()
        values = (
            record.key,
            record.venue,
            record.year,
            record.title,
            record.abstract,
            codec.dumps(record),
            self._latex_text(conn, record),
            tags_text(record, self._personal(conn, record.id)),
            stamp,
            record.id,
        )
        if update:
            self._exec(
                conn,
                "UPDATE records SET key = ?, venue = ?, year = ?, title = ?, abstract = ?,"
                " data = ?, latex = ?, tags_text = ?, updated = ? WHERE id = ?",
                values,
            )
            self._exec(conn, "DELETE FROM record_tags WHERE record_id = ?", (record.id,))
        else:
            self._exec(
                conn,
                "INSERT INTO records (key, venue, year, title, abstract, data, latex, tags_text,"
                " updated, id, added) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*values, stamp),
            )
        self._many(
            conn,
            "INSERT INTO record_tags (record_id, kind, value) VALUES (?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            [(record.id, str(t.kind), t.value) for t in record.tags],
        )

    def _latex_text(self, conn: Any, record: Record) -> str | None:
        """What the `latex` column stores of `record.latex` (its `pruned` form), its
        `@preamble`s written once each into `latex_preambles`."""
        latex = latex_source.pruned(record)
        if latex is None:
            return None
        self._many(
            conn,
            "INSERT INTO latex_preambles (digest, text) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [(latex_source.digest(text), text) for text in latex.preambles],
        )
        return latex_source.dumps(latex)

    def _preamble_texts(self, conn: Any) -> Callable[[str], str]:
        """The text of a stored `@preamble` by its digest, each read once per call."""
        found: dict[str, str] = {}

        def text(digest: str) -> str:
            if digest not in found:
                row = self._exec(
                    conn, "SELECT text FROM latex_preambles WHERE digest = ?", (digest,)
                ).fetchone()
                if row is None:
                    raise BibError(f"the library lacks the @preamble {digest} a record names")
                found[digest] = str(row[0])
            return found[digest]

        return text

    @staticmethod
    def _with_latex(record: Record, latex: str | None, preamble: Callable[[str], str]) -> Record:
        return record if latex is None else latex_source.loads(latex, record, preamble)

    def _stored(self, conn: Any, record_id: str, key: str, *, lock: bool = False) -> Record:
        """The stored record `record_id` under its key, with its LaTeX; `lock` holds its row
        (where the dialect can) when it is about to be replaced."""
        suffix = self.FOR_UPDATE if lock else ""
        data, latex = self._exec(
            conn, f"SELECT data, latex FROM records WHERE id = ?{suffix}", (record_id,)
        ).fetchone()
        return self._with_latex(codec.loads(data, key=key), latex, self._preamble_texts(conn))

    def _personal(self, conn: Any, record_id: str) -> list[str]:
        rows = self._exec(
            conn,
            f"SELECT tag FROM personal_tags WHERE record_id = ? ORDER BY {self.TAG_ORDER}",
            (record_id,),
        ).fetchall()
        return [row[0] for row in rows]

    def _record_row(self, conn: Any, key: str) -> tuple[str, str, str]:
        """(id, key, data) of the record a key or alias names, or a did-you-mean error."""
        row = self._exec(
            conn, f"SELECT id, key, data FROM records WHERE {self._same('key')}", (key,)
        ).fetchone()
        if row is None:
            row = self._exec(
                conn,
                "SELECT r.id, r.key, r.data FROM key_aliases a JOIN records r ON r.id = a.record_id"
                f" WHERE {self._same('a.alias')}",
                (key,),
            ).fetchone()
        if row is None:
            raise self._unknown_key(conn, key)
        record_id, current, data = row
        return str(record_id), str(current), str(data)

    def _unknown_key(self, conn: Any, key: str) -> BibError:
        import difflib  # only for this message: every command that opens a library loads rows

        rows = self._exec(conn, "SELECT key FROM records UNION SELECT alias FROM key_aliases")
        keys = [r[0] for r in rows.fetchall()]
        close = difflib.get_close_matches(key, keys, n=3, cutoff=0.6)
        if not close:
            close = difflib.get_close_matches(key.lower(), [k.lower() for k in keys], n=3)
            close = [k for k in keys if k.lower() in close][:3]
        hint = f"; did you mean: {', '.join(close)}?" if close else "; see `bib list`"
        return BibError(f"unknown key '{key}'{hint}")

    def resolve(self, key: str) -> Record:
        with self._read() as conn:
            record_id, current, _ = self._record_row(conn, key)
            return self._stored(conn, record_id, current)

    def rekey(self, old: str, new: str) -> Record:
        """Give a record a new key on purpose; the old key stays as an alias that resolves."""
        check_key(new)

        def action(conn: Any) -> Record:
            record_id, current, data = self._record_row(conn, old)
            if new == current:
                return codec.loads(data, key=current)
            owner = self._exec(
                conn,
                f"SELECT id FROM records WHERE {self._same('key')} UNION SELECT record_id"
                f" FROM key_aliases WHERE {self._same('alias')}",
                (new, new),
            ).fetchone()
            if owner is not None and owner[0] != record_id:
                raise BibError(f"key '{new}' already names another record")
            self._exec(conn, f"DELETE FROM key_aliases WHERE {self._same('alias')}", (new,))
            if new.casefold() != current.casefold():  # keys compare ignoring case
                self._exec(
                    conn,
                    "INSERT INTO key_aliases (alias, record_id, created) VALUES (?, ?, ?)",
                    (current, record_id, now()),
                )
            record = codec.loads(data, key=new)
            self._exec(
                conn,
                "UPDATE records SET key = ?, data = ?, updated = ? WHERE id = ?",
                (new, codec.dumps(record), now(), record_id),
            )
            return record

        return self._write(action)

    def entry(self, key: str, *, user: str | None = None) -> Entry:
        """A paper with everything added to it; rating and status are `user`'s (default:
        the store's user), `readings` everyone's."""
        with self._read() as conn:
            record_id = self._record_row(conn, key)[0]
            return self._entries(conn, "r.id = ?", [record_id], full=True, reader=user)[0]

    def entries(
        self,
        filters: Filters = ALL,
        *,
        full: bool = False,
        user: str | None = None,
        all_users: bool = False,
    ) -> list[Entry]:
        """The papers `filters` selects; rating, status and their filters are `user`'s
        (default: the store's user); `all_users` adds every reader's to `readings`."""
        where, params = self._where(filters)
        with self._read() as conn:
            return self._entries(conn, where, params, full=full, reader=user, all_users=all_users)

    def _entries(
        self,
        conn: Any,
        where: str,
        params: Sequence[Any],
        *,
        full: bool,
        reader: str | None = None,
        all_users: bool = False,
    ) -> list[Entry]:
        rows = self._exec(
            conn,
            "SELECT r.id, r.key, r.data, r.latex, r.added, r.updated, r.deleted_at, r.user_fields,"
            f" g.rating, coalesce(g.status, 'unread'), {self.TAGS_OF_RECORD},"
            " (SELECT count(*) FROM notes WHERE record_id = r.id AND deleted_at IS NULL)"
            " FROM records r LEFT JOIN reading g ON g.record_id = r.id AND g.reader = ?"
            f" WHERE {where} ORDER BY {self.KEY_ORDER}",
            [reader if reader is not None else self.user, *params],
        ).fetchall()
        result = []
        preamble = self._preamble_texts(conn)
        for row in rows:
            record_id, key, data, latex, added, updated, deleted_at, user_fields = row[:8]
            rating, status, tags, count = row[8:]
            aliases: tuple[str, ...] = ()
            notes: tuple[Note, ...] = ()
            attachments: tuple[Attachment, ...] = ()
            readings = self._readings(conn, record_id) if full or all_users else ()
            if full:
                attachments = self._attachments(conn, record_id)
                aliases = self._aliases(conn, record_id)
                notes = tuple(
                    self._notes(conn, "n.record_id = ? AND n.deleted_at IS NULL", [record_id])
                )
            result.append(
                Entry(
                    record=self._with_latex(codec.loads(data, key=key), latex, preamble),
                    aliases=aliases,
                    rating=rating,
                    status=Status(status),
                    personal_tags=tuple(tags.split("\x1f")) if tags else (),
                    notes=notes,
                    note_count=int(count),
                    added=added,
                    updated=updated,
                    deleted_at=deleted_at,
                    user_fields=tuple(codec.json_list(user_fields)),
                    attachments=attachments,
                    readings=readings,
                )
            )
        return result

    def _readings(self, conn: Any, record_id: str) -> tuple[Reading, ...]:
        rows = self._exec(
            conn,
            "SELECT reader, rating, status, updated FROM reading WHERE record_id = ?"
            " ORDER BY reader",
            (record_id,),
        ).fetchall()
        return tuple(
            Reading(user, rating, Status(status), stamp) for user, rating, status, stamp in rows
        )

    def readers(self) -> list[str]:
        """Everyone who rated, set a status or wrote a note, in name order."""
        with self._read() as conn:
            rows = self._exec(
                conn,
                "SELECT reader FROM reading UNION SELECT author FROM notes"
                " UNION SELECT edited_by FROM notes",
            ).fetchall()
        return sorted({row[0] for row in rows if row[0]})

    def _aliases(self, conn: Any, record_id: str) -> tuple[str, ...]:
        rows = self._exec(
            conn,
            "SELECT alias FROM key_aliases WHERE record_id = ? ORDER BY created, alias",
            (record_id,),
        ).fetchall()
        return tuple(row[0] for row in rows)

    def _attachments(self, conn: Any, record_id: str) -> tuple[Attachment, ...]:
        rows = self._exec(
            conn,
            "SELECT path, copied, added FROM attachments WHERE record_id = ? ORDER BY id",
            (record_id,),
        ).fetchall()
        return tuple(Attachment(path, bool(copied), stamp) for path, copied, stamp in rows)

    # Record revisions, removal, attachments

    def edit_record(self, key: str, record: Record, *, origin: str = "edit") -> Entry:
        """Store `record` as the new version of the record `key` names, keeping the old one as
        a revision; every field it changes becomes the user's (imports never overwrite it).

        The id, key and sources stay the stored ones: a key change goes through `rekey`.
        """

        def action(conn: Any) -> Entry:
            record_id, current, _ = self._record_row(conn, key)
            stored = self._stored(conn, record_id, current, lock=True)
            (user_fields,) = self._exec(
                conn, "SELECT user_fields FROM records WHERE id = ?", (record_id,)
            ).fetchone()
            incoming = dataclasses.replace(
                record,
                id=stored.id,
                key=current,
                sources=stored.sources,
                latex=latex_source.combined(record.latex, stored.latex),
            )
            incoming = evolve(incoming, latex=latex_source.pruned(incoming))
            changed = [
                name for name in EDITABLE if getattr(stored, name) != getattr(incoming, name)
            ]
            if changed or incoming.latex != stored.latex:
                self._keep_revision(conn, record_id, origin)
                self._write_record(conn, incoming, update=True)
                names = sorted({*codec.json_list(user_fields), *changed})
                self._exec(
                    conn,
                    "UPDATE records SET user_fields = ? WHERE id = ?",
                    (json.dumps(names), record_id),
                )
            return self._entries(conn, "r.id = ?", [record_id], full=True)[0]

        return self._write(action)

    def _keep_revision(self, conn: Any, record_id: str, origin: str) -> None:
        """Copy the record's current version into its revisions, before it is replaced."""
        self._exec(
            conn,
            "INSERT INTO record_revisions (record_id, data, latex, created, replaced, origin)"
            " SELECT id, data, latex, updated, ?, ? FROM records WHERE id = ?",
            (now(), origin, record_id),
        )

    def record_history(self, key: str) -> list[RecordRevision]:
        """Every version of a record, oldest first; the current one last."""
        with self._read() as conn:
            record_id, current, _ = self._record_row(conn, key)
            rows = self._exec(
                conn,
                "SELECT data, latex, created, replaced, origin FROM record_revisions"
                " WHERE record_id = ? ORDER BY id",
                (record_id,),
            ).fetchall()
            (updated,) = self._exec(
                conn, "SELECT updated FROM records WHERE id = ?", (record_id,)
            ).fetchone()
            preamble = self._preamble_texts(conn)
            versions = [
                RecordRevision(
                    number,
                    self._with_latex(codec.loads(text, key=current), latex, preamble),
                    created,
                    replaced,
                    origin,
                )
                for number, (text, latex, created, replaced, origin) in enumerate(rows, 1)
            ]
            current_record = self._stored(conn, record_id, current)
        versions.append(RecordRevision(len(rows) + 1, current_record, updated))
        return versions

    def remove(self, keys: Sequence[str]) -> list[str]:
        """Soft-delete records (notes, ratings and tags kept); their current keys."""
        return self._set_deleted(keys, now())

    def restore(self, keys: Sequence[str]) -> list[str]:
        """Bring removed records back; their current keys."""
        return self._set_deleted(keys, None)

    def _set_deleted(self, keys: Sequence[str], stamp: str | None) -> list[str]:
        def action(conn: Any) -> list[str]:
            done = []
            for key in keys:
                record_id, current, _ = self._record_row(conn, key)
                self._exec(
                    conn, "UPDATE records SET deleted_at = ? WHERE id = ?", (stamp, record_id)
                )
                done.append(current)
            return done

        return self._write(action)

    def purge(self, keys: Sequence[str]) -> list[str]:
        """Delete records for good, with everything the user added to them."""

        def action(conn: Any) -> list[str]:
            done = []
            for key in keys:
                record_id, current, _ = self._record_row(conn, key)
                self._exec(
                    conn,
                    "DELETE FROM note_revisions WHERE note_id IN"
                    " (SELECT id FROM notes WHERE record_id = ?)",
                    (record_id,),
                )
                for table in PER_RECORD_TABLES:
                    self._exec(conn, f"DELETE FROM {table} WHERE record_id = ?", (record_id,))
                self._exec(conn, "DELETE FROM records WHERE id = ?", (record_id,))
                done.append(current)
            return done

        return self._write(action)

    def attach(self, key: str, path: str, *, copied: bool = False) -> Attachment:
        stamp = now()

        def action(conn: Any) -> None:
            record_id = self._record_row(conn, key)[0]
            self._exec(
                conn,
                "INSERT INTO attachments (record_id, path, copied, added) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (record_id, path) DO UPDATE SET copied = excluded.copied",
                (record_id, path, int(copied), stamp),
            )

        self._write(action)
        return Attachment(path, copied, stamp)

    # Notes

    def _notes(
        self, conn: Any, where: str, params: Sequence[Any], *, lock: bool = False
    ) -> list[Note]:
        """Notes matching `where`; `lock` holds their rows until the transaction ends, so two
        edits take turns and the second one sees (and keeps as a revision) the first one's."""
        suffix = f"{self.FOR_UPDATE} OF n" if lock and self.FOR_UPDATE else ""
        rows = self._exec(
            conn,
            f"SELECT {NOTE_COLUMNS} FROM notes n JOIN records r ON r.id = n.record_id"
            f" WHERE {where} ORDER BY n.id{suffix}",
            params,
        ).fetchall()
        return [Note(*row) for row in rows]

    def _note(self, conn: Any, note_id: int, *, lock: bool = False) -> Note:
        found = self._notes(conn, "n.id = ?", [note_id], lock=lock)
        if not found:
            raise BibError(f"unknown note {note_id}; see `bib note list`")
        return found[0]

    def note(self, note_id: int) -> Note:
        with self._read() as conn:
            return self._note(conn, note_id)

    def notes(
        self, key: str | None = None, *, include_deleted: bool = False, author: str | None = None
    ) -> list[Note]:
        """Notes of one paper (or all), live ones unless `include_deleted`; `author` keeps
        only the notes that person wrote."""
        with self._read() as conn:
            clauses: list[str] = []
            params: list[Any] = []
            if key is not None:
                clauses.append("n.record_id = ?")
                params.append(self._record_row(conn, key)[0])
            if author is not None:
                clauses.append("n.author = ?")
                params.append(author)
            if not include_deleted:
                clauses.append("n.deleted_at IS NULL")
            return self._notes(conn, " AND ".join(clauses) or "TRUE", params)

    def add_note(self, key: str, body: str) -> Note:
        body = self._clean_body(body)

        def action(conn: Any) -> Note:
            record_id, current, _ = self._record_row(conn, key)
            stamp = now()
            note_uuid = str(uuid.uuid4())
            (note_id,) = self._exec(
                conn,
                "INSERT INTO notes (uuid, record_id, body, created, updated, author, edited_by)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (note_uuid, record_id, body, stamp, stamp, self.user, self.user),
            ).fetchall()[0]
            return Note(
                int(note_id),
                note_uuid,
                record_id,
                current,
                body,
                stamp,
                stamp,
                author=self.user,
                edited_by=self.user,
            )

        return self._write(action)

    def edit_note(self, note_id: int, body: str) -> Note:
        """Replace a note's text, keeping the previous text (and who wrote it) as a revision.

        The note's row is locked first (PostgreSQL), so of two people saving at once the
        second one replaces the first one's text, which stays in the history: no edit is
        lost. `bib note edit` tells the second one (`replaced_meanwhile`)."""
        body = self._clean_body(body)

        def action(conn: Any) -> Note:
            note = self._note(conn, note_id, lock=True)
            if note.deleted:
                raise BibError(f"note {note_id} is deleted; `bib note restore {note_id}` first")
            if body == note.body:
                return note
            stamp = now()
            self._exec(
                conn,
                "INSERT INTO note_revisions (note_id, body, created, replaced, author)"
                " VALUES (?, ?, ?, ?, ?)",
                (note_id, note.body, note.updated, stamp, note.edited_by or note.author),
            )
            self._exec(
                conn,
                "UPDATE notes SET body = ?, updated = ?, edited_by = ? WHERE id = ?",
                (body, stamp, self.user, note_id),
            )
            return dataclasses.replace(note, body=body, updated=stamp, edited_by=self.user)

        return self._write(action)

    def delete_note(self, note_id: int) -> Note:
        def action(conn: Any) -> Note:
            note = self._note(conn, note_id, lock=True)
            if note.deleted:
                raise BibError(f"note {note_id} is already deleted")
            stamp = now()
            self._exec(conn, "UPDATE notes SET deleted_at = ? WHERE id = ?", (stamp, note_id))
            return dataclasses.replace(note, deleted_at=stamp)

        return self._write(action)

    def restore_note(self, note_id: int) -> Note:
        def action(conn: Any) -> Note:
            note = self._note(conn, note_id, lock=True)
            if not note.deleted:
                raise BibError(f"note {note_id} is not deleted")
            self._exec(conn, "UPDATE notes SET deleted_at = NULL WHERE id = ?", (note_id,))
            return dataclasses.replace(note, deleted_at=None)

        return self._write(action)

    def history(self, note_id: int) -> list[Revision]:
        """Earlier texts of a note, oldest first (the current text is the note itself)."""
        with self._read() as conn:
            self._note(conn, note_id)
            rows = self._exec(
                conn,
                "SELECT body, created, replaced, author FROM note_revisions WHERE note_id = ?"
                " ORDER BY id",
                (note_id,),
            ).fetchall()
            return [Revision(*row) for row in rows]

    # Rating, status, personal tags

    def rate(self, key: str, rating: int | None) -> Entry:
        if rating is not None and not 1 <= rating <= 5:
            raise BibError(f"rating must be 1 to 5, not {rating}")
        return self._set_reading(key, "rating", rating)

    def set_status(self, key: str, status: Status) -> Entry:
        return self._set_reading(key, "status", str(Status(status)))

    def _set_reading(self, key: str, column: str, value: object) -> Entry:
        """Set the store user's own rating or status (nobody sets another's)."""

        def action(conn: Any) -> Entry:
            record_id = self._record_row(conn, key)[0]
            self._exec(
                conn,
                f"INSERT INTO reading (record_id, reader, {column}, updated) VALUES (?, ?, ?, ?)"
                f" ON CONFLICT (record_id, reader) DO UPDATE SET {column} = excluded.{column},"
                " updated = excluded.updated",
                (record_id, self.user, value, now()),
            )
            return self._entries(conn, "r.id = ?", [record_id], full=False)[0]

        return self._write(action)

    def tag(self, key: str, add: Sequence[str], remove: Sequence[str]) -> Entry:
        for name in add:
            check_tag(name)

        def action(conn: Any) -> Entry:
            record_id, _, data = self._record_row(conn, key)
            self._lock_record(conn, record_id)
            stamp = now()
            self._many(
                conn,
                "INSERT INTO personal_tags (record_id, tag, added) VALUES (?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                [(record_id, name, stamp) for name in add],
            )
            self._many(
                conn,
                f"DELETE FROM personal_tags WHERE record_id = ? AND {self._same('tag')}",
                [(record_id, name) for name in remove],
            )
            self._refresh_tags_text(conn, record_id, codec.loads(data))
            return self._entries(conn, "r.id = ?", [record_id], full=False)[0]

        return self._write(action)

    def _refresh_tags_text(self, conn: Any, record_id: str, record: Record) -> None:
        self._exec(
            conn,
            "UPDATE records SET tags_text = ? WHERE id = ?",
            (tags_text(record, self._personal(conn, record_id)), record_id),
        )

    # Exchange

    def dump_annotations(self, filters: Filters = ALL) -> dict[str, Any]:
        """Every annotated paper (notes, rating, status or tags) in the exchange format."""
        where, params = self._where(filters)
        with self._read() as conn:
            papers = []
            for entry in self._entries(conn, where, params, full=False, all_users=True):
                record = entry.record
                annotated = entry.readings or entry.personal_tags
                if not (entry.note_count or annotated or self._has_notes(conn, record.id)):
                    continue
                mine = [r for r in entry.readings if r.user == self.user]
                notes = [
                    self._note_dump(conn, note)
                    for note in self._notes(conn, "n.record_id = ?", [record.id])
                ]
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
                        "reading_updated": mine[0].updated if mine else None,
                        "readings": [
                            {
                                "user": r.user,
                                "rating": r.rating,
                                "status": str(r.status),
                                "updated": r.updated,
                            }
                            for r in entry.readings
                        ],
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

    def _note_dump(self, conn: Any, note: Note) -> dict[str, Any]:
        revisions = self._exec(
            conn,
            "SELECT body, created, replaced, author FROM note_revisions WHERE note_id = ?"
            " ORDER BY id",
            (note.id,),
        ).fetchall()
        return {
            "uuid": note.uuid,
            "body": note.body,
            "created": note.created,
            "updated": note.updated,
            "deleted": note.deleted_at,
            "author": note.author,
            "edited_by": note.edited_by,
            "revisions": [
                {"body": b, "created": c, "replaced": r, "author": a} for b, c, r, a in revisions
            ],
        }

    def _has_notes(self, conn: Any, record_id: str) -> bool:
        found = self._exec(conn, "SELECT 1 FROM notes WHERE record_id = ? LIMIT 1", (record_id,))
        return found.fetchone() is not None

    def load_annotations(self, data: Mapping[str, Any]) -> NotesImportReport:
        """Merge an exported file (already schema-valid) in one transaction.

        Notes are matched by uuid, so importing the same file twice changes nothing; a
        newer imported text replaces the local one and the local one becomes a revision.
        A paper the library lacks is added from the file's record; any failure rolls
        everything back.
        """
        papers = [normalized(paper) for paper in data["papers"]]

        def action(conn: Any) -> NotesImportReport:
            report = NotesImportReport()
            for paper in papers:
                record_id = self._import_paper(conn, paper, report)
                self._import_reading(conn, record_id, paper)
                self._many(
                    conn,
                    "INSERT INTO personal_tags (record_id, tag, added) VALUES (?, ?, ?)"
                    " ON CONFLICT DO NOTHING",
                    [(record_id, name, now()) for name in paper.get("tags", ())],
                )
                (record_data,) = self._exec(
                    conn, "SELECT data FROM records WHERE id = ?", (record_id,)
                ).fetchone()
                self._refresh_tags_text(conn, record_id, codec.loads(record_data))
                for note in paper.get("notes", ()):
                    self._import_note(conn, record_id, note, report)
            return report

        return self._write(action)

    def _import_paper(self, conn: Any, paper: Mapping[str, Any], report: NotesImportReport) -> str:
        row = self._exec(conn, "SELECT id FROM records WHERE id = ?", (paper["id"],)).fetchone()
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

    def _import_reading(self, conn: Any, record_id: str, paper: Mapping[str, Any]) -> None:
        """Every reader's rating and status from the file, each kept when it is newer than
        the library's; a file from before readers (no `readings`) holds the importer's."""
        readings = paper.get("readings")
        if readings is None:
            stamp = paper.get("reading_updated")
            if stamp is None:
                return
            readings = [
                {
                    "user": self.user,
                    "rating": paper.get("rating"),
                    "status": paper.get("status", "unread"),
                    "updated": stamp,
                }
            ]
        for reading in readings:
            local = self._exec(
                conn,
                "SELECT updated FROM reading WHERE record_id = ? AND reader = ?",
                (record_id, reading["user"]),
            ).fetchone()
            if local is not None and local[0] >= reading["updated"]:
                continue
            self._exec(
                conn,
                "INSERT INTO reading (record_id, reader, rating, status, updated)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (record_id, reader) DO UPDATE SET"
                " rating = excluded.rating, status = excluded.status, updated = excluded.updated",
                (
                    record_id,
                    reading["user"],
                    reading.get("rating"),
                    reading.get("status", "unread"),
                    reading["updated"],
                ),
            )

    def _import_note(
        self, conn: Any, record_id: str, note: Mapping[str, Any], report: NotesImportReport
    ) -> None:
        author = note.get("author", self.user)  # a file from before authors: the importer's
        row = self._exec(
            conn,
            "SELECT id, record_id, body, updated, deleted_at, edited_by FROM notes WHERE uuid = ?"
            + self.FOR_UPDATE,
            (note["uuid"],),
        ).fetchone()
        if row is None:
            (note_id,) = self._exec(
                conn,
                "INSERT INTO notes (uuid, record_id, body, created, updated, deleted_at, author,"
                " edited_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    note["uuid"],
                    record_id,
                    note["body"],
                    note["created"],
                    note["updated"],
                    note.get("deleted"),
                    author,
                    note.get("edited_by", author),
                ),
            ).fetchall()[0]
            report.notes_added += 1
        else:
            note_id, owner, body, updated, deleted_at, edited_by = row
            if owner != record_id:
                raise BibError(f"note {note['uuid']} belongs to another paper in the library")
            changed = False
            if note["body"] != body and note["updated"] > updated:
                self._exec(
                    conn,
                    "INSERT INTO note_revisions (note_id, body, created, replaced, author)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (note_id, body, updated, note["updated"], edited_by),
                )
                self._exec(
                    conn,
                    "UPDATE notes SET body = ?, updated = ?, edited_by = ? WHERE id = ?",
                    (note["body"], note["updated"], note.get("edited_by", author), note_id),
                )
                changed = True
            if note.get("deleted") and deleted_at is None and note["deleted"] > updated:
                self._exec(
                    conn, "UPDATE notes SET deleted_at = ? WHERE id = ?", (note["deleted"], note_id)
                )
                changed = True
            if changed:
                report.notes_updated += 1
            else:
                report.unchanged += 1
        known = {
            (b, c)
            for b, c in self._exec(
                conn, "SELECT body, created FROM note_revisions WHERE note_id = ?", (note_id,)
            ).fetchall()
        }
        for revision in note.get("revisions", ()):
            if (revision["body"], revision["created"]) not in known:
                self._exec(
                    conn,
                    "INSERT INTO note_revisions (note_id, body, created, replaced, author)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (
                        note_id,
                        revision["body"],
                        revision["created"],
                        revision["replaced"],
                        revision.get("author", author),
                    ),
                )

    # Whole-library copy (annotations.copy)

    def rows(self, table: str, columns: Sequence[str], order: str) -> list[dict[str, Any]]:
        """Every row of one library table, as column -> value, ordered by `order`."""
        with self._read() as conn:
            result = self._exec(
                conn, f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}"
            ).fetchall()
        return [dict(zip(columns, row, strict=True)) for row in result]


def ranked_hits(
    records: Iterable[Sequence[Any]], notes: Iterable[Sequence[Any]], limit: int
) -> list[Hit]:
    """Search results from a backend's two queries: record matches (key, title, score, then
    the title, abstract and tags snippets) and note matches (key, title, score, note id,
    snippet). Each paper once, at its best score (lower is better), with the snippets that
    highlight something, best first."""
    start = MARK[0]
    hits: dict[str, dict[str, Any]] = {}
    for key, title, score, *snippets in records:
        hit = hits.setdefault(key, {"title": title, "score": score, "snippets": []})
        for name, text in zip(("title", "abstract", "tags"), snippets, strict=True):
            if start in text:
                hit["snippets"].append((name, text))
    for key, title, score, note_id, text in notes:
        hit = hits.setdefault(key, {"title": title, "score": score, "snippets": []})
        hit["score"] = min(hit["score"], score)
        hit["snippets"].append((f"note {note_id}", text))
    ranked = sorted(hits.items(), key=lambda item: (item[1]["score"], item[0]))[:limit]
    return [
        Hit(key, h["title"], round(float(h["score"]), 4), tuple(h["snippets"])) for key, h in ranked
    ]


def replaced_meanwhile(history: Sequence[Revision], before: Note, after: Note) -> Revision | None:
    """The text someone else saved between reading `before` and saving `after`, which the
    save replaced (it is in `history`), or None when the save replaced `before` itself."""
    for revision in history:
        if revision.replaced == after.updated and revision.created != before.updated:
            return revision
    return None


def stamp_of(text: str) -> str:
    """An imported ISO 8601 time in our UTC millisecond form, so string order is time order."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def normalized(paper: Mapping[str, Any]) -> dict[str, Any]:
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


def note_body(body: str) -> str:
    if not body.strip():
        raise BibError("empty note: nothing saved")
    return body.strip("\n") + "\n" if "\n" in body.strip("\n") else body.strip()


def tags_text(record: Record, personal: Sequence[str]) -> str:
    words: list[str] = []
    for tag in record.tags:
        words.append(tag.value)
        if tag.label and tag.label != tag.value:
            words.append(tag.label)
    words.extend(personal)
    return " ".join(dict.fromkeys(words))


def _empty(value: object) -> bool:
    return value in ("", (), None)


def merge(stored: Record, incoming: Record) -> Record:
    """The incoming record, with every field it leaves empty kept from the stored one."""
    keep: dict[str, Any] = {}
    for spec in dataclasses.fields(Record):
        name = spec.name
        if name in ("id", "key", "title_derived", "sources", "latex"):
            continue
        if _empty(getattr(incoming, name)) and not _empty(getattr(stored, name)):
            keep[name] = getattr(stored, name)
    if incoming.title_derived and stored.title and not stored.title_derived:
        keep["title"] = stored.title
        keep["title_derived"] = False
    keep["sources"] = tuple(dict.fromkeys((*stored.sources, *incoming.sources)))
    keep["latex"] = latex_source.combined(incoming.latex, stored.latex)
    return dataclasses.replace(incoming, **keep)


def keep_user_fields(
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


def comparable(record: Record) -> dict[str, Any]:
    """The decoded record as stored, where it came from aside (its LaTeX: `same_output`)."""
    data = codec.to_dict(record)
    data.pop("sources")
    return data


def same_output(stored: Record, merged: Record) -> bool:
    """Whether `merged`'s LaTeX writes what `stored`'s does, in BibTeX and in BibLaTeX. An
    export of ours read back brings LaTeX (our writers' encoding) for fields that had none:
    written again it is the same text, so the record is unchanged; another file's LaTeX for
    the same values (`{NASA}` for `NASA`) is an update."""
    if merged.latex == stored.latex:
        return True
    from bib import writers

    return all(
        writers.render([stored], fmt) == writers.render([merged], fmt)
        for fmt in ("bibtex", "biblatex")
    )
