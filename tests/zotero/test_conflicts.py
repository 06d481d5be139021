"""Conflicts left for the next run: a field or note changed on both sides since the last sync
stays open (stored, listed by every run and by `--json`), nothing is lost, and `--prefer
local|remote` settles it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from annotations import open_store


def sync(cli: Any, server: Any, *extra: str) -> Any:
    result = cli("sync", "zotero", "--endpoint", server.url, "--timeout", "60", *extra)
    assert result.exit_code == 0, result.output
    return result


def item_of(server: Any, cite: str) -> dict[str, Any]:
    return next(i for i in server.top_items() if i.get("citationKey") == cite)


def title_edited_on_both_sides(cli: Any, server: Any, path: Path) -> str:
    """Sync, then retitle the first paper in Zotero and here (as an import would)."""
    sync(cli, server)
    with open_store(path) as store:
        cite = sorted(store.pinned_keys().values())[0]
        store.upsert([dataclasses.replace(store.resolve(cite), title="Local title")])
    server.library.edit_item(item_of(server, cite)["key"], title="Remote title")
    return cite


def local_title(path: Path, cite: str) -> str:
    with open_store(path) as store:
        return store.resolve(cite).title


def test_a_field_changed_on_both_sides_stays_open_and_each_side_keeps_its_value(
    cli, zotero_server, seeded_library, env
):
    cite = title_edited_on_both_sides(cli, zotero_server, seeded_library)
    summary = json.loads(sync(cli, zotero_server, "--json").stdout)
    assert summary["pulled"]["conflicts"] == [
        {"citation_key": cite, "field": "title", "kept": "open", "what": "item"}
    ]
    assert summary["open_conflicts"] == [
        {
            "citation_key": cite,
            "what": "item",
            "field": "title",
            "local": "Local title",
            "remote": "Remote title",
        }
    ]
    assert local_title(seeded_library, cite) == "Local title"
    assert item_of(zotero_server, cite)["title"] == "Remote title"


def test_an_open_conflict_is_listed_again_by_the_next_run_which_writes_nothing(
    cli, zotero_server, seeded_library, env
):
    cite = title_edited_on_both_sides(cli, zotero_server, seeded_library)
    sync(cli, zotero_server)
    zotero_server.log.clear()
    result = sync(cli, zotero_server)
    assert f"conflict\t{cite}\titem\ttitle\topen: here 'Local title'" in result.stdout
    assert "open: 1;" in result.stdout
    assert "1 conflicts left open" in result.stderr
    assert zotero_server.log.writes() == []
    listing = json.loads(sync(cli, zotero_server, "--json").stdout)["open_conflicts"]
    assert [(c["citation_key"], c["field"]) for c in listing] == [(cite, "title")]


def test_prefer_remote_settles_an_open_conflict_with_the_zotero_value(
    cli, zotero_server, seeded_library, env
):
    cite = title_edited_on_both_sides(cli, zotero_server, seeded_library)
    sync(cli, zotero_server)
    summary = json.loads(sync(cli, zotero_server, "--prefer", "remote", "--json").stdout)
    assert summary["open_conflicts"] == []
    assert local_title(seeded_library, cite) == "Remote title"
    assert json.loads(sync(cli, zotero_server, "--json").stdout)["open_conflicts"] == []


@pytest.mark.sqlite_only  # record revisions: not on PostgreSQL libraries yet
def test_prefer_remote_keeps_our_value_of_a_conflict_as_a_revision(
    cli, zotero_server, seeded_library, env
):
    cite = title_edited_on_both_sides(cli, zotero_server, seeded_library)
    sync(cli, zotero_server, "--prefer", "remote")
    with open_store(seeded_library) as store:
        history = [r.record.title for r in store.record_history(cite)]
    assert history[-2:] == ["Local title", "Remote title"]


def test_prefer_local_settles_an_open_conflict_by_writing_our_value(
    cli, zotero_server, seeded_library, env
):
    cite = title_edited_on_both_sides(cli, zotero_server, seeded_library)
    sync(cli, zotero_server)
    summary = json.loads(sync(cli, zotero_server, "--prefer", "local", "--json").stdout)
    assert summary["open_conflicts"] == []
    assert item_of(zotero_server, cite)["title"] == "Local title"
    assert local_title(seeded_library, cite) == "Local title"
    zotero_server.log.clear()
    assert json.loads(sync(cli, zotero_server, "--json").stdout)["open_conflicts"] == []
    assert zotero_server.log.writes() == []


def test_an_open_conflict_closes_when_both_sides_agree_again(
    cli, zotero_server, seeded_library, env
):
    cite = title_edited_on_both_sides(cli, zotero_server, seeded_library)
    sync(cli, zotero_server)
    zotero_server.library.edit_item(item_of(zotero_server, cite)["key"], title="Local title")
    summary = json.loads(sync(cli, zotero_server, "--json").stdout)
    assert summary["open_conflicts"] == []


def note_edited_on_both_sides(cli: Any, server: Any, path: Path) -> Any:
    sync(cli, server)
    with open_store(path) as store:
        note = next(n for n in store.notes() if n.body == "Nice ablations.")
        store.edit_note(note.id, "Nice ablations, local view.")
    remote = next(n for n in server.notes() if "Nice ablations" in n["note"])
    server.library.edit_item(remote["key"], note="<p>Nice ablations, remote view.</p>")
    return note


def test_a_note_edited_on_both_sides_keeps_both_texts_and_stays_open(
    cli, zotero_server, seeded_library, env
):
    note = note_edited_on_both_sides(cli, zotero_server, seeded_library)
    summary = json.loads(sync(cli, zotero_server, "--json").stdout)
    assert [(c["what"], c["field"]) for c in summary["open_conflicts"]] == [
        (f"note {note.id}", "note")
    ]
    with open_store(seeded_library) as store:
        assert store.note(note.id).body == "Nice ablations, local view."
        earlier = [r.body for r in store.history(note.id)]
    assert "Nice ablations, remote view." in earlier and "Nice ablations." in earlier
    assert any("remote view" in n["note"] for n in zotero_server.notes())
    assert not any("local view" in n["note"] for n in zotero_server.notes())


def test_prefer_local_writes_our_note_text_and_keeps_zotero_text_as_a_revision(
    cli, zotero_server, seeded_library, env
):
    note = note_edited_on_both_sides(cli, zotero_server, seeded_library)
    sync(cli, zotero_server)
    summary = json.loads(sync(cli, zotero_server, "--prefer", "local", "--json").stdout)
    assert summary["open_conflicts"] == []
    assert any("local view" in n["note"] for n in zotero_server.notes())
    with open_store(seeded_library) as store:
        assert "Nice ablations, remote view." in [r.body for r in store.history(note.id)]


def test_prefer_remote_makes_the_zotero_note_text_current_and_keeps_ours_as_a_revision(
    cli, zotero_server, seeded_library, env
):
    note = note_edited_on_both_sides(cli, zotero_server, seeded_library)
    summary = json.loads(sync(cli, zotero_server, "--prefer", "remote", "--json").stdout)
    assert summary["open_conflicts"] == []
    with open_store(seeded_library) as store:
        assert store.note(note.id).body == "Nice ablations, remote view."
        assert "Nice ablations, local view." in [r.body for r in store.history(note.id)]
    assert not any("local view" in n["note"] for n in zotero_server.notes())
