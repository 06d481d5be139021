"""The annotation store: reading notes, ratings, status and personal tags in SQLite.

`open_store(path)` is the one way in; the CLI and exporters code against `Store`.
"""

from __future__ import annotations

from pathlib import Path

from annotations.sqlite import SQLiteStore
from annotations.store import (
    MARK,
    Entry,
    Filters,
    Hit,
    ImportReport,
    Note,
    Revision,
    Status,
    Store,
)

__all__ = [
    "MARK",
    "Entry",
    "Filters",
    "Hit",
    "ImportReport",
    "Note",
    "Revision",
    "SQLiteStore",
    "Status",
    "Store",
    "default_path",
    "open_store",
]


def default_path() -> Path:
    """`library.sqlite` in the platform's user data directory for `bib`."""
    import platformdirs

    return platformdirs.user_data_path("bib") / "library.sqlite"


def open_store(path: Path | str | None = None) -> SQLiteStore:
    """Open the library at `path` (default: `default_path()`), creating and migrating it."""
    if path is None:
        target = default_path()
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return SQLiteStore(target)
    return SQLiteStore(Path(path).expanduser())
