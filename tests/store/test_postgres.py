"""What only a shared PostgreSQL library has to promise: upgrades that take turns, read-only
roles, concurrent edits kept as revisions, passwords never shown, and lossless copies to and
from SQLite. Every test runs against a real server (tests/postgres_server.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from annotations import Status, open_store
from annotations.copy import copy_library, snapshot
from annotations.postgres import PostgresStore, redacted, ts_query
from bib.errors import OperationError

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.postgresql_only


def annotate(store: Any) -> int:
    """A day of use: aliases, revisions, a deleted note, ratings, status, tags, sync state."""
    note = store.add_note("usmoe2026", "first thoughts")
    store.edit_note(note.id, "second thoughts")
    store.edit_note(note.id, "third thoughts")
    gone = store.add_note("judge2026", "wrong paper")
    store.delete_note(gone.id)
    store.rekey("usmoe2026", "nguyen2026moe")
    store.rate("judge2026", 4)
    store.set_status("graphs2025", Status.READING)
    store.tag("judge2026", ["to-present", "Eval"], [])
    with store.transaction():
        store.insert_rows(
            "zotero_library", [{"library": "z|user|1", "version": 7, "synced_at": "t"}]
        )
    return int(note.id)


def test_copy_sqlite_to_postgresql_to_sqlite_is_identical(
    library: str, tmp_path: Path, papers: Any
) -> None:
    with open_store(tmp_path / "personal.sqlite") as personal, open_store(library) as store:
        personal.upsert(papers)
        annotate(personal)
        before = snapshot(personal)
        copy_library(personal, store)
        with open_store(tmp_path / "back.sqlite") as back:
            copy_library(store, back)
            after = snapshot(back)
    assert after == before
    assert len(before["note_revisions"]) == 2 and len(before["key_aliases"]) == 1


def test_copy_refuses_a_destination_with_papers_unless_merge(store: Any, tmp_path: Path) -> None:
    with open_store(tmp_path / "other.sqlite") as other:
        other.upsert([e.record for e in store.entries()])
        with pytest.raises(OperationError, match="--merge"):
            copy_library(other, store)
        other.add_note("judge2026", "from the laptop")
        report = copy_library(other, store, merge=True)
    assert report.copied["notes"] == 1 and report.copied["records"] == 0
    assert [n.body for n in store.notes("judge2026")] == ["from the laptop"]


def test_backup_of_a_postgresql_library_is_a_sqlite_file_with_everything(
    store: Any, tmp_path: Path
) -> None:
    note_id = annotate(store)
    dest = tmp_path / "backup.sqlite"
    store.backup(dest)
    with open_store(dest) as copy:
        assert copy.integrity() == "ok"
        assert [r.body for r in copy.history(note_id)] == ["first thoughts", "second thoughts"]
        assert copy.resolve("usmoe2026").key == "nguyen2026moe"
        assert snapshot(copy) == snapshot(store)
    assert dest.stat().st_mode & 0o777 == 0o600


def test_cli_library_copy_moves_a_personal_library_into_the_team_one(
    cli: Any, store: Any, library: str, tmp_path: Path
) -> None:
    personal = tmp_path / "personal.sqlite"
    with open_store(personal) as mine:
        mine.upsert([e.record for e in store.entries()])
        mine.add_note("judge2026", "mine")
    refused = cli("library", "copy", personal, library)
    assert (refused.exit_code, refused.stderr.count("\n")) == (1, 1)
    assert "--merge" in refused.stderr
    merged = cli("library", "copy", "--merge", personal, library)
    assert merged.exit_code == 0, merged.stderr
    assert [n.body for n in store.notes("judge2026")] == ["mine"]


def test_read_only_role_lists_searches_and_exports_but_a_write_is_one_error_line(
    cli: Any, store: Any, library: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = library.rsplit("/", 1)[1]
    store.conn.execute("DROP ROLE IF EXISTS bib_reader")
    store.conn.execute("CREATE ROLE bib_reader LOGIN")
    # The grants docs/library.md tells a lab admin to run for readers.
    store.conn.execute(f"GRANT CONNECT ON DATABASE {database} TO bib_reader")
    store.conn.execute("GRANT USAGE ON SCHEMA public TO bib_reader")
    store.conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO bib_reader")
    reader = library.replace("postgres@", "bib_reader@")
    monkeypatch.setenv("BIB_LIBRARY", reader)
    assert cli("list").exit_code == 0
    assert cli("search", "hypergraphs").stdout.startswith("graphs2025")
    assert cli("export", "-f", "csl-json").exit_code == 0
    refused = cli("rate", "judge2026", "3")
    assert refused.exit_code == 1
    assert refused.stderr.startswith("bib: error: the library is read-only for this PostgreSQL")
    assert refused.stderr.count("\n") == 1


def test_second_of_two_simultaneous_edits_keeps_the_first_as_a_revision(
    store: Any, library: str
) -> None:
    note = store.add_note("judge2026", "original")
    started = threading.Event()

    def slow_edit() -> None:
        with open_store(library) as first, first.transaction():
            first.edit_note(note.id, "edited by Ana")
            started.set()
            time.sleep(0.5)  # the row stays locked until this commit

    ana = threading.Thread(target=slow_edit)
    ana.start()
    started.wait(10)
    with open_store(library) as ben:
        ben.edit_note(note.id, "edited by Ben")
    ana.join()
    assert store.note(note.id).body == "edited by Ben"
    assert [r.body for r in store.history(note.id)] == ["original", "edited by Ana"]


OPENER = """
    import sys, time
    from pathlib import Path
    from annotations import open_store
    url, go = sys.argv[1], Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.001)
    with open_store(url) as store:
        store.count()
"""


def test_eight_clients_upgrading_a_new_database_at_once_take_turns(
    pg_database: str, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(OPENER), pg_database, str(go)],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    time.sleep(0.5)
    go.touch()
    errors = [w.communicate(timeout=120)[1] for w in workers]
    assert [e for e in errors if e.strip()] == []
    with psycopg.connect(pg_database) as conn:
        numbers = [r[0] for r in conn.execute("SELECT number FROM schema_migrations")]
    shipped = (ROOT / "annotations" / "pg_migrations").glob("[0-9][0-9][0-9][0-9]_*.sql")
    assert sorted(numbers) == sorted(int(path.name[:4]) for path in shipped)


def test_a_failed_connection_never_shows_the_password(postgres_server: Any) -> None:
    port = postgres_server.url.rsplit(":", 1)[1].split("/")[0]
    url = f"postgresql://nobody:s3cret-pw@127.0.0.1:{port}/nowhere"
    with pytest.raises(OperationError) as caught:
        PostgresStore(url)
    assert "s3cret-pw" not in str(caught.value) and "nobody:***@" in str(caught.value)


def test_redacted_url_hides_only_the_password() -> None:
    assert redacted("postgresql://ana:pw@db.lab:5432/papers?sslmode=require") == (
        "postgresql://ana:***@db.lab:5432/papers?sslmode=require"
    )


def test_plain_query_maps_words_prefixes_and_phrases_to_tsquery() -> None:
    assert ts_query("Mixture expert* llm-as-a-judge") == (
        "'mixture' & 'expert':* & ('llm' <-> 'as' <-> 'a' <-> 'judge')"
    )


def test_search_uses_the_weighted_gin_index(store: Any) -> None:
    kinds = dict(
        store.conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('records', 'notes')"
        ).fetchall()
    )
    assert "USING gin (search)" in kinds["records_search"]
    assert "USING gin (search)" in kinds["notes_search"]


def test_title_match_ranks_above_abstract_match(store: Any, make_record: Any) -> None:
    store.upsert(
        [
            make_record("id-a", "abstract2026", "Other things", "routing appears here"),
            make_record("id-t", "title2026", "Routing for all", "nothing else"),
        ]
    )
    assert [h.key for h in store.search("routing")][:2] == ["title2026", "abstract2026"]


def test_postgres_store_implements_the_store_interface(store: Any) -> None:
    from annotations import Store

    assert isinstance(store, Store)
