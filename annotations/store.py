"""The store interface: what the CLI may ask of a library, whatever database holds it.

The CLI and exporters only see this Protocol and the plain values below; the backends are
`annotations.sqlite` (one file) and `annotations.postgres` (a shared team library).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from bib.record import Record

if TYPE_CHECKING:
    from annotations.sync_state import ConflictId, OpenConflict, RowId, SyncRow

MARK = ("\x02", "\x03")
"""Where a search snippet's highlighted words start and end; front ends render them."""


class Status(StrEnum):
    """Reading status; every paper starts `unread`."""

    UNREAD = "unread"
    TO_READ = "to-read"
    READING = "reading"
    READ = "read"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class Note:
    """A markdown note on a paper.

    `id` is short, for the CLI; `uuid` identifies the note across exports and imports.
    `author` wrote the note, `edited_by` its current text (both `BIB_USER` or the login
    name; '' for notes written before authors were recorded).
    """

    id: int
    uuid: str
    record_id: str
    key: str
    body: str
    created: str
    updated: str
    deleted_at: str | None = None
    author: str = ""
    edited_by: str = ""

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


@dataclass(frozen=True, slots=True)
class Revision:
    """One earlier text of a note, kept when an edit replaced it."""

    body: str
    created: str
    replaced: str
    author: str = ""
    """Who wrote this text."""


@dataclass(frozen=True, slots=True)
class Reading:
    """One person's rating and reading status of a paper."""

    user: str
    rating: int | None
    status: Status
    updated: str


@dataclass(frozen=True, slots=True)
class RecordRevision:
    """One version of a record: `number` counts from 1 (the oldest); the current version is
    the last, with `replaced` empty. `origin` says what replaced it (edit, set, revert)."""

    number: int
    record: Record
    created: str
    replaced: str = ""
    origin: str = ""


@dataclass(frozen=True, slots=True)
class Attachment:
    """A local file of a paper (`bib attach`); `copied` when it lives in the library folder."""

    path: str
    copied: bool
    added: str


@dataclass(frozen=True, slots=True)
class Entry:
    """A stored paper with everything the user added to it.

    `deleted` is true for a record removed with `bib rm` (kept with its notes, ratings and
    tags until `bib restore` or `bib rm --purge`); `user_fields` are the fields the user
    edited, which imports and syncs never overwrite silently. `rating` and `status` are one
    reader's (the store's user unless another was asked for); `readings` has every reader's
    when asked for (`all_users`, and always for `entry`).
    """

    record: Record
    aliases: tuple[str, ...] = ()
    rating: int | None = None
    status: Status = Status.UNREAD
    personal_tags: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()
    note_count: int = 0
    added: str = ""
    updated: str = ""
    deleted_at: str | None = None
    user_fields: tuple[str, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    readings: tuple[Reading, ...] = ()

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


@dataclass(frozen=True, slots=True)
class Filters:
    """Selection for `list` and `export`; empty means every record not removed."""

    tags: tuple[str, ...] = ()
    status: Status | None = None
    min_rating: int | None = None
    venue: str | None = None
    deleted: bool | None = False
    """False: only live records (the default); True: only removed ones; None: both."""
    below: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Tag -> the topics below it in the topic hierarchy, which match it too."""

    def tag_values(self, tag: str) -> tuple[str, ...]:
        """The values a record's tag may have to match `tag`: it and the topics below it."""
        return (tag, *self.below.get(tag, ()))


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result: the paper, its rank (lower is better, bm25) and where it matched."""

    key: str
    title: str
    score: float
    snippets: tuple[tuple[str, str], ...]
    """(field, snippet) pairs; field is title, abstract, tags or `note N`."""


@dataclass(frozen=True, slots=True)
class FieldConflict:
    """An import brought another value for a field the user edited; the user's value stays."""

    key: str
    field: str
    ours: Any
    theirs: Any


@dataclass(slots=True)
class ImportReport:
    """What an import changed, by citation key.

    `removed`: records removed with `bib rm` that the import met and left removed;
    `restored`: removed records brought back (`restore=True`).
    """

    new: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    conflicts: list[FieldConflict] = field(default_factory=list)


@dataclass(slots=True)
class NotesImportReport:
    papers_added: int = 0
    notes_added: int = 0
    notes_updated: int = 0
    unchanged: int = 0


@runtime_checkable
class Store(Protocol):
    """A library of papers and their annotations. Every method is one transaction.

    `user` is who writes: notes record it as their author, ratings and status are theirs.
    """

    path: Path | None
    user: str

    def __enter__(self) -> Store: ...
    def __exit__(self, *exc: object) -> None: ...
    def close(self) -> None: ...

    def transaction(self, *, write: bool = True) -> AbstractContextManager[Any]: ...

    # Records
    def pinned_keys(self) -> dict[str, str]: ...
    def taken_keys(self) -> set[str]: ...
    def upsert(self, records: Iterable[Record], *, restore: bool = False) -> ImportReport: ...
    def resolve(self, key: str) -> Record: ...
    def entry(self, key: str, *, user: str | None = None) -> Entry: ...
    def entries(
        self,
        filters: Filters = ...,
        *,
        full: bool = False,
        user: str | None = None,
        all_users: bool = False,
    ) -> list[Entry]: ...
    def readers(self) -> list[str]: ...
    def rekey(self, old: str, new: str) -> Record: ...
    def count(self) -> int: ...
    def complete_keys(self, prefix: str, *, limit: int = 200) -> list[str]: ...

    # Record revisions, removal, attachments
    def edit_record(self, key: str, record: Record, *, origin: str = "edit") -> Entry: ...
    def record_history(self, key: str) -> list[RecordRevision]: ...
    def remove(self, keys: Sequence[str]) -> list[str]: ...
    def restore(self, keys: Sequence[str]) -> list[str]: ...
    def purge(self, keys: Sequence[str]) -> list[str]: ...
    def attach(self, key: str, path: str, *, copied: bool = False) -> Attachment: ...

    # Annotations
    def add_note(self, key: str, body: str) -> Note: ...
    def edit_note(self, note_id: int, body: str) -> Note: ...
    def delete_note(self, note_id: int) -> Note: ...
    def restore_note(self, note_id: int) -> Note: ...
    def note(self, note_id: int) -> Note: ...
    def notes(
        self, key: str | None = None, *, include_deleted: bool = False, author: str | None = None
    ) -> list[Note]: ...
    def history(self, note_id: int) -> list[Revision]: ...
    def rate(self, key: str, rating: int | None) -> Entry: ...
    def set_status(self, key: str, status: Status) -> Entry: ...
    def tag(self, key: str, add: Sequence[str], remove: Sequence[str]) -> Entry: ...

    # Search, exchange, safety
    def search(
        self, query: str, *, limit: int = 20, raw: bool = False, also: Sequence[str] = ()
    ) -> list[Hit]: ...
    def dump_annotations(self, filters: Filters = ...) -> dict[str, Any]: ...
    def load_annotations(self, data: Mapping[str, Any]) -> NotesImportReport: ...
    def backup(self, dest: Path) -> None: ...
    def integrity(self) -> str: ...

    # Whole-library copy (annotations.copy), inside `transaction()`
    def rows(self, table: str, columns: Sequence[str], order: str) -> list[dict[str, Any]]: ...
    def insert_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> list[int | None]: ...

    # Zotero sync state (annotations/sync_state.py), per Zotero library name; one
    # transaction each. `sync_rows` leaves out the pushed JSON, `sync_pushed` reads it.
    def sync_library_version(self, library: str) -> int: ...
    def set_sync_library_version(self, library: str, version: int) -> None: ...
    def sync_rows(self, library: str) -> dict[RowId, SyncRow]: ...
    def sync_pushed(self, library: str, ids: list[RowId]) -> dict[RowId, dict[str, Any]]: ...
    def save_sync_rows(self, library: str, rows: list[SyncRow]) -> None: ...
    def forget_sync_rows(self, library: str, rows: list[SyncRow]) -> None: ...
    def sync_conflicts(self, library: str) -> list[OpenConflict]: ...
    def save_sync_conflicts(self, library: str, conflicts: list[OpenConflict]) -> None: ...
    def drop_sync_conflicts(self, library: str, ids: list[ConflictId]) -> None: ...
    def sync_clear_fields(self, key: str, fields: list[str]) -> list[str]: ...
