"""The annotation store: reading notes, ratings, status and personal tags.

`open_store(location)` is the one way in: a `postgresql://` (or `postgres://`) URL opens the
team library on PostgreSQL (`annotations.postgres`, needs the `postgresql` extra), anything
else is a SQLite file. The CLI and exporters code against `Store`; a new backend is one
module plus one branch here.
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
from bib.errors import OperationError

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
    "is_url",
    "open_store",
]


def default_path() -> Path:
    """`library.sqlite` in the platform's user data directory for `bib`."""
    import platformdirs

    return platformdirs.user_data_path("bib") / "library.sqlite"


SCHEMES = ("postgresql://", "postgres://")


def is_url(location: Path | str) -> bool:
    """Whether a library location names a PostgreSQL database rather than a file."""
    return isinstance(location, str) and location.startswith(SCHEMES)


def open_store(location: Path | str | None = None, *, user: str | None = None) -> Store:
    """Open the library at `location` (default: `default_path()`), creating and migrating it,
    for `user` (default: `BIB_USER`, else the login name)."""
    if location is None:
        target = default_path()
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        return SQLiteStore(target, user=user)
    if is_url(location):
        try:
            from annotations.postgres import PostgresStore
        except ImportError:
            raise OperationError(
                "a PostgreSQL library needs psycopg: pip install 'bib[postgresql]'"
            ) from None
        return PostgresStore(str(location), user=user)
    return SQLiteStore(Path(location).expanduser(), user=user)
