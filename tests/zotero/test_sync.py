"""The sync engine against the live test server: complete, incremental, idempotent, safe."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from annotations import open_store
from bib.zotero import mapping
from tests.helpers import note_id_of


def stored(path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """Citation key -> entry, and note uuid -> citation key of its paper."""
    with open_store(path) as store:
        entries = {e.record.key: e for e in store.entries(full=True)}
    notes = {n.uuid: key for key, e in entries.items() for n in e.notes}
    return entries, notes


def by_citation_key(server: Any) -> dict[str, dict[str, Any]]:
    return {item["citationKey"]: item for item in server.top_items()}


def test_seeds_with_notes_land_in_an_empty_library(zotero_server, seeded_library, run_sync):
    report = run_sync(seeded_library)
    entries, notes = stored(seeded_library)
    items = by_citation_key(zotero_server)
    assert report.ok and not report.failures
    assert set(items) == set(entries)
    assert len(zotero_server.top_items()) == len(entries)
    key_of = {item["key"]: cite for cite, item in items.items()}
    placed = {note_id_of(n["note"]): key_of[n["parentItem"]] for n in zotero_server.notes()}
    assert placed == notes
    assert report.created == {"item": len(entries), "note": len(notes), "collection": 1}


def test_items_carry_tags_rating_status_and_collection(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    entries, _ = stored(seeded_library)
    first, second = sorted(entries)[:2]
    items = by_citation_key(zotero_server)
    assert {"tag": "/rating:4", "type": 0} in items[first]["tags"]
    assert {"tag": "/reading", "type": 0} in items[first]["tags"]
    assert {"tag": "to-discuss", "type": 0} in items[second]["tags"]
    (collection,) = zotero_server.library.collections.values()
    assert collection["data"]["name"] == "ICML 2026"
    assert all(i["collections"] == [collection["key"]] for i in items.values())


def test_no_op_resync_makes_no_write_request(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    zotero_server.log.clear()
    report = run_sync(seeded_library)
    assert zotero_server.log.writes() == []
    assert report.unchanged["item"] == len(zotero_server.top_items())


def test_edited_note_makes_exactly_one_write(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    with open_store(seeded_library) as store:
        note = store.notes()[0]
        store.edit_note(note.id, "Now with a **new** thought.")
    zotero_server.log.clear()
    report = run_sync(seeded_library)
    assert len(zotero_server.log.writes()) == 1
    assert report.updated == {"item": 0, "note": 1}
    texts = [n["note"] for n in zotero_server.notes()]
    assert any("<strong>new</strong>" in t for t in texts)


def test_batches_never_exceed_50_objects(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    entries, notes = stored(seeded_library)
    item_writes = zotero_server.log.count("POST", "/items")
    assert item_writes == math.ceil((len(entries) + len(notes)) / 50)
    assert all(e.status != 413 for e in zotero_server.log.entries)


def _edit_locally(path: Path, key: str, **changes: Any) -> None:
    import dataclasses

    with open_store(path) as store:
        store.upsert([dataclasses.replace(store.resolve(key), **changes)])


def _date_edited_on_both_sides(zotero_server: Any, library: Path, run_sync: Any) -> str:
    """Sync, then change the first paper's date in Zotero (2025) and locally (2027)."""
    run_sync(library)
    entries, _ = stored(library)
    cite = sorted(entries)[0]
    item = by_citation_key(zotero_server)[cite]
    zotero_server.library.edit_item(item["key"], date="2025")
    _edit_locally(library, cite, year=2027)
    return cite


def test_edits_to_different_fields_are_merged(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    entries, _ = stored(seeded_library)
    cite = sorted(entries)[0]
    item = by_citation_key(zotero_server)[cite]
    zotero_server.library.edit_item(item["key"], title="Edited in Zotero")
    with open_store(seeded_library) as store:
        store.tag(cite, ["local-tag"], [])
    report = run_sync(seeded_library)
    merged = by_citation_key(zotero_server)[cite]
    assert merged["title"] == "Edited in Zotero"
    assert {"tag": "local-tag", "type": 0} in merged["tags"]
    assert report.conflicts == []
    assert report.ok


def test_same_field_conflict_with_prefer_remote_keeps_remote_and_is_reported(
    zotero_server, seeded_library, run_sync
):
    cite = _date_edited_on_both_sides(zotero_server, seeded_library, run_sync)
    report = run_sync(seeded_library, prefer="remote")
    assert by_citation_key(zotero_server)[cite]["date"] == "2025"
    assert [(c.citation_key, c.field, c.kept) for c in report.conflicts] == [
        (cite, "date", "remote")
    ]
    zotero_server.log.clear()
    again = run_sync(seeded_library)
    assert zotero_server.log.writes() == [] and again.conflicts == []


def test_same_field_conflict_without_prefer_leaves_zotero_value_and_stays_open(
    zotero_server, seeded_library, run_sync
):
    cite = _date_edited_on_both_sides(zotero_server, seeded_library, run_sync)
    report = run_sync(seeded_library)
    assert by_citation_key(zotero_server)[cite]["date"] == "2025"
    assert [(c.citation_key, c.field, c.kept) for c in report.conflicts] == [(cite, "date", "open")]
    with open_store(seeded_library) as store:
        (conflict,) = store.sync_conflicts(_library_name(zotero_server))
        assert store.resolve(cite).year == 2027
    assert (conflict.field, conflict.local, conflict.remote) == ("date", "2027", "2025")
    settled = run_sync(seeded_library, prefer="local")
    assert by_citation_key(zotero_server)[cite]["date"] == "2027"
    assert settled.updated["item"] == 1
    with open_store(seeded_library) as store:
        assert store.sync_conflicts(_library_name(zotero_server)) == []


def _library_name(server: Any) -> str:
    from bib.zotero import sync

    return sync.library_id(server.url, "user", str(server.user_id))


def test_same_field_conflict_with_prefer_local(zotero_server, seeded_library, run_sync):
    cite = _date_edited_on_both_sides(zotero_server, seeded_library, run_sync)
    report = run_sync(seeded_library, prefer="local")
    assert by_citation_key(zotero_server)[cite]["date"] == "2027"
    assert [(c.field, c.kept) for c in report.conflicts] == [("date", "local")]


def test_412_during_the_write_is_merged_and_retried(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    entries, _ = stored(seeded_library)
    cite = sorted(entries)[0]
    key = by_citation_key(zotero_server)[cite]["key"]
    with open_store(seeded_library) as store:
        store.tag(cite, ["local-tag"], [])
    zotero_server.faults.configure(
        before_write=lambda lib: lib.edit_item(key, title="Raced in Zotero")
    )
    zotero_server.log.clear()
    report = run_sync(seeded_library)
    item = by_citation_key(zotero_server)[cite]
    assert item["title"] == "Raced in Zotero"
    assert {"tag": "local-tag", "type": 0} in item["tags"]
    assert zotero_server.log.count("POST") == 2  # the refused write, then the merged one
    assert report.ok and report.updated["item"] == 1


def test_deleted_in_zotero_is_not_recreated(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    entries, _ = stored(seeded_library)
    cite = sorted(entries)[0]
    zotero_server.library.remove_item(by_citation_key(zotero_server)[cite]["key"])
    report = run_sync(seeded_library)
    assert cite not in by_citation_key(zotero_server)
    assert report.deleted_in_zotero == [cite]
    again = run_sync(seeded_library, recreate_deleted=True)
    assert cite in by_citation_key(zotero_server)
    assert again.created["item"] == 1 and again.created["note"] == 2


def test_citation_key_goes_to_extra_on_older_servers(zotero_server, seeded_library, run_sync):
    zotero_server.library.citation_key_field = False
    report = run_sync(seeded_library)
    entries, _ = stored(seeded_library)
    items = zotero_server.top_items()
    assert report.ok
    assert all("citationKey" not in i for i in items)
    lines = {i["extra"].splitlines()[0] for i in items}
    assert lines == {f"Citation Key: {key}" for key in entries}


def test_dry_run_writes_nothing(zotero_server, seeded_library, run_sync):
    report = run_sync(seeded_library, dry_run=True)
    entries, notes = stored(seeded_library)
    assert zotero_server.log.writes() == []
    assert report.created["item"] == len(entries) and report.created["note"] == len(notes)
    assert run_sync(seeded_library).created["item"] == len(entries)


def test_retry_after_is_honoured(zotero_server, seeded_library, run_sync):
    import time

    zotero_server.faults.configure(
        script=[None, None, None, None, None, None, "429"], retry_after="1"
    )
    started = time.monotonic()
    report = run_sync(seeded_library)
    assert report.ok
    assert time.monotonic() - started >= 1.0


def test_twenty_percent_faults_end_with_one_item_per_record(
    zotero_server, seeded_library, run_sync
):
    zotero_server.faults.configure(rate=0.2, seed=7, retry_after="0.05", timeout_sleep=0.6)
    report = run_sync(seeded_library, timeout=0.3)
    entries, notes = stored(seeded_library)
    faults = [e.fault for e in zotero_server.log.entries if e.fault]
    assert len(set(faults)) >= 3
    assert report.ok
    assert sorted(i["citationKey"] for i in zotero_server.top_items()) == sorted(entries)
    assert sorted(note_id_of(n["note"]) for n in zotero_server.notes()) == sorted(notes)


def test_lost_create_responses_are_reconciled_without_duplicates(
    zotero_server, seeded_library, run_sync
):
    zotero_server.faults.configure(methods=frozenset({"POST"}), script=[None, "drop", "drop"])
    report = run_sync(seeded_library)
    entries, notes = stored(seeded_library)
    assert report.ok
    assert len(zotero_server.top_items()) == len(entries)
    assert len(zotero_server.notes()) == len(notes)


def test_updates_under_faults_keep_local_and_remote_changes(
    zotero_server, seeded_library, run_sync
):
    run_sync(seeded_library)
    with open_store(seeded_library) as store:
        for note in store.notes():
            store.edit_note(note.id, f"edited {note.id}")
        keys = sorted(store.pinned_keys().values())
        for key in keys[:20]:
            store.tag(key, ["faulty"], [])
    items = by_citation_key(zotero_server)
    for key in keys[10:15]:
        zotero_server.library.edit_item(items[key]["key"], title=f"remote {key}")
    zotero_server.faults.configure(rate=0.3, seed=3, retry_after="0.02", timeout_sleep=0.4)
    report = run_sync(seeded_library, timeout=0.2)
    zotero_server.faults.configure(rate=0.0)
    items = by_citation_key(zotero_server)
    assert report.ok and report.conflicts == []
    assert all({"tag": "faulty", "type": 0} in items[key]["tags"] for key in keys[:20])
    assert all(items[key]["title"] == f"remote {key}" for key in keys[10:15])
    assert all("edited" in n["note"] for n in zotero_server.notes())
    assert len(items) == len(keys)


def test_note_deleted_here_is_deleted_in_zotero_with_one_write(
    zotero_server, seeded_library, run_sync
):
    run_sync(seeded_library)
    with open_store(seeded_library) as store:
        note = store.notes()[0]
        store.delete_note(note.id)
    zotero_server.log.clear()
    report = run_sync(seeded_library)
    assert report.deleted == {"note": 1}
    assert zotero_server.log.count("DELETE") == 1 and len(zotero_server.log.writes()) == 1
    assert note.uuid not in {note_id_of(n["note"]) for n in zotero_server.notes()}
    zotero_server.log.clear()
    run_sync(seeded_library)
    assert zotero_server.log.writes() == []


def test_note_deleted_here_but_edited_in_zotero_is_kept(zotero_server, seeded_library, run_sync):
    run_sync(seeded_library)
    with open_store(seeded_library) as store:
        note = store.notes()[0]
        store.delete_note(note.id)
    remote = next(n for n in zotero_server.notes() if note_id_of(n["note"]) == note.uuid)
    zotero_server.library.edit_item(remote["key"], note=remote["note"] + "<p>more</p>")
    report = run_sync(seeded_library)
    assert report.deleted == {"note": 0}
    assert [c.field for c in report.conflicts] == ["deleted here, edited in Zotero"]
    assert remote["key"] in {n["key"] for n in zotero_server.notes()}


def test_lost_sync_state_adopts_existing_items_instead_of_duplicating(
    zotero_server, seeded_library, run_sync
):
    run_sync(seeded_library)
    with open_store(seeded_library) as store:
        store.conn.execute("DELETE FROM zotero_object")
        store.conn.execute("DELETE FROM zotero_library")
    report = run_sync(seeded_library)
    entries, notes = stored(seeded_library)
    assert report.ok
    assert len(zotero_server.top_items()) == len(entries)
    assert len(zotero_server.notes()) == len(notes)
    zotero_server.log.clear()
    run_sync(seeded_library)
    assert zotero_server.log.writes() == []


def test_lost_sync_state_still_pushes_a_change_made_meanwhile(
    zotero_server, seeded_library, run_sync
):
    run_sync(seeded_library)
    with open_store(seeded_library) as store:
        store.conn.execute("DELETE FROM zotero_object")
        note = store.notes()[0]
        store.edit_note(note.id, "Changed while the state was lost")
    report = run_sync(seeded_library)
    assert report.ok
    texts = [n["note"] for n in zotero_server.notes()]
    assert any("Changed while the state was lost" in t for t in texts)
    assert len(texts) == 3


def test_unchanged_papers_are_not_mapped_again(
    zotero_server, seeded_library, run_sync, monkeypatch
):
    run_sync(seeded_library)
    with open_store(seeded_library) as store:
        store.tag(sorted(store.pinned_keys().values())[0], ["fresh"], [])
    mapped = []
    original = mapping.item_data

    def counting(paper, **kwargs):
        mapped.append(paper.record.key)
        return original(paper, **kwargs)

    monkeypatch.setattr(mapping, "item_data", counting)
    report = run_sync(seeded_library)
    assert len(mapped) == 1
    assert report.updated["item"] == 1


def test_dry_run_reports_conflicts_and_writes_nothing(zotero_server, seeded_library, run_sync):
    cite = _date_edited_on_both_sides(zotero_server, seeded_library, run_sync)
    zotero_server.log.clear()
    report = run_sync(seeded_library, dry_run=True)
    assert zotero_server.log.writes() == []
    assert [(c.citation_key, c.field) for c in report.conflicts] == [(cite, "date")]
    assert by_citation_key(zotero_server)[cite]["date"] == "2025"
    assert run_sync(seeded_library).conflicts  # the real run meets the same conflict


def test_collection_option_puts_every_paper_in_one_named_collection(
    zotero_server, seeded_library, run_sync
):
    zotero_server.library.write_collections([{"name": "Reading group"}], zotero_server.url)
    report = run_sync(seeded_library, collection="Reading group")
    (collection,) = zotero_server.library.collections.values()
    assert report.created["collection"] == 0  # found by name, reused
    assert all(i["collections"] == [collection["key"]] for i in zotero_server.top_items())


def test_first_push_with_client_keys_obeys_the_428_rule(zotero_server, seeded_library, run_sync):
    """Regression (issue 11, point 1): keyed creates without `version` failed with 428."""
    report = run_sync(seeded_library)
    assert report.failures == []
    entries, notes = stored(seeded_library)
    assert len(zotero_server.top_items()) == len(entries)
    assert len(zotero_server.notes()) == len(notes)
    assert zotero_server.library.collections
