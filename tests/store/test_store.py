"""The store API against a real SQLite file: records, keys, notes, reading state, search."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from annotations import Filters, Status, migrate, open_store
from annotations.sqlite import MARK, SQLiteStore
from bib.errors import BibError
from bib.record import TagKind


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# The file


@pytest.mark.sqlite_only
def test_library_file_and_its_wal_and_shm_are_private(library: Path, store: SQLiteStore) -> None:
    store.add_note("usmoe2026", "keeps the WAL open")
    wal, shm = Path(f"{library}-wal"), Path(f"{library}-shm")
    assert wal.exists() and shm.exists()
    assert (mode(library), mode(wal), mode(shm)) == (0o600, 0o600, 0o600)


def test_library_is_private_even_with_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        with open_store(tmp_path / "open.sqlite"):
            pass
    finally:
        os.umask(old)
    assert mode(tmp_path / "open.sqlite") == 0o600


@pytest.mark.sqlite_only
def test_library_uses_wal_foreign_keys_and_a_busy_timeout(store: SQLiteStore) -> None:
    conn = store.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


@pytest.mark.sqlite_only
def test_new_library_is_at_the_latest_schema_version(store: SQLiteStore) -> None:
    assert migrate.user_version(store.conn) == migrate.latest() >= 2


def test_default_library_lives_in_the_user_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    with open_store(None) as opened:
        assert opened.path == tmp_path / "xdg" / "bib" / "library.sqlite"
    assert opened.path.exists()


@pytest.mark.sqlite_only
def test_records_cannot_be_deleted_while_notes_point_to_them(store: SQLiteStore) -> None:
    store.add_note("usmoe2026", "precious")
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("DELETE FROM records WHERE id = 'id-usmoe'")
    assert len(store.notes("usmoe2026")) == 1


# Records and keys


def test_upsert_reports_new_updated_and_unchanged(store: SQLiteStore, papers, make_record) -> None:
    changed = dataclasses.replace(papers[1], abstract="A new abstract.")
    report = store.upsert([papers[0], changed, make_record("id-new", "new2026", "New")])
    assert (report.new, report.updated, report.unchanged) == (
        ["new2026"],
        ["judge2026"],
        ["usmoe2026"],
    )


def test_key_is_pinned_when_the_key_rule_proposes_another(store: SQLiteStore, papers) -> None:
    report = store.upsert([dataclasses.replace(papers[0], key="somethingelse2026")])
    assert report.unchanged == ["usmoe2026"]
    assert store.resolve("usmoe2026").id == "id-usmoe"
    with pytest.raises(BibError):
        store.resolve("somethingelse2026")


def test_reimport_never_empties_a_stored_field(store: SQLiteStore, papers) -> None:
    store.upsert([dataclasses.replace(papers[0], authors=(), links=(), abstract="Newer.")])
    record = store.resolve("usmoe2026")
    assert [a.family for a in record.authors] == ["Nguyen", "Tran"]
    assert record.url == "https://example.org/usmoe"
    assert record.abstract == "Newer."


def test_derived_title_does_not_replace_a_real_one(store: SQLiteStore, papers) -> None:
    store.upsert([dataclasses.replace(papers[0], title="Usmoe derived", title_derived=True)])
    record = store.resolve("usmoe2026")
    assert (record.title, record.title_derived) == ("Unified Sparse Mixture of Experts", False)


def test_new_record_whose_key_is_taken_gets_a_suffix(store: SQLiteStore, make_record) -> None:
    report = store.upsert([make_record("id-other", "usmoe2026", "Another USMoE")])
    assert report.new == ["usmoe2026b"]


def test_rekey_keeps_the_old_key_as_an_alias(store: SQLiteStore) -> None:
    store.rekey("usmoe2026", "nguyen2026usmoe")
    assert store.resolve("usmoe2026").key == "nguyen2026usmoe"
    assert store.entry("nguyen2026usmoe").aliases == ("usmoe2026",)


def test_rekey_to_a_key_of_another_record_is_refused(store: SQLiteStore) -> None:
    with pytest.raises(BibError, match="already names another record"):
        store.rekey("usmoe2026", "judge2026")


def test_rekey_is_pinned_across_reimport(store: SQLiteStore, papers) -> None:
    store.rekey("usmoe2026", "nguyen2026usmoe")
    report = store.upsert([papers[0]])
    assert report.unchanged == ["nguyen2026usmoe"]


def test_alias_is_never_given_to_a_new_record(store: SQLiteStore, make_record) -> None:
    store.rekey("usmoe2026", "nguyen2026usmoe")
    report = store.upsert([make_record("id-other", "usmoe2026", "Another")])
    assert report.new == ["usmoe2026b"]
    assert store.resolve("usmoe2026").id == "id-usmoe"


def test_notes_survive_rekey_and_reimport(store: SQLiteStore, papers) -> None:
    note = store.add_note("usmoe2026", "Routing is an LP")
    store.rekey("usmoe2026", "nguyen2026usmoe")
    store.upsert([dataclasses.replace(papers[0], abstract="Changed abstract.")])
    assert [n.id for n in store.notes("usmoe2026")] == [note.id]
    assert store.notes("nguyen2026usmoe")[0].key == "nguyen2026usmoe"


def test_unknown_key_suggests_the_closest(store: SQLiteStore) -> None:
    with pytest.raises(BibError, match=r"unknown key 'usmo2026'; did you mean: usmoe2026\?"):
        store.resolve("usmo2026")


def test_import_failing_half_way_changes_nothing(store: SQLiteStore, make_record) -> None:
    before = store.count()

    def records():
        yield make_record("id-a", "a2026", "A")
        yield make_record("id-b", "b2026", "B")
        raise BibError("input broke half-way", "list.txt", 12)

    with pytest.raises(BibError):
        store.upsert(records())
    assert store.count() == before
    with pytest.raises(BibError):
        store.resolve("a2026")


# Notes


def test_note_add_then_list(store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "**Bold** idea")
    assert [(n.id, n.body, n.key) for n in store.notes("usmoe2026")] == [
        (note.id, "**Bold** idea", "usmoe2026")
    ]


def test_empty_note_is_refused(store: SQLiteStore) -> None:
    with pytest.raises(BibError, match="empty note"):
        store.add_note("usmoe2026", " \n\t")


def test_every_edit_keeps_the_previous_revision(store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "first")
    store.edit_note(note.id, "second")
    store.edit_note(note.id, "third")
    assert [r.body for r in store.history(note.id)] == ["first", "second"]
    assert store.note(note.id).body == "third"


def test_edit_with_the_same_text_makes_no_revision(store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "same")
    store.edit_note(note.id, "same")
    assert store.history(note.id) == []


def test_soft_delete_hides_a_note_and_restore_brings_it_back(store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "maybe wrong")
    store.delete_note(note.id)
    assert store.notes("usmoe2026") == []
    assert store.notes("usmoe2026", include_deleted=True)[0].deleted
    store.restore_note(note.id)
    assert store.notes("usmoe2026")[0].body == "maybe wrong"


def test_deleted_note_cannot_be_edited(store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "x")
    store.delete_note(note.id)
    with pytest.raises(BibError, match="restore"):
        store.edit_note(note.id, "y")


def test_unknown_note_id_is_bad_input(store: SQLiteStore) -> None:
    with pytest.raises(BibError, match="unknown note 999"):
        store.note(999)


# Rating, status, tags, filters


def test_rating_status_and_personal_tags_are_stored(store: SQLiteStore) -> None:
    store.rate("usmoe2026", 4)
    store.set_status("usmoe2026", Status.READING)
    store.tag("usmoe2026", ["moe", "reread"], [])
    store.tag("usmoe2026", [], ["reread"])
    entry = store.entry("usmoe2026")
    assert (entry.rating, entry.status, entry.personal_tags) == (4, Status.READING, ("moe",))


def test_rating_can_be_cleared(store: SQLiteStore) -> None:
    store.rate("usmoe2026", 4)
    assert store.rate("usmoe2026", None).rating is None


def test_rating_outside_1_to_5_is_refused(store: SQLiteStore) -> None:
    with pytest.raises(BibError):
        store.rate("usmoe2026", 6)


def test_personal_tags_are_kept_apart_from_extracted_tags(store: SQLiteStore) -> None:
    store.tag("usmoe2026", ["moe"], [])
    entry = store.entry("usmoe2026")
    assert [t.value for t in entry.record.tags] == ["mixture-of-experts", "USMoE"]
    assert entry.personal_tags == ("moe",)


def test_filters_by_tag_status_rating_and_venue(store: SQLiteStore) -> None:
    store.tag("judge2026", ["moe"], [])
    store.rate("usmoe2026", 5)
    store.rate("judge2026", 2)
    store.set_status("judge2026", Status.TO_READ)

    def keys(**kwargs: object) -> list[str]:
        return [e.record.key for e in store.entries(Filters(**kwargs))]  # type: ignore[arg-type]

    assert keys(tags=("mixture-of-experts",)) == ["usmoe2026"]
    assert keys(tags=("moe",)) == ["judge2026"]
    assert keys(status=Status.TO_READ) == ["judge2026"]
    assert keys(status=Status.UNREAD) == ["graphs2025", "usmoe2026"]
    assert keys(min_rating=3) == ["usmoe2026"]
    assert keys(venue="neurips") == ["graphs2025"]


def test_reimport_keeps_rating_status_and_personal_tags(store: SQLiteStore, papers) -> None:
    store.rate("usmoe2026", 5)
    store.tag("usmoe2026", ["moe"], [])
    store.upsert([dataclasses.replace(papers[0], tags=())])
    entry = store.entry("usmoe2026")
    assert (entry.rating, entry.personal_tags) == (5, ("moe",))


# Search


def test_search_ranks_a_title_match_above_an_abstract_match(store: SQLiteStore) -> None:
    hits = store.search("experts")
    assert [h.key for h in hits] == ["usmoe2026", "judge2026"]


def test_search_highlights_the_matching_words(store: SQLiteStore) -> None:
    hit = store.search("linear programming")[0]
    fields = dict(hit.snippets)
    assert f"{MARK[0]}linear{MARK[1]} {MARK[0]}programming{MARK[1]}" in fields["abstract"]


def test_search_finds_notes_and_names_them(store: SQLiteStore) -> None:
    note = store.add_note("graphs2025", "Compare with transformers on ogbg-molhiv")
    hit = store.search("molhiv")[0]
    assert hit.key == "graphs2025"
    assert hit.snippets[0][0] == f"note {note.id}"
    assert MARK[0] + "molhiv" in hit.snippets[0][1]


def test_search_ignores_deleted_notes(store: SQLiteStore) -> None:
    note = store.add_note("graphs2025", "zanzibar")
    store.delete_note(note.id)
    assert store.search("zanzibar") == []


def test_search_finds_personal_tags_and_extracted_tags(store: SQLiteStore) -> None:
    store.tag("judge2026", ["favourite"], [])
    assert [h.key for h in store.search("favourite")] == ["judge2026"]
    assert [h.key for h in store.search("graph-learning")] == ["graphs2025"]


def test_search_sees_edited_note_text_only(store: SQLiteStore) -> None:
    note = store.add_note("graphs2025", "alpha")
    store.edit_note(note.id, "beta")
    assert (store.search("alpha"), [h.key for h in store.search("beta")]) == ([], ["graphs2025"])


def test_search_quotes_user_input_so_fts_syntax_is_harmless(store: SQLiteStore) -> None:
    assert store.search('"unbalanced AND ( NEAR') == []


def test_search_prefix_query(store: SQLiteStore) -> None:
    assert [h.key for h in store.search("hypergr*")] == ["graphs2025"]


def test_malformed_fts_query_is_bad_input(store: SQLiteStore, raw_query: dict[str, str]) -> None:
    with pytest.raises(BibError, match="malformed search query"):
        store.search(raw_query["malformed"], raw=True)


def test_fts_syntax_query(store: SQLiteStore, raw_query: dict[str, str]) -> None:
    hits = store.search(raw_query["either"], raw=True)
    assert sorted(h.key for h in hits) == ["graphs2025", "judge2026"]


# Backup


def test_backup_is_a_consistent_private_copy(tmp_path: Path, store: SQLiteStore) -> None:
    store.add_note("usmoe2026", "backed up")
    dest = tmp_path / "backups" / "copy.sqlite"
    store.backup(dest)
    assert mode(dest) == 0o600
    with open_store(dest) as copy:
        assert copy.integrity() == "ok"
        assert [n.body for n in copy.notes()] == ["backed up"]
    assert not [p for p in dest.parent.iterdir() if p.name.endswith(".tmp")]


def test_tags_kinds_are_kept_in_the_record(store: SQLiteStore) -> None:
    kinds = {t.value: t.kind for t in store.resolve("usmoe2026").tags}
    assert kinds == {"mixture-of-experts": TagKind.TOPIC, "USMoE": TagKind.METHOD}


def test_keys_are_unique_ignoring_case_and_resolve_ignoring_case(
    store: SQLiteStore, make_record
) -> None:
    report = store.upsert([make_record("id-upper", "USMOE2026", "Shouting")])
    assert report.new == ["USMOE2026b"]
    assert store.resolve("USMoE2026").id == "id-usmoe"


def test_a_file_that_is_not_a_library_is_bad_input(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(BibError, match="cannot open the library"):
        open_store(bogus)
    assert bogus.read_text().startswith("these are my notes")


def test_wal_is_private_even_with_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        with open_store(tmp_path / "open.sqlite") as opened:
            opened.conn.execute("CREATE TABLE touch (x)")
            assert mode(tmp_path / "open.sqlite-wal") == 0o600
    finally:
        os.umask(old)


@pytest.mark.sqlite_only
def test_sqlite_store_implements_the_store_interface(store: SQLiteStore) -> None:
    from annotations import Store

    assert isinstance(store, Store)


def test_rekey_changing_only_case_keeps_no_alias(store: SQLiteStore) -> None:
    store.rekey("usmoe2026", "USMoE2026")
    entry = store.entry("usmoe2026")
    assert (entry.record.key, entry.aliases) == ("USMoE2026", ())
