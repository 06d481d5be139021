"""What a researcher trusts with years of notes: concurrency, crashes, failed imports, upgrades."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from annotations import migrate, open_store
from annotations.sqlite import SQLiteStore, connect
from bib.errors import BibError, OperationError

ROOT = Path(__file__).resolve().parents[2]


def python(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


WRITER = """
    import os, sys, time
    from pathlib import Path
    import annotations.sqlite
    from annotations import open_store
    library, go, worker = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    annotations.sqlite.BUSY_TIMEOUT_MS = int(sys.argv[4])
    os.environ["BIB_USER"] = ("ada", "ben")[int(worker) % 2]
    with open_store(library) as store:
        while not go.exists():
            time.sleep(0.001)
        for i in range(500):
            store.add_note("usmoe2026", f"worker {worker} note {i}")
"""


@pytest.mark.slow
@pytest.mark.parametrize("busy_ms", [5000, 1], ids=["busy-timeout", "retry-with-backoff"])
def test_eight_concurrent_writers_add_4000_notes_without_a_lock_error(
    library: Path, store: SQLiteStore, tmp_path: Path, busy_ms: int
) -> None:
    """Two users, four processes each. With a 1 ms busy timeout SQLite gives up at once:
    the retry loop must absorb it."""
    go = tmp_path / "go"
    workers = [python(WRITER, str(library), str(go), str(n), str(busy_ms)) for n in range(8)]
    time.sleep(1.0)  # every worker has opened the library and waits
    go.touch()
    results = [w.communicate(timeout=600) for w in workers]
    errors = [err for _, err in results if err.strip()]
    assert errors == []
    assert [w.returncode for w in workers] == [0] * 8
    notes = store.notes("usmoe2026")
    assert len(notes) == 4000
    assert len({n.body for n in notes}) == 4000
    assert sorted(n.author for n in notes) == ["ada"] * 2000 + ["ben"] * 2000


BATCHER = """
    import os, sys, time
    from annotations import open_store
    library, report = sys.argv[1], sys.argv[2]
    out = os.open(report, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with open_store(library) as store:
        batch = 0
        while True:
            with store.transaction():
                ids = []
                for i in range(50):
                    ids.append(store.add_note("usmoe2026", f"batch {batch} note {i}").id)
                    time.sleep(0.001)
            os.write(out, (" ".join(map(str, ids)) + "\\n").encode())
            os.fsync(out)
            batch += 1
"""


@pytest.mark.slow
def test_writer_killed_mid_batch_leaves_every_committed_note_and_a_sound_file(
    library: Path, store: SQLiteStore, tmp_path: Path
) -> None:
    report = tmp_path / "committed.txt"
    child = python(BATCHER, str(library), str(report))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if report.exists() and report.read_text().count("\n") >= 3:
            break
        time.sleep(0.01)
    time.sleep(0.025)  # well inside the next batch (each takes > 50 ms)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL
    committed = {int(i) for line in report.read_text().splitlines() for i in line.split()}
    with open_store(library) as reopened:
        assert reopened.integrity() == "ok"
        present = {n.id for n in reopened.notes()}
    assert committed <= present
    assert len(present) % 50 == 0  # no half batch
    assert len(committed) >= 150


PREVIOUS = 1
"""The store's schema before full-text search (0002): the previous version a user can have."""


@pytest.mark.sqlite_only
def test_store_written_by_the_previous_schema_migrates_without_loss(library: Path) -> None:
    previous = PREVIOUS
    conn = connect(library, upto=previous)
    assert migrate.user_version(conn) == previous
    stamp = "2026-01-01T00:00:00.000Z"
    conn.execute(
        "INSERT INTO records (id, key, venue, year, title, abstract, data, added, updated)"
        " VALUES ('id-1', 'old2025', 'ICML', 2025, 'Old Title', 'Old abstract about routers.',"
        ' \'{"id": "id-1", "key": "old2025", "title": "Old Title"}\', ?, ?)',
        (stamp, stamp),
    )
    conn.execute("INSERT INTO record_tags VALUES ('id-1', 'topic', 'routing')")
    conn.execute("INSERT INTO personal_tags VALUES ('id-1', 'classic', ?)", (stamp,))
    conn.execute("INSERT INTO key_aliases VALUES ('older2025', 'id-1', ?)", (stamp,))
    conn.execute("INSERT INTO reading VALUES ('id-1', 5, 'read', ?)", (stamp,))
    for n in range(3):
        conn.execute(
            "INSERT INTO notes (uuid, record_id, body, created, updated)"
            " VALUES (?, 'id-1', ?, ?, ?)",
            (f"00000000-0000-4000-8000-00000000000{n}", f"legacy note {n} zebra", stamp, stamp),
        )
    conn.execute(
        "INSERT INTO note_revisions (note_id, body, created, replaced) VALUES (1, 'v0', ?, ?)",
        (stamp, stamp),
    )
    conn.close()

    with open_store(library) as upgraded:
        assert migrate.user_version(upgraded.conn) == migrate.latest()
        entry = upgraded.entry("older2025")
        assert (entry.record.key, entry.rating, str(entry.status)) == ("old2025", 5, "read")
        assert entry.personal_tags == ("classic",)
        assert [n.body for n in upgraded.notes("old2025")] == [
            "legacy note 0 zebra",
            "legacy note 1 zebra",
            "legacy note 2 zebra",
        ]
        assert [r.body for r in upgraded.history(1)] == ["v0"]
        assert [h.key for h in upgraded.search("zebra")] == ["old2025"]
        assert [h.key for h in upgraded.search("classic")] == ["old2025"]
        assert [h.key for h in upgraded.search("routers")] == ["old2025"]


@pytest.mark.sqlite_only
def test_migration_first_keeps_a_backup_of_the_previous_version(library: Path) -> None:
    previous = PREVIOUS
    conn = connect(library, upto=previous)
    stamp = "2026-01-01T00:00:00.000Z"
    conn.execute(
        "INSERT INTO records (id, key, data, added, updated) VALUES ('i', 'k', '{}', ?, ?)",
        (stamp, stamp),
    )
    conn.execute(
        "INSERT INTO notes (uuid, record_id, body, created, updated) VALUES ('u', 'i', 'n', ?, ?)",
        (stamp, stamp),
    )
    conn.close()
    open_store(library).close()
    saved = sqlite3.connect(f"{library}.schema-{previous}.bak")
    assert migrate.user_version(saved) == previous
    assert saved.execute("SELECT body FROM notes").fetchall() == [("n",)]
    assert stat.S_IMODE(os.stat(f"{library}.schema-{previous}.bak").st_mode) == 0o600


def test_migrations_run_in_numeric_order_up_to_the_highest(tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0010_zotero_sync.sql").write_text("INSERT INTO log VALUES (10);\n")
    (folder / "0002_second.sql").write_text("INSERT INTO log VALUES (2);\n")
    (folder / "0001_first.sql").write_text("CREATE TABLE log (n);\nINSERT INTO log VALUES (1);\n")
    (folder / "README.txt").write_text("not a migration")
    conn = sqlite3.connect(":memory:", isolation_level=None)
    assert migrate.apply(conn, source=folder) == [1, 2, 10]
    assert [n for (n,) in conn.execute("SELECT n FROM log")] == [1, 2, 10]
    assert migrate.user_version(conn) == 10
    assert migrate.apply(conn, source=folder) == []


def test_a_store_migration_shipped_after_0010_still_runs(tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_first.sql").write_text("CREATE TABLE log (n);\n")
    (folder / "0010_zotero_sync.sql").write_text("INSERT INTO log VALUES (10);\n")
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate.apply(conn, source=folder)
    (folder / "0003_later.sql").write_text("INSERT INTO log VALUES (3);\n")
    assert migrate.apply(conn, source=folder) == [3]
    assert migrate.user_version(conn) == 10
    assert [n for (n,) in conn.execute("SELECT n FROM log")] == [10, 3]


def test_library_with_0010_applied_gets_a_newly_added_0004(tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    shutil.copytree(Path(migrate.__file__).parent / "migrations", folder)
    shipped = [m.number for m in migrate.migrations(folder)]
    assert shipped[:4] == [1, 2, 3, 10]  # the gap 0004-0009 this test fills
    library = tmp_path / "library.sqlite"
    connect(library, migrations=folder).close()
    (folder / "0004_note_minutes.sql").write_text("ALTER TABLE notes ADD COLUMN minutes INT;\n")
    conn = connect(library, migrations=folder)
    ledger = [n for (n,) in conn.execute(f"SELECT number FROM {migrate.LEDGER} ORDER BY number")]
    assert ledger == sorted([*shipped, 4])
    assert "minutes" in {row[1] for row in conn.execute("PRAGMA table_info(notes)")}
    assert migrate.user_version(conn) == max(shipped)


def test_migration_numbers_in_a_folder_are_distinct(tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0011_store.sql").write_text("SELECT 1;\n")
    (folder / "0011_zotero.sql").write_text("SELECT 2;\n")
    with pytest.raises(OperationError, match="two migrations numbered 11"):
        migrate.migrations(folder)


@pytest.mark.sqlite_only
def test_library_from_a_newer_bib_is_refused_untouched(library: Path) -> None:
    with open_store(library) as opened:
        opened.conn.execute("PRAGMA user_version = 999")
    before = library.read_bytes()
    with pytest.raises(BibError, match="schema version 999, newer") as caught:
        open_store(library)
    assert caught.value.exit_code == 2
    assert library.read_bytes() == before


def test_failed_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_first.sql").write_text("CREATE TABLE kept (n);\n")
    (folder / "0002_broken.sql").write_text("CREATE TABLE half (n);\nSELECT no_such_function();\n")
    conn = sqlite3.connect(tmp_path / "db.sqlite", isolation_level=None)
    migrate.apply(conn, source=folder, upto=1)
    conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError):
        migrate.apply(conn, source=folder)
    conn.execute("ROLLBACK")
    tables = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert (tables, migrate.user_version(conn)) == ({"kept", migrate.LEDGER}, 1)


OPENER = """
    import sys, time
    from pathlib import Path
    from annotations import open_store
    from bib.record import Record
    library, go, worker = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    while not go.exists():
        time.sleep(0.001)
    with open_store(library) as store:
        store.upsert([Record(id=f"id-{worker}", key=f"paper{worker}", title="t")])
"""


@pytest.mark.sqlite_only
def test_eight_processes_creating_the_same_new_library_at_once(
    library: Path, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    workers = [python(OPENER, str(library), str(go), str(n)) for n in range(8)]
    time.sleep(0.5)
    go.touch()
    results = [w.communicate(timeout=300) for w in workers]
    assert [err for _, err in results if err.strip()] == []
    with open_store(library) as opened:
        assert opened.count() == 8
        assert migrate.user_version(opened.conn) == migrate.latest()


def test_no_migration_can_cascade_a_delete_onto_notes() -> None:
    for migration in migrate.migrations():
        assert not re.search(r"ON\s+(DELETE|UPDATE)\s+CASCADE", migration.sql, re.I), migration.name


@pytest.mark.sqlite_only
def test_every_foreign_key_holds_after_a_day_of_use(store: SQLiteStore, papers) -> None:
    note = store.add_note("usmoe2026", "n")
    store.edit_note(note.id, "m")
    store.rekey("usmoe2026", "nguyen2026")
    store.upsert(papers)
    store.tag("judge2026", ["x"], [])
    store.rate("judge2026", 3)
    store.delete_note(note.id)
    assert store.conn.execute("PRAGMA foreign_key_check").fetchall() == []
