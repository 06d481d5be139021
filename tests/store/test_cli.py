"""Every library and notes command through the CLI, against a real library file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from annotations.sqlite import SQLiteStore

# Notes


def test_note_add_with_text_prints_the_note_id(cli, store: SQLiteStore) -> None:
    result = cli("note", "add", "usmoe2026", "Read section 3")
    assert result.exit_code == 0
    assert store.note(int(result.stdout)).body == "Read section 3"


def test_note_add_reads_standard_input_for_dash(cli, store: SQLiteStore) -> None:
    result = cli("note", "add", "usmoe2026", "-", input="# Heading\n\nfrom stdin\n")
    assert store.note(int(result.stdout)).body == "# Heading\n\nfrom stdin\n"


def write_editor(tmp_path: Path, text: str) -> str:
    """An $EDITOR that writes `text` into the file it is given."""
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nopen(sys.argv[1], 'w').write({text!r})\n", encoding="utf-8")
    return f"{sys.executable} {script}"


def test_note_add_without_text_opens_the_editor(
    cli, store: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", write_editor(tmp_path, "written in the editor\n"))
    result = cli("note", "add", "usmoe2026")
    assert result.exit_code == 0
    assert store.note(int(result.stdout)).body == "written in the editor"


def test_note_add_with_an_empty_editor_is_an_error_and_saves_nothing(
    cli, store: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", write_editor(tmp_path, "\n\n"))
    result = cli("note", "add", "usmoe2026")
    assert result.exit_code == 2
    assert result.stderr.startswith("bib: error: empty note")
    assert store.notes() == []


def test_note_add_empty_text_is_an_error(cli, store: SQLiteStore) -> None:
    result = cli("note", "add", "usmoe2026", "   ")
    assert (result.exit_code, store.notes()) == (2, [])


def test_note_add_to_an_unknown_key_suggests_the_closest(cli, store: SQLiteStore) -> None:
    result = cli("note", "add", "usmo2026", "x")
    assert result.exit_code == 2
    assert result.stderr == "bib: error: unknown key 'usmo2026'; did you mean: usmoe2026?\n"


def test_note_list_json_lists_notes_of_one_paper(cli, store: SQLiteStore) -> None:
    store.add_note("usmoe2026", "one")
    store.add_note("judge2026", "two")
    data = json.loads(cli("note", "list", "usmoe2026", "--json").stdout)
    assert [(n["key"], n["body"]) for n in data] == [("usmoe2026", "one")]


def test_note_list_plain_columns_when_piped(cli, store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "first line\nsecond line")
    lines = cli("note", "list").stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].split("\t")[0:2] == [str(note.id), "usmoe2026"]
    assert lines[0].endswith("\tfirst line")


def test_note_edit_with_text_keeps_the_old_revision(cli, store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "old")
    assert cli("note", "edit", str(note.id), "new").exit_code == 0
    assert store.note(note.id).body == "new"
    assert [r.body for r in store.history(note.id)] == ["old"]


def test_note_edit_without_text_opens_the_editor_on_the_current_text(
    cli, store: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = store.add_note("usmoe2026", "old")
    script = tmp_path / "append.py"
    script.write_text(
        "import sys\np = sys.argv[1]\ns = open(p).read().rstrip()\n"
        "open(p, 'w').write(s + ' and more')\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    assert cli("note", "edit", str(note.id)).exit_code == 0
    assert store.note(note.id).body == "old and more"


def test_note_rm_and_restore(cli, store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "maybe")
    assert cli("note", "rm", str(note.id)).exit_code == 0
    assert store.notes() == []
    assert cli("note", "restore", str(note.id)).exit_code == 0
    assert [n.body for n in store.notes()] == ["maybe"]


def test_note_rm_twice_is_an_error(cli, store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "maybe")
    cli("note", "rm", str(note.id))
    result = cli("note", "rm", str(note.id))
    assert (result.exit_code, result.stderr) == (
        2,
        f"bib: error: note {note.id} is already deleted\n",
    )


def test_note_list_deleted_shows_soft_deleted_notes(cli, store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "gone")
    store.delete_note(note.id)
    data = json.loads(cli("note", "list", "--deleted", "--json").stdout)
    assert data[0]["deleted_at"] is not None


def test_note_history_json_lists_every_version(cli, store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "v1")
    store.edit_note(note.id, "v2")
    data = json.loads(cli("note", "history", str(note.id), "--json").stdout)
    assert [v["body"] for v in data["versions"]] == ["v1", "v2"]
    assert data["versions"][-1]["replaced"] is None


def test_note_history_text(cli, store: SQLiteStore) -> None:
    note = store.add_note("usmoe2026", "v1")
    store.edit_note(note.id, "v2")
    out = cli("note", "history", str(note.id)).stdout
    assert out.index("v1") < out.index("v2")
    assert "(current)" in out


def test_unknown_note_id_exits_2(cli, store: SQLiteStore) -> None:
    result = cli("note", "edit", "4242", "x")
    assert (result.exit_code, result.stderr) == (
        2,
        "bib: error: unknown note 4242; see `bib note list`\n",
    )


# Rating, status, tags


def test_rate_and_clear(cli, store: SQLiteStore) -> None:
    assert cli("rate", "usmoe2026", "4").exit_code == 0
    assert store.entry("usmoe2026").rating == 4
    assert cli("rate", "usmoe2026", "--clear").exit_code == 0
    assert store.entry("usmoe2026").rating is None


@pytest.mark.parametrize("args", [["6"], [], ["3", "--clear"]])
def test_rate_needs_one_rating_from_1_to_5_or_clear(cli, store: SQLiteStore, args) -> None:
    assert cli("rate", "usmoe2026", *args).exit_code == 2


def test_status_sets_the_reading_status(cli, store: SQLiteStore) -> None:
    assert cli("status", "usmoe2026", "to-read").exit_code == 0
    assert str(store.entry("usmoe2026").status) == "to-read"


def test_status_rejects_an_unknown_status(cli, store: SQLiteStore) -> None:
    assert cli("status", "usmoe2026", "finished").exit_code == 2


def test_tag_adds_with_plus_and_removes_with_minus(cli, store: SQLiteStore) -> None:
    cli("tag", "usmoe2026", "+moe", "+reread", "plain")
    result = cli("tag", "usmoe2026", "-reread")
    assert result.exit_code == 0
    assert store.entry("usmoe2026").personal_tags == ("moe", "plain")


def test_tag_minus_h_is_a_tag_not_help(cli, store: SQLiteStore) -> None:
    cli("tag", "usmoe2026", "+h", "+v")
    assert cli("tag", "usmoe2026", "-h").exit_code == 0
    assert store.entry("usmoe2026").personal_tags == ("v",)


def test_tag_after_double_dash(cli, store: SQLiteStore) -> None:
    cli("tag", "usmoe2026", "+x")
    assert cli("tag", "usmoe2026", "--", "-x", "+y").exit_code == 0
    assert store.entry("usmoe2026").personal_tags == ("y",)


def test_tag_with_a_comma_is_refused(cli, store: SQLiteStore) -> None:
    result = cli("tag", "usmoe2026", "+a,b")
    assert result.exit_code == 2
    assert store.entry("usmoe2026").personal_tags == ()


# Show, list, search


def test_show_json_has_record_tags_and_annotations(cli, store: SQLiteStore) -> None:
    store.add_note("usmoe2026", "n1")
    store.rate("usmoe2026", 5)
    store.tag("usmoe2026", ["moe"], [])
    data = json.loads(cli("show", "usmoe2026", "--json").stdout)
    assert data["title"] == "Unified Sparse Mixture of Experts"
    assert (data["rating"], data["status"], data["personal_tags"]) == (5, "unread", ["moe"])
    assert [t["value"] for t in data["tags"]] == ["mixture-of-experts", "USMoE"]
    assert [n["body"] for n in data["notes"]] == ["n1"]


def test_show_text_has_title_and_notes(cli, store: SQLiteStore) -> None:
    store.add_note("usmoe2026", "remember this")
    out = cli("show", "usmoe2026").stdout
    assert out.startswith("usmoe2026: Unified Sparse Mixture of Experts\n")
    assert "remember this" in out


def test_show_resolves_an_alias(cli, store: SQLiteStore) -> None:
    store.rekey("usmoe2026", "nguyen2026")
    assert json.loads(cli("show", "usmoe2026", "--json").stdout)["key"] == "nguyen2026"


def test_list_plain_has_one_line_per_paper(cli, store: SQLiteStore) -> None:
    lines = cli("list").stdout.splitlines()
    assert [line.split("\t")[0] for line in lines] == ["graphs2025", "judge2026", "usmoe2026"]


def test_list_filters_by_tag_status_rating_and_venue(cli, store: SQLiteStore) -> None:
    store.rate("judge2026", 4)
    store.set_status("judge2026", "reading")  # type: ignore[arg-type]
    store.tag("judge2026", ["llm"], [])

    def keys(*args: str) -> list[str]:
        return [e["key"] for e in json.loads(cli("list", *args, "--json").stdout)]

    assert keys("--tag", "llm") == ["judge2026"]
    assert keys("--tag", "evaluation") == ["judge2026"]
    assert keys("--status", "reading") == ["judge2026"]
    assert keys("--min-rating", "4") == ["judge2026"]
    assert keys("--venue", "NeurIPS") == ["graphs2025"]


def test_search_json_ranked_with_snippets(cli, store: SQLiteStore) -> None:
    data = json.loads(cli("search", "experts", "--json").stdout)
    assert [h["key"] for h in data] == ["usmoe2026", "judge2026"]
    assert data[0]["snippets"][0] == {
        "field": "title",
        "text": "Unified Sparse Mixture of [[Experts]]",
    }


def test_search_plain_output(cli, store: SQLiteStore) -> None:
    out = cli("search", "hypergraphs").stdout
    assert out.splitlines()[0] == "graphs2025\tMessage Passing on Hypergraphs"
    assert "[[Hypergraphs]]" in out


def test_search_with_no_match_exits_0_and_says_so(cli, store: SQLiteStore) -> None:
    result = cli("search", "nothinglikethis")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "no matches\n")


def test_search_malformed_fts_query_exits_2(
    cli, store: SQLiteStore, raw_query: dict[str, str]
) -> None:
    result = cli("search", "--fts", raw_query["malformed"])
    assert result.exit_code == 2
    assert result.stderr.startswith("bib: error: malformed search query")


# Rekey, backup


def test_rekey_then_old_key_still_resolves(cli, store: SQLiteStore) -> None:
    result = cli("rekey", "usmoe2026", "nguyen2026usmoe")
    assert (result.exit_code, result.stdout) == (0, "usmoe2026 -> nguyen2026usmoe\n")
    assert store.resolve("usmoe2026").key == "nguyen2026usmoe"


def test_rekey_to_an_invalid_key_exits_2(cli, store: SQLiteStore) -> None:
    assert cli("rekey", "usmoe2026", "has space").exit_code == 2


def test_backup_writes_a_copy_that_opens(cli, store: SQLiteStore, tmp_path: Path) -> None:
    store.add_note("usmoe2026", "safe")
    dest = tmp_path / "copy.sqlite"
    assert cli("backup", dest).exit_code == 0
    with SQLiteStore(dest) as copy:
        assert [n.body for n in copy.notes()] == ["safe"]


def test_library_option_chooses_the_file(cli, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.sqlite"
    assert cli("--library", other, "list").exit_code == 0
    assert other.exists()


@pytest.mark.parametrize(
    "command",
    [
        ["add"],
        ["show"],
        ["list"],
        ["search"],
        ["rekey"],
        ["rate"],
        ["status"],
        ["tag"],
        ["export"],
        ["backup"],
        ["note"],
        ["note", "add"],
        ["note", "list"],
        ["note", "edit"],
        ["note", "rm"],
        ["note", "restore"],
        ["note", "history"],
        ["notes"],
        ["notes", "export"],
        ["notes", "import"],
    ],
)
def test_every_command_has_help_with_examples(cli, command: list[str]) -> None:
    result = cli(*command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout


def test_note_edited_elsewhere_while_in_the_editor_loses_nothing(
    cli, store: SQLiteStore, tmp_path: Path, library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = store.add_note("usmoe2026", "original")
    script = tmp_path / "racing_editor.py"
    script.write_text(
        "import sys\n"
        "from annotations import open_store\n"
        f"with open_store({str(library)!r}) as other:\n"
        f"    other.edit_note({note.id}, 'written by another bib meanwhile')\n"
        "open(sys.argv[1], 'w').write('my edit')\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    result = cli("note", "edit", str(note.id))
    assert "changed while you were editing" in result.stderr
    assert store.note(note.id).body == "my edit"
    assert [r.body for r in store.history(note.id)] == [
        "original",
        "written by another bib meanwhile",
    ]


def test_library_that_is_not_a_database_exits_2(cli, tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_text("not sqlite\n" * 200)
    result = cli("--library", bogus, "list")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"bib: error: {bogus}: cannot open the library")


def test_real_process_note_add_from_stdin_then_search(bib_process, store: SQLiteStore) -> None:
    added = bib_process("note", "add", "graphs2025", "-", input="Try on ogbg-molpcba\n")
    assert (added.returncode, added.stderr) == (0, "added note 1 to graphs2025\n")
    found = bib_process("search", "molpcba")
    assert found.returncode == 0
    assert found.stdout.splitlines()[0] == "graphs2025\tMessage Passing on Hypergraphs"
    assert "\x1b[" not in found.stdout


def test_real_process_unknown_key_exits_2_without_traceback(
    bib_process, store: SQLiteStore
) -> None:
    result = bib_process("rate", "judge2025", "3")
    assert result.returncode == 2
    assert result.stderr == "bib: error: unknown key 'judge2025'; did you mean: judge2026?\n"


def test_note_edit_closed_without_saving_changes_nothing(
    cli, store: SQLiteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = store.add_note("usmoe2026", "as it was")
    script = tmp_path / "noop.py"
    script.write_text("pass\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    result = cli("note", "edit", str(note.id))
    assert result.exit_code == 0
    assert "unchanged" in result.stderr
    assert (store.note(note.id).body, store.history(note.id)) == ("as it was", [])


def test_list_on_a_terminal_is_a_table_with_a_header(
    cli, store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bib.cli.library

    monkeypatch.setattr(bib.cli.library, "on_terminal", lambda: True)
    out = cli("list").stdout
    assert out.splitlines()[0].split()[:3] == ["key", "year", "venue"]
    assert "\t" not in out
    assert "\x1b[" not in out  # NO_COLOR
