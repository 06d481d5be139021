"""Several people in one library (issue 13, point 3), on each backend: notes record their
author, ratings and reading status are per user, personal tags are shared labels, and
exports, imports, copies and upgrades keep all of it.

Who "you" are is `BIB_USER`, else the login name, which Python's `getpass.getuser()` takes
from LOGNAME, USER, LNAME or USERNAME, in that order (its documented rule), before the
password database.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from annotations import Status, Store, migrate, open_store
from annotations.sqlite import connect

ROOT = Path(__file__).resolve().parents[2]
PREVIOUS = 20
"""The schema before per-user reading state (0030): the version a user upgrades from."""


@pytest.fixture
def as_user(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def switch(name: str) -> None:
        monkeypatch.setenv("BIB_USER", name)

    return switch


def test_a_note_records_its_author_from_bib_user(cli, store: Store, as_user) -> None:
    as_user("alice")
    assert cli("note", "add", "usmoe2026", "routing as an LP").exit_code == 0
    listed = cli("note", "list", "usmoe2026")
    assert listed.stdout.split("\t")[2] == "alice"
    assert "--- note 1 by alice" in cli("show", "usmoe2026").stdout
    [shown] = json.loads(cli("note", "list", "--json").stdout)
    assert (shown["author"], shown["edited_by"]) == ("alice", "alice")


def test_without_bib_user_the_author_is_the_login_name(
    cli, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BIB_USER", raising=False)
    monkeypatch.setenv("LOGNAME", "carol")
    cli("note", "add", "judge2026", "adaptive judges")
    assert [n.author for n in store.notes("judge2026")] == ["carol"]


def test_an_empty_bib_user_is_one_error_line(cli, store: Store, as_user) -> None:
    as_user("  ")
    result = cli("note", "add", "judge2026", "x")
    assert result.exit_code == 2
    assert result.stderr == "bib: error: empty user name (set BIB_USER)\n"


def test_rating_and_status_are_each_readers_own(cli, store: Store, as_user) -> None:
    as_user("alice")
    cli("rate", "usmoe2026", "5")
    cli("status", "usmoe2026", "read")
    as_user("bob")
    cli("rate", "usmoe2026", "2")
    mine = json.loads(cli("show", "usmoe2026", "--json").stdout)
    assert (mine["user"], mine["rating"], mine["status"]) == ("bob", 2, "unread")
    alice = json.loads(cli("show", "usmoe2026", "--user", "alice", "--json").stdout)
    assert (alice["user"], alice["rating"], alice["status"]) == ("alice", 5, "read")


def test_all_users_shows_every_readers_rating_and_status(cli, store: Store, as_user) -> None:
    as_user("alice")
    cli("rate", "usmoe2026", "5")
    as_user("bob")
    cli("status", "usmoe2026", "reading")
    listed = json.loads(cli("list", "--all-users", "--json").stdout)
    usmoe = next(e for e in listed if e["key"] == "usmoe2026")
    assert [(r["user"], r["rating"], r["status"]) for r in usmoe["readings"]] == [
        ("alice", 5, "unread"),
        ("bob", None, "reading"),
    ]
    shown = cli("show", "usmoe2026", "--all-users").stdout
    assert "reader:   alice *****, unread" in shown
    assert "reader:   bob reading" in shown
    table = cli("list", "--all-users").stdout
    assert "alice *****, unread; bob reading" in table


def test_status_and_rating_filters_use_the_chosen_readers_state(cli, store: Store, as_user) -> None:
    as_user("alice")
    cli("status", "judge2026", "read")
    as_user("bob")
    assert cli("list", "--status", "read").stdout == ""
    assert cli("list", "--status", "read", "--user", "alice").stdout.startswith("judge2026\t")


def test_note_list_user_keeps_the_notes_that_person_wrote(cli, store: Store, as_user) -> None:
    as_user("alice")
    cli("note", "add", "judge2026", "alice's")
    as_user("bob")
    cli("note", "add", "judge2026", "bob's")
    notes = json.loads(cli("note", "list", "--user", "alice", "--json").stdout)
    assert [n["body"] for n in notes] == ["alice's"]


def test_personal_tags_are_the_teams_labels(cli, store: Store, as_user) -> None:
    as_user("alice")
    cli("tag", "graphs2025", "+reading-group")
    as_user("bob")
    assert json.loads(cli("show", "graphs2025", "--json").stdout)["personal_tags"] == [
        "reading-group"
    ]
    assert cli("list", "--tag", "reading-group").stdout.startswith("graphs2025\t")


def test_editing_anothers_note_keeps_who_wrote_each_text(library: Any, store: Store) -> None:
    with open_store(library, user="alice") as alice:
        note = alice.add_note("judge2026", "alice's text")
    with open_store(library, user="bob") as bob:
        edited = bob.edit_note(note.id, "bob's text")
        assert (edited.author, edited.edited_by) == ("alice", "bob")
        assert [(r.body, r.author) for r in bob.history(note.id)] == [("alice's text", "alice")]


def test_history_shows_who_wrote_each_version(cli, store: Store, as_user) -> None:
    as_user("alice")
    cli("note", "add", "judge2026", "first")
    as_user("bob")
    cli("note", "edit", "1", "second")
    shown = cli("note", "history", "1").stdout
    assert "--- version 1, written" in shown and " by alice (replaced" in shown
    assert " by bob (current)" in shown


def test_notes_export_and_import_keep_authors_and_every_readers_state(
    cli, store: Store, as_user, tmp_path: Path
) -> None:
    as_user("alice")
    cli("note", "add", "usmoe2026", "alice wrote this")
    cli("rate", "usmoe2026", "4")
    as_user("bob")
    cli("note", "edit", "1", "bob changed it")
    cli("status", "usmoe2026", "to-read")
    exported = tmp_path / "notes.json"
    assert cli("notes", "export", "-f", "json", exported).exit_code == 0
    data = json.loads(exported.read_text(encoding="utf-8"))
    [paper] = data["papers"]
    [note] = paper["notes"]
    assert (note["author"], note["edited_by"]) == ("alice", "bob")
    assert [r["author"] for r in note["revisions"]] == ["alice"]
    assert {r["user"]: (r["rating"], r["status"]) for r in paper["readings"]} == {
        "alice": (4, "unread"),
        "bob": (None, "to-read"),
    }
    as_user("someone-else")
    fresh = tmp_path / "fresh.sqlite"
    assert cli("--library", fresh, "notes", "import", exported).exit_code == 0
    with open_store(fresh) as restored:
        [back] = restored.notes()
        assert (back.author, back.edited_by) == ("alice", "bob")
        assert restored.entry("usmoe2026", user="alice").rating == 4
        assert restored.entry("usmoe2026", user="bob").status == Status.TO_READ
        assert restored.entry("usmoe2026").rating is None  # nothing of the importer's


def test_a_markdown_export_names_each_notes_author(cli, store: Store, as_user, tmp_path) -> None:
    as_user("alice")
    cli("note", "add", "judge2026", "judges")
    assert cli("notes", "export", "-f", "markdown", tmp_path / "vault").exit_code == 0
    text = (tmp_path / "vault" / "judge2026.md").read_text(encoding="utf-8")
    assert "## Note " in text and "(alice)\n" in text


def test_library_copy_carries_authors_and_each_readers_state(
    cli, library: Any, tmp_path: Path, papers: Any
) -> None:
    personal = tmp_path / "personal.sqlite"
    with open_store(personal, user="alice") as alice:
        alice.upsert(papers)
        note = alice.add_note("usmoe2026", "mine")
        alice.rate("usmoe2026", 5)
    with open_store(personal, user="bob") as bob:
        bob.edit_note(note.id, "bob's now")
        bob.set_status("usmoe2026", Status.READ)
    assert cli("library", "copy", personal, library).exit_code == 0
    with open_store(library, user="alice") as copied:
        [moved] = copied.notes()
        assert (moved.author, moved.edited_by) == ("alice", "bob")
        assert [r.author for r in copied.history(moved.id)] == ["alice"]
        readings = copied.entry("usmoe2026").readings
        assert [(r.user, r.rating, r.status) for r in readings] == [
            ("alice", 5, Status.UNREAD),
            ("bob", None, Status.READ),
        ]


# Upgrading a library made by the previous schema


def _previous_sqlite(path: Path) -> None:
    conn = connect(path, upto=PREVIOUS)
    assert migrate.user_version(conn) == PREVIOUS
    _fill_previous(conn.execute)
    conn.close()


def _previous_postgres(url: str) -> None:
    """A database at schema 0020, as the previous bib left it: its migrations and ledger."""
    folder = ROOT / "annotations" / "pg_migrations"
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute(
            "CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied TEXT NOT NULL)"
        )
        for migration in migrate.migrations(folder):
            if migration.number > PREVIOUS:
                continue
            conn.execute(migration.sql.encode())
            conn.execute(
                "INSERT INTO schema_migrations VALUES (%s, %s, 't')",
                (migration.number, migration.name),
            )
        _fill_previous(lambda sql, params=(): conn.execute(sql.replace("?", "%s"), params))


def _fill_previous(execute: Any) -> None:
    stamp = "2026-01-01T00:00:00.000Z"
    execute(
        "INSERT INTO records (id, key, data, added, updated) VALUES"
        ' (\'id-1\', \'old2025\', \'{"id": "id-1", "key": "old2025", "title": "Old"}\', ?, ?)',
        (stamp, stamp),
    )
    execute(
        "INSERT INTO reading (record_id, rating, status, updated) VALUES ('id-1', 5, 'read', ?)",
        (stamp,),
    )
    execute(
        "INSERT INTO notes (uuid, record_id, body, created, updated)"
        " VALUES ('00000000-0000-4000-8000-000000000001', 'id-1', 'legacy', ?, ?)",
        (stamp, stamp),
    )
    execute(
        "INSERT INTO note_revisions (note_id, body, created, replaced) VALUES (1, 'older', ?, ?)",
        (stamp, stamp),
    )


def test_a_library_of_the_previous_schema_upgrades_without_loss_for_the_upgrading_user(
    backend: str, library: Any, as_user
) -> None:
    if backend == "sqlite":
        _previous_sqlite(library)
    else:
        _previous_postgres(library)
    as_user("dave")
    with open_store(library) as upgraded:
        entry = upgraded.entry("old2025")
        assert (entry.rating, entry.status) == (5, Status.READ)
        assert [(r.user, r.rating) for r in entry.readings] == [("dave", 5)]
        [note] = upgraded.notes()
        assert (note.body, note.author, note.edited_by) == ("legacy", "dave", "dave")
        assert [(r.body, r.author) for r in upgraded.history(note.id)] == [("older", "dave")]
        assert [h.key for h in upgraded.search("legacy")] == ["old2025"]
    with open_store(library, user="erin") as other:
        assert other.entry("old2025").rating is None  # dave's, not everyone's


@pytest.mark.sqlite_only
def test_the_upgrade_keeps_a_backup_of_the_previous_schema(library: Path) -> None:
    _previous_sqlite(library)
    open_store(library).close()
    saved = sqlite3.connect(f"{library}.schema-{PREVIOUS}.bak")
    assert saved.execute("SELECT rating FROM reading").fetchall() == [(5,)]


# Two people editing one note at once (a real server, two connections)


@pytest.mark.postgresql_only
def test_two_people_saving_one_note_at_once_lose_nothing_and_keep_their_names(
    store: Store, library: str
) -> None:
    with open_store(library, user="ana") as ana:
        note = ana.add_note("judge2026", "original by ana")
    holding = threading.Event()

    def ana_saves_slowly() -> None:
        with open_store(library, user="ana") as first, first.transaction():
            first.edit_note(note.id, "ana's edit")
            holding.set()
            time.sleep(0.5)  # the note's row stays locked until this commit

    thread = threading.Thread(target=ana_saves_slowly)
    thread.start()
    assert holding.wait(10)
    with open_store(library, user="ben") as ben:
        saved = ben.edit_note(note.id, "ben's edit")  # waits for ana's commit, then saves
    thread.join()
    assert (saved.body, saved.edited_by) == ("ben's edit", "ben")
    assert [(r.body, r.author) for r in store.history(note.id)] == [
        ("original by ana", "ana"),
        ("ana's edit", "ana"),
    ]


def test_a_note_saved_by_someone_else_while_you_edit_is_kept_and_you_are_told(
    cli, store: Store, library: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(library, user="ana") as ana:
        note = ana.add_note("judge2026", "original")
    script = tmp_path / "racing_editor.py"
    script.write_text(
        "import sys\n"
        "from annotations import open_store\n"
        f"with open_store({str(library)!r}, user='ben') as ben:\n"
        f"    ben.edit_note({note.id}, 'ben saved meanwhile')\n"
        "open(sys.argv[1], 'w').write('my edit')\n"
    )
    monkeypatch.setenv("EDITOR", f"{__import__('sys').executable} {script}")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("BIB_USER", "cleo")
    result = cli("note", "edit", str(note.id))
    assert result.exit_code == 0
    assert f"bib: note {note.id} changed while you were editing (by ben at " in result.stderr
    assert store.note(note.id).body == "my edit"
    assert [(r.body, r.author) for r in store.history(note.id)] == [
        ("original", "ana"),
        ("ben saved meanwhile", "ben"),
    ]
