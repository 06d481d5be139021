"""`bib notes export` (markdown, JSON, W3C) and `bib notes import`: lossless and idempotent."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

import schema
from annotations import open_store
from annotations.exchange import safe_filename
from annotations.sqlite import SQLiteStore


@pytest.fixture
def annotated(store: SQLiteStore) -> SQLiteStore:
    first = store.add_note("usmoe2026", "Routing as an **LP**.")
    store.edit_note(first.id, "Routing as a linear program.")
    store.add_note("usmoe2026", "Second thought")
    gone = store.add_note("judge2026", "deleted thought")
    store.delete_note(gone.id)
    store.rate("usmoe2026", 4)
    store.set_status("usmoe2026", "reading")  # type: ignore[arg-type]
    store.tag("usmoe2026", ["moe", "reread"], [])
    return store


def export_json(cli, path: Path) -> dict:
    assert cli("notes", "export", "-f", "json", path).exit_code == 0
    return json.loads(path.read_text(encoding="utf-8"))


def import_edited_note(cli, path: Path, **changes: str) -> tuple[dict, dict]:
    """Export to JSON, change the second paper's second note, import the file: (note, report)."""
    data = export_json(cli, path)
    note = data["papers"][1]["notes"][1]
    note.update(changes)
    path.write_text(json.dumps(data), encoding="utf-8")
    return note, json.loads(cli("notes", "import", path, "--json").stdout)


def snapshot(store: SQLiteStore) -> list[tuple]:
    rows = store.conn.execute(
        "SELECT n.uuid, n.body, n.created, n.updated, n.deleted_at,"
        " (SELECT count(*) FROM note_revisions WHERE note_id = n.id) FROM notes n ORDER BY n.uuid"
    ).fetchall()
    reading = store.conn.execute(
        "SELECT record_id, reader, rating, status, updated FROM reading ORDER BY 1, 2"
    ).fetchall()
    tags = store.conn.execute("SELECT record_id, tag FROM personal_tags ORDER BY 1, 2").fetchall()
    return [*rows, *reading, *tags, store.count()]


# JSON


def test_json_export_validates_against_the_schema(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    data = export_json(cli, tmp_path / "notes.json")
    jsonschema.Draft202012Validator(schema.load("annotations.schema.json")).validate(data)
    assert [p["key"] for p in data["papers"]] == ["judge2026", "usmoe2026"]


def test_json_export_keeps_revisions_and_deleted_notes(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    data = export_json(cli, tmp_path / "notes.json")
    judge, usmoe = data["papers"]
    assert judge["notes"][0]["deleted"] is not None
    assert usmoe["notes"][0]["revisions"][0]["body"] == "Routing as an **LP**."
    assert (usmoe["rating"], usmoe["status"], usmoe["tags"]) == (4, "reading", ["moe", "reread"])


def test_reimporting_the_same_export_changes_nothing(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    path = tmp_path / "notes.json"
    export_json(cli, path)
    before = snapshot(annotated)
    result = cli("notes", "import", path, "--json")
    assert json.loads(result.stdout) == {
        "papers_added": 0,
        "notes_added": 0,
        "notes_updated": 0,
        "unchanged": 3,
    }
    assert snapshot(annotated) == before


def test_import_into_an_empty_library_restores_papers_and_notes(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    path = tmp_path / "notes.json"
    export_json(cli, path)
    fresh = tmp_path / "fresh.sqlite"
    result = cli("--library", fresh, "notes", "import", path, "--json")
    assert json.loads(result.stdout)["notes_added"] == 3
    with open_store(fresh) as restored:
        assert snapshot(restored)[:-1] == snapshot(annotated)[:-1]  # only annotated papers
        assert restored.resolve("usmoe2026").title == "Unified Sparse Mixture of Experts"
    again = cli("--library", fresh, "notes", "import", path, "--json")
    assert json.loads(again.stdout)["unchanged"] == 3


def test_import_of_a_newer_text_keeps_the_local_one_as_a_revision(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    changes = {"body": "Edited elsewhere", "updated": "2099-01-01T00:00:00.000Z"}
    note, report = import_edited_note(cli, tmp_path / "notes.json", **changes)
    assert report["notes_updated"] == 1
    (local,) = [n for n in annotated.notes() if n.uuid == note["uuid"]]
    assert local.body == "Edited elsewhere"
    assert [r.body for r in annotated.history(local.id)] == ["Second thought"]


def test_import_of_an_older_text_keeps_the_local_one(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    changes = {"body": "Stale", "updated": "2000-01-01T00:00:00.000Z"}
    import_edited_note(cli, tmp_path / "notes.json", **changes)
    assert "Stale" not in [n.body for n in annotated.notes()]


def test_invalid_file_changes_nothing(cli, annotated: SQLiteStore, tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    data = export_json(cli, path)
    data["papers"][1]["notes"].append({"uuid": "not-a-uuid", "body": "x"})
    data["papers"][0]["notes"].append(
        {
            "uuid": "00000000-0000-4000-8000-000000000001",
            "body": "would be new",
            "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z",
        }
    )
    path.write_text(json.dumps(data), encoding="utf-8")
    before = snapshot(annotated)
    result = cli("notes", "import", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"bib: error: {path}: not a bib annotations file: at papers/1")
    assert snapshot(annotated) == before


def test_import_failing_half_way_changes_nothing(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    path = tmp_path / "notes.json"
    data = export_json(cli, path)
    data["papers"][0]["notes"].append(
        {
            "uuid": "00000000-0000-4000-8000-000000000002",
            "body": "new note before the failure",
            "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z",
        }
    )
    data["papers"].append({"id": "id-unknown", "key": "unknown2026", "notes": []})
    path.write_text(json.dumps(data), encoding="utf-8")
    before = snapshot(annotated)
    result = cli("notes", "import", path)
    assert result.exit_code == 2
    assert "unknown2026" in result.stderr
    assert snapshot(annotated) == before


def test_import_of_malformed_json_names_the_line(cli, store: SQLiteStore, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "bib-annotations",\n  oops\n}', encoding="utf-8")
    result = cli("notes", "import", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"bib: error: {path}:3: not valid JSON")


# Markdown


def front_matter(text: str) -> dict:
    _, head, _ = text.split("---\n", 2)
    return yaml.safe_load(head)


def test_markdown_export_writes_one_file_per_annotated_paper(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    assert cli("notes", "export", "-f", "markdown", vault).exit_code == 0
    assert sorted(p.name for p in vault.iterdir()) == ["judge2026.md", "usmoe2026.md"]


def test_markdown_front_matter_is_yaml_with_the_paper_fields(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    cli("notes", "export", "-f", "markdown", tmp_path / "vault")
    text = (tmp_path / "vault" / "usmoe2026.md").read_text(encoding="utf-8")
    meta = front_matter(text)
    assert meta["key"] == "usmoe2026"
    assert meta["title"] == "Unified Sparse Mixture of Experts"
    assert meta["authors"] == ["Giang Nguyen", "Minh Tran"]
    assert (meta["year"], meta["venue"]) == (2026, "ICML")
    assert (meta["tags"], meta["rating"], meta["status"]) == (["moe", "reread"], 4, "reading")
    assert "Routing as a linear program." in text
    assert "Second thought" in text


def test_markdown_leaves_deleted_notes_out(cli, annotated: SQLiteStore, tmp_path: Path) -> None:
    cli("notes", "export", "-f", "markdown", tmp_path / "vault")
    assert "deleted thought" not in (tmp_path / "vault" / "judge2026.md").read_text()


@pytest.mark.parametrize(
    ("key", "name"),
    [("a/b:c", "a-b-c"), ("../etc", "etc"), ("Ünïcode2026", "Ünïcode2026"), ("...", "paper")],
)
def test_safe_filename(key: str, name: str) -> None:
    assert safe_filename(key) == name


def test_markdown_export_of_a_title_with_yaml_syntax_stays_valid(
    cli, store: SQLiteStore, tmp_path: Path, make_record
) -> None:
    store.upsert([make_record("id-y", "yaml2026", 'Key: "value" # not a comment\n- item')])
    store.add_note("yaml2026", "note")
    cli("notes", "export", "-f", "markdown", tmp_path / "vault")
    meta = front_matter((tmp_path / "vault" / "yaml2026.md").read_text(encoding="utf-8"))
    assert meta["title"] == 'Key: "value" # not a comment\n- item'


# W3C


def test_w3c_export_is_an_annotation_collection(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    path = tmp_path / "notes.jsonld"
    assert cli("notes", "export", "-f", "w3c", path).exit_code == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["@context"] == "http://www.w3.org/ns/anno.jsonld"
    assert data["type"] == "AnnotationCollection"
    items = data["first"]["items"]
    assert data["total"] == len(items) == 2 + 2 + 1  # notes, tags, rating
    comment = next(i for i in items if i["motivation"] == "commenting")
    assert comment["body"]["type"] == "TextualBody"
    assert comment["body"]["format"] == "text/markdown"
    assert comment["target"] == "https://example.org/usmoe"
    assert comment["id"].startswith("urn:uuid:")
    assert {i["motivation"] for i in items} == {"commenting", "tagging", "assessing"}


def test_w3c_target_without_url_is_a_urn_for_the_record(
    cli, store: SQLiteStore, tmp_path: Path
) -> None:
    store.add_note("judge2026", "n")
    cli("notes", "export", "-f", "w3c", tmp_path / "w.json")
    items = json.loads((tmp_path / "w.json").read_text())["first"]["items"]
    assert items[0]["target"] == "urn:bib:record:id-judge"


def test_w3c_to_standard_output(cli, annotated: SQLiteStore) -> None:
    assert json.loads(cli("notes", "export", "-f", "w3c", "-").stdout)["type"] == (
        "AnnotationCollection"
    )


def test_import_accepts_offset_times_and_stays_idempotent(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    path = tmp_path / "notes.json"
    when = "2026-03-01T10:00:00+02:00"
    changes = {"uuid": "00000000-0000-4000-8000-000000000003", "created": when, "updated": when}
    note, report = import_edited_note(cli, path, **changes)
    assert report["notes_added"] == 1
    (added,) = [n for n in annotated.notes() if n.uuid == note["uuid"]]
    assert added.created == "2026-03-01T08:00:00.000Z"
    assert json.loads(cli("notes", "import", path, "--json").stdout)["notes_added"] == 0


def test_markdown_reexport_updates_files_bib_wrote(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    cli("notes", "export", "-f", "markdown", vault)
    annotated.add_note("usmoe2026", "A third thought")
    result = cli("notes", "export", "-f", "markdown", vault)
    assert "kept" not in result.stderr
    assert "A third thought" in (vault / "usmoe2026.md").read_text(encoding="utf-8")


def test_markdown_reexport_keeps_a_file_edited_in_the_vault(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    cli("notes", "export", "-f", "markdown", vault)
    page = vault / "usmoe2026.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nMy Obsidian thoughts\n", "utf-8")
    annotated.add_note("usmoe2026", "A third thought")
    result = cli("notes", "export", "-f", "markdown", vault)
    assert result.exit_code == 0
    assert "kept 1 files edited since bib wrote them" in result.stderr
    assert "My Obsidian thoughts" in page.read_text(encoding="utf-8")
    cli("notes", "export", "-f", "markdown", vault, "--force")
    assert "A third thought" in page.read_text(encoding="utf-8")


def test_markdown_export_never_overwrites_a_file_it_did_not_write(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "usmoe2026.md").write_text("my own page\n", encoding="utf-8")
    cli("notes", "export", "-f", "markdown", vault)
    assert (vault / "usmoe2026.md").read_text(encoding="utf-8") == "my own page\n"
