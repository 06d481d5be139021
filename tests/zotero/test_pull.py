"""Two-way sync: what users change in Zotero comes back into the library."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annotations import open_store


def sync(cli: Any, server: Any, *extra: str) -> Any:
    return cli("sync", "zotero", "--endpoint", server.url, "--timeout", "60", *extra)


def item_of(server: Any, cite: str) -> dict[str, Any]:
    return next(i for i in server.top_items() if i.get("citationKey") == cite)


def first_key(path: Path) -> str:
    with open_store(path) as store:
        return sorted(store.pinned_keys().values())[0]


def add_remote(server: Any, obj: dict[str, Any]) -> str:
    """Write as the Zotero desktop client would (no client key)."""
    with server.library.lock:
        report, _ = server.library.write_items([obj], None, server.url)
    assert not report["failed"], report
    return str(report["success"]["0"])


def test_a_title_edited_in_zotero_arrives(cli, zotero_server, seeded_library, env):
    assert sync(cli, zotero_server).exit_code == 0
    cite = first_key(seeded_library)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Fixed title")
    result = sync(cli, zotero_server)
    assert result.exit_code == 0, result.output
    assert "pulled: 1 updated" in result.stdout
    with open_store(seeded_library) as store:
        assert store.resolve(cite).title == "Fixed title"


def test_creators_and_date_edited_in_zotero_arrive(cli, zotero_server, seeded_library, env):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    creators = [{"creatorType": "author", "firstName": "Ada", "lastName": "Lovelace"}]
    key = item_of(zotero_server, cite)["key"]
    zotero_server.library.edit_item(key, creators=creators, date="2019")
    sync(cli, zotero_server)
    with open_store(seeded_library) as store:
        record = store.resolve(cite)
    assert [(a.given, a.family) for a in record.authors] == [("Ada", "Lovelace")]
    assert record.year == 2019


def test_manual_tags_added_and_removed_in_zotero_become_personal_tags(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    with open_store(seeded_library) as store:
        cite = sorted(store.pinned_keys().values())[1]  # tagged "to-discuss"
    item = item_of(zotero_server, cite)
    tags = [t for t in item["tags"] if t["tag"] != "to-discuss"] + [{"tag": "must-read"}]
    zotero_server.library.edit_item(item["key"], tags=tags)
    sync(cli, zotero_server)
    with open_store(seeded_library) as store:
        assert store.entry(cite).personal_tags == ("must-read",)


def test_a_note_written_in_zotero_arrives_as_markdown(cli, zotero_server, seeded_library, env):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    parent = item_of(zotero_server, cite)["key"]
    html = "<p>Check <strong>Table 2</strong></p><ul><li>one</li><li>two</li></ul>"
    add_remote(zotero_server, {"itemType": "note", "note": html, "parentItem": parent})
    result = sync(cli, zotero_server)
    assert "1 notes added" in result.stdout
    with open_store(seeded_library) as store:
        bodies = [n.body for n in store.notes(cite)]
    assert any("**Table 2**" in b and "- one" in b for b in bodies)
    writes = zotero_server.log.writes()
    zotero_server.log.clear()
    assert sync(cli, zotero_server).exit_code == 0
    assert zotero_server.log.writes() == [], writes


def test_an_edit_in_zotero_of_a_pushed_note_becomes_a_new_revision(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    note = next(n for n in zotero_server.notes() if "Nice ablations" in n["note"])
    zotero_server.library.edit_item(
        note["key"], note="<p>Nice ablations, but <em>no</em> seeds.</p>"
    )
    result = sync(cli, zotero_server)
    assert "1 notes revised" in result.stdout
    with open_store(seeded_library) as store:
        (local,) = [n for n in store.notes() if "ablations" in n.body]
        assert local.body == "Nice ablations, but *no* seeds."
        assert [r.body for r in store.history(local.id)] == ["Nice ablations."]


def test_an_item_trashed_in_zotero_stays_here_is_reported_and_not_pushed_again(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], deleted=1)
    result = sync(cli, zotero_server)
    assert f"deleted\t{cite}\tdeleted or trashed in Zotero" in result.stdout
    with open_store(seeded_library) as store:
        assert store.resolve(cite).key == cite
        assert store.notes(cite)
    zotero_server.log.clear()
    sync(cli, zotero_server)
    assert zotero_server.log.writes() == []


def test_items_created_in_zotero_are_imported_under_their_citation_keys(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    base = {"itemType": "journalArticle", "date": "2020", "creators": []}
    add_remote(zotero_server, {**base, "title": "Zotero native", "citationKey": "native2020"})
    add_remote(
        zotero_server,
        {**base, "title": "Better BibTeX pinned", "extra": "Citation Key: bbtpinned2020"},
    )
    result = sync(cli, zotero_server)
    assert "2 imported" in result.stdout, result.output
    with open_store(seeded_library) as store:
        assert store.resolve("native2020").title == "Zotero native"
        assert store.resolve("bbtpinned2020").title == "Better BibTeX pinned"


def test_a_whole_zotero_library_is_imported_on_first_pull(cli, zotero_server, env):
    for n in range(3):
        add_remote(zotero_server, {"itemType": "journalArticle", "title": f"Paper {n} on MoE"})
    result = sync(cli, zotero_server, "--pull-only")
    assert result.exit_code == 0, result.output
    assert "3 imported" in result.stdout
    assert zotero_server.log.writes() == []


def test_prefer_remote_takes_the_zotero_value_of_a_conflict(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Remote title")
    with open_store(seeded_library) as store:
        import dataclasses

        store.upsert([dataclasses.replace(store.resolve(cite), title="Local title")])
    result = sync(cli, zotero_server, "--json", "--prefer", "remote")
    summary = json.loads(result.stdout)
    assert summary["pulled"]["conflicts"] == [
        {"citation_key": cite, "field": "title", "kept": "remote", "what": "item"}
    ]
    assert summary["open_conflicts"] == []
    with open_store(seeded_library) as store:
        assert store.resolve(cite).title == "Remote title"


def test_prefer_local_keeps_the_local_value_and_pushes_it(cli, zotero_server, seeded_library, env):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Remote title")
    with open_store(seeded_library) as store:
        import dataclasses

        store.upsert([dataclasses.replace(store.resolve(cite), title="Local title")])
    assert sync(cli, zotero_server, "--prefer", "local").exit_code == 0
    assert item_of(zotero_server, cite)["title"] == "Local title"
    with open_store(seeded_library) as store:
        assert store.resolve(cite).title == "Local title"


def test_a_pull_that_would_delete_most_papers_is_refused_without_force(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    for item in list(zotero_server.top_items()):
        zotero_server.library.remove_item(item["key"])
    result = sync(cli, zotero_server)
    assert result.exit_code == 1
    assert "refusing to apply that" in result.stderr
    result = sync(cli, zotero_server, "--force", "--json")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["pulled"]["deleted_in_zotero"]) > 5


def test_a_pull_cut_short_does_not_advance_the_library_version(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Fixed title")
    # the listings work, then every fetch of the changed items fails until --timeout
    zotero_server.faults.configure(script=[None, None] + ["500"] * 40, retry_after="0")
    result = sync(cli, zotero_server, "--timeout", "2")
    assert result.exit_code == 1 and "--timeout" in result.stderr
    assert zotero_server.log.count("GET", "/items") >= 2  # the fetch was tried
    zotero_server.faults.configure(script=[])
    result = sync(cli, zotero_server)
    assert result.exit_code == 0, result.output
    with open_store(seeded_library) as store:
        assert store.resolve(cite).title == "Fixed title"


def test_no_op_two_way_sync_makes_no_write_and_three_reads(cli, zotero_server, seeded_library, env):
    sync(cli, zotero_server)
    sync(cli, zotero_server)
    zotero_server.log.clear()
    assert sync(cli, zotero_server).exit_code == 0
    assert zotero_server.log.writes() == []
    reads = [(e.path.rsplit("/", 1)[-1], e.status) for e in zotero_server.log.entries]
    # the versions listing answers 304 (nothing changed), so the deletion log is not read
    # and the push reuses the pull's listing; then the key check and the field list
    assert sorted(reads) == [("current", 200), ("itemTypeFields", 200), ("items", 304)]


def test_the_pull_asks_with_if_modified_since_version_and_the_library_version(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    sync(cli, zotero_server)  # the first run stores the version read before its own writes
    stored = zotero_server.library.version
    zotero_server.log.clear()
    sync(cli, zotero_server, "--pull-only")
    (listing,) = [e for e in zotero_server.log.entries if e.path.endswith("/items")]
    assert listing.headers["If-Modified-Since-Version"] == str(stored)
    assert f"since={stored}" in listing.query and listing.status == 304


def test_a_change_in_zotero_is_seen_through_if_modified_since_version(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Seen")
    zotero_server.log.clear()
    assert "pulled: 1 updated" in sync(cli, zotero_server, "--pull-only").stdout
    statuses = [e.status for e in zotero_server.log.entries if e.path.endswith("/items")]
    assert 304 not in statuses


def test_group_library_end_to_end(cli, zotero_server, seeded_library, env, monkeypatch):
    zotero_server.library.group_id = 98765
    monkeypatch.setenv("ZOTERO_LIBRARY_TYPE", "group")
    monkeypatch.setenv("ZOTERO_LIBRARY_ID", "98765")
    assert sync(cli, zotero_server).exit_code == 0
    assert all(
        e.path.startswith("/groups/98765")
        or e.path.startswith("/keys")
        or e.path.startswith("/item")
        for e in zotero_server.log.entries
    )
    cite = first_key(seeded_library)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Group edit")
    assert sync(cli, zotero_server).exit_code == 0
    with open_store(seeded_library) as store:
        assert store.resolve(cite).title == "Group edit"


def test_group_library_without_write_access_is_refused_before_writing(
    cli, zotero_server, seeded_library, env, monkeypatch
):
    zotero_server.library.group_id = 98765
    zotero_server.library.group_write = False
    monkeypatch.setenv("ZOTERO_LIBRARY_TYPE", "group")
    monkeypatch.setenv("ZOTERO_LIBRARY_ID", "98765")
    result = sync(cli, zotero_server)
    assert result.exit_code == 1
    assert "no write access" in result.stderr
    assert zotero_server.log.writes() == []


@pytest.mark.sqlite_only  # `bib set`: not on PostgreSQL libraries yet
def test_a_field_edited_with_bib_set_is_not_overwritten_by_a_pull(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    cite = first_key(seeded_library)
    assert cli("set", cite, "title=Mine").exit_code == 0
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Theirs")
    result = sync(cli, zotero_server, "--pull-only", "--json", "--prefer", "remote")
    assert result.exit_code == 0, result.output
    conflicts = json.loads(result.stdout)["pulled"]["conflicts"]
    assert {"citation_key": cite, "field": "title", "kept": "local", "what": "item"} in conflicts
    with open_store(seeded_library) as store:
        assert store.resolve(cite).title == "Mine"
