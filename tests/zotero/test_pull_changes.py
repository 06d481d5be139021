"""Each kind of change made in Zotero arrives in the library with the next sync (issue 11):
field edits (abstract, DOI, URL, publication fields, the arXiv line of `extra`), emptied
fields, collection moves, deletions and items created in Zotero with their notes and tags."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from annotations import open_store


def sync(cli: Any, server: Any, *extra: str) -> Any:
    result = cli("sync", "zotero", "--endpoint", server.url, "--timeout", "60", *extra)
    assert result.exit_code == 0, result.output
    return result


def synced_first_paper(cli: Any, server: Any, path: Path) -> tuple[str, str]:
    """Sync; the first paper's citation key and Zotero key."""
    sync(cli, server)
    with open_store(path) as store:
        cite = sorted(store.pinned_keys().values())[0]
    item = next(i for i in server.top_items() if i.get("citationKey") == cite)
    return cite, item["key"]


def record(path: Path, cite: str) -> Any:
    with open_store(path) as store:
        return store.resolve(cite)


def add_remote(server: Any, obj: dict[str, Any]) -> str:
    with server.library.lock:
        report, _ = server.library.write_items([obj], None, server.url)
    assert not report["failed"], report
    return str(report["success"]["0"])


def test_an_abstract_edited_in_zotero_arrives(cli, zotero_server, seeded_library, env):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    zotero_server.library.edit_item(key, abstractNote="A better abstract.")
    sync(cli, zotero_server)
    assert record(seeded_library, cite).abstract == "A better abstract."


def test_a_doi_added_in_zotero_arrives(cli, zotero_server, seeded_library, env):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    zotero_server.library.edit_item(key, DOI="10.5555/12345678")
    sync(cli, zotero_server)
    assert record(seeded_library, cite).doi == "10.5555/12345678"


def test_a_url_edited_in_zotero_arrives(cli, zotero_server, seeded_library, env):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    zotero_server.library.edit_item(key, url="https://example.org/paper.pdf")
    sync(cli, zotero_server)
    assert record(seeded_library, cite).url == "https://example.org/paper.pdf"


def test_a_proceedings_title_edited_in_zotero_arrives(cli, zotero_server, seeded_library, env):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    zotero_server.library.edit_item(key, proceedingsTitle="Proceedings of ICML 2026")
    sync(cli, zotero_server)
    assert record(seeded_library, cite).container_title == "Proceedings of ICML 2026"


def test_an_arxiv_line_added_to_extra_in_zotero_arrives(cli, zotero_server, seeded_library, env):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    zotero_server.library.edit_item(key, extra="arXiv: 2601.01234")
    sync(cli, zotero_server)
    assert record(seeded_library, cite).arxiv_id == "2601.01234"


def test_a_field_emptied_in_zotero_empties_ours(cli, zotero_server, seeded_library, env):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    assert record(seeded_library, cite).abstract
    zotero_server.library.edit_item(key, abstractNote="")
    result = sync(cli, zotero_server, "--json")
    assert json.loads(result.stdout)["pulled"]["cleared"] == [
        {"citation_key": cite, "field": "abstract"}
    ]
    assert record(seeded_library, cite).abstract == ""
    zotero_server.log.clear()
    sync(cli, zotero_server)
    assert zotero_server.log.writes() == []


@pytest.mark.sqlite_only  # record revisions: not on PostgreSQL libraries yet
def test_a_field_emptied_in_zotero_keeps_the_old_value_as_a_revision(
    cli, zotero_server, seeded_library, env
):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    before = record(seeded_library, cite).abstract
    zotero_server.library.edit_item(key, abstractNote="")
    sync(cli, zotero_server)
    with open_store(seeded_library) as store:
        (*_, previous, current) = store.record_history(cite)
    assert (previous.record.abstract, previous.origin) == (before, "zotero")
    assert current.record.abstract == ""


@pytest.mark.sqlite_only  # `bib set`: not on PostgreSQL libraries yet
def test_a_field_emptied_in_zotero_but_edited_here_keeps_our_value(
    cli, zotero_server, seeded_library, env
):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    assert cli("set", cite, "abstract=Our own summary.").exit_code == 0
    zotero_server.library.edit_item(key, abstractNote="")
    for prefer in ((), ("--prefer", "remote")):
        sync(cli, zotero_server, *prefer)
        assert record(seeded_library, cite).abstract == "Our own summary."


def test_an_item_moved_between_collections_in_zotero_is_reported_and_not_moved_back(
    cli, zotero_server, seeded_library, env
):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    lib = zotero_server.library
    report, _ = lib.write_collections([{"name": "Favourites"}], zotero_server.url)
    favourites = report["success"]["0"]
    lib.edit_item(key, collections=[favourites])
    result = sync(cli, zotero_server, "--json")
    assert json.loads(result.stdout)["pulled"]["moved"] == [
        {"citation_key": cite, "added": ["Favourites"], "removed": ["ICML 2026"]}
    ]
    item = next(i for i in zotero_server.top_items() if i["key"] == key)
    assert item["collections"] == [favourites]
    zotero_server.log.clear()
    sync(cli, zotero_server)
    assert zotero_server.log.writes() == []


def test_an_item_deleted_in_zotero_stays_here_with_its_notes_and_is_reported(
    cli, zotero_server, seeded_library, env
):
    cite, key = synced_first_paper(cli, zotero_server, seeded_library)
    zotero_server.library.remove_item(key)
    result = sync(cli, zotero_server)
    assert f"deleted\t{cite}\tdeleted or trashed in Zotero; kept here" in result.stdout
    with open_store(seeded_library) as store:
        assert store.resolve(cite).key == cite and store.notes(cite)
    zotero_server.log.clear()
    sync(cli, zotero_server)
    assert zotero_server.log.writes() == []
    assert key not in {i["key"] for i in zotero_server.library.items.values()}


def test_an_item_created_in_zotero_arrives_with_its_note_tags_and_collection(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    report, _ = zotero_server.library.write_collections([{"name": "Lab"}], zotero_server.url)
    lab = report["success"]["0"]
    parent = add_remote(
        zotero_server,
        {
            "itemType": "journalArticle",
            "title": "Made in Zotero",
            "date": "2021",
            "extra": "Citation Key: made2021",
            "tags": [{"tag": "survey"}, {"tag": "auto-topic", "type": 1}],
            "collections": [lab],
        },
    )
    add_remote(zotero_server, {"itemType": "note", "note": "<p>Read it</p>", "parentItem": parent})
    summary = json.loads(sync(cli, zotero_server, "--json").stdout)["pulled"]
    assert summary["imported"] == ["made2021"] and summary["notes_added"] == 1
    assert summary["moved"] == [{"citation_key": "made2021", "added": ["Lab"], "removed": []}]
    with open_store(seeded_library) as store:
        entry = store.entry("made2021")
        assert entry.record.title == "Made in Zotero" and entry.record.year == 2021
        assert entry.personal_tags == ("survey",)
        assert [n.body for n in store.notes("made2021")] == ["Read it"]
    item = next(i for i in zotero_server.top_items() if i["key"] == parent)
    assert item["collections"] == [lab]  # what bib does not map back stays in Zotero
    assert {"tag": "auto-topic", "type": 1} in item["tags"]


def test_a_note_deleted_in_zotero_stays_here_and_is_not_pushed_again(
    cli, zotero_server, seeded_library, env
):
    sync(cli, zotero_server)
    remote = next(n for n in zotero_server.notes() if "Nice ablations" in n["note"])
    zotero_server.library.remove_item(remote["key"])
    sync(cli, zotero_server)
    with open_store(seeded_library) as store:
        assert [n.body for n in store.notes() if "ablations" in n.body] == ["Nice ablations."]
    assert not any("Nice ablations" in n["note"] for n in zotero_server.notes())
    zotero_server.log.clear()
    sync(cli, zotero_server)
    assert zotero_server.log.writes() == []
