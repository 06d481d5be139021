"""The day-to-day record commands (edit, set, history, revert, rm, restore, attach, open,
key completion) through the CLI, on each backend: a real SQLite library file and a database
on a real PostgreSQL server (the `backend` parameter of tests/store/conftest.py)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from annotations import Store
from annotations.records import edit_text, parse_edit
from bib.errors import BibError
from bib.record import LinkRole


def script_editor(tmp_path: Path, body: str, name: str = "editor.py") -> str:
    """An $EDITOR running `body` (Python, with `path` the file to edit and `text` its
    content); its output replaces the file when it assigns `text`."""
    script = tmp_path / name
    script.write_text(
        "import sys\npath = sys.argv[1]\ntext = open(path, encoding='utf-8').read()\n"
        f"{body}\nopen(path, 'w', encoding='utf-8').write(text)\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


def replacing_editor(tmp_path: Path, old: str, new: str) -> str:
    return script_editor(tmp_path, f"text = text.replace({old!r}, {new!r})")


# bib edit


def test_edit_stores_the_changed_field_as_a_new_revision(
    cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", replacing_editor(tmp_path, "Unified Sparse", "Unified Sparser"))
    result = cli("edit", "usmoe2026")
    assert result.exit_code == 0, result.stderr
    assert store.resolve("usmoe2026").title == "Unified Sparser Mixture of Experts"
    versions = store.record_history("usmoe2026")
    assert [v.record.title for v in versions] == [
        "Unified Sparse Mixture of Experts",
        "Unified Sparser Mixture of Experts",
    ]
    assert store.entry("usmoe2026").user_fields == ("title",)


def test_edit_as_yaml_changes_the_year(
    cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", replacing_editor(tmp_path, "year: 2026", "year: 2024"))
    assert cli("edit", "usmoe2026", "--yaml").exit_code == 0
    assert store.resolve("usmoe2026").year == 2024


def test_edit_left_unchanged_stores_nothing(
    cli, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", "true")
    result = cli("edit", "usmoe2026")
    assert result.exit_code == 0
    assert "unchanged" in result.stderr
    assert len(store.record_history("usmoe2026")) == 1


def test_bad_edit_reopens_with_the_error_at_the_top_then_saves_the_fix(
    cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen"
    body = (
        f"seen = open({str(seen)!r}, 'a', encoding='utf-8')\n"
        "seen.write(text + '\\x00')\n"
        "if '% bib: error:' in text:\n"
        "    text = text.split('\\n', 2)[2].replace('{{BROKEN', '{2020}')\n"
        "else:\n"
        "    text = text.replace('year = {2026}', 'year = {{BROKEN').replace("
        "'date = {2026}', 'date = {{BROKEN')\n"
    )
    monkeypatch.setenv("EDITOR", script_editor(tmp_path, body))
    result = cli("edit", "usmoe2026")
    assert result.exit_code == 0, result.stderr
    first, second = seen.read_text(encoding="utf-8").split("\x00")[:2]
    assert "bib: error:" not in first
    assert second.startswith("% bib: error:")
    assert store.resolve("usmoe2026").year == 2020


def test_bad_edit_saved_again_unchanged_is_abandoned_with_no_change(
    cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = store.resolve("usmoe2026")
    monkeypatch.setenv("EDITOR", script_editor(tmp_path, "text = '@article{usmoe2026, title={'"))
    result = cli("edit", "usmoe2026")
    assert result.exit_code == 2
    assert result.stderr.startswith("bib: error: nothing saved:")
    assert result.stderr.count("\n") == 1
    assert store.resolve("usmoe2026") == before


def test_edit_that_changes_the_key_is_refused_and_points_to_rekey(
    cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", replacing_editor(tmp_path, "{usmoe2026,", "{other2026,"))
    result = cli("edit", "usmoe2026")
    assert "nothing saved" in result.stderr  # reopened with the error, then left as it was
    assert len(store.record_history("usmoe2026")) == 1
    stored = store.resolve("usmoe2026")
    changed = edit_text(stored, "biblatex").replace("{usmoe2026,", "{other2026,")
    with pytest.raises(BibError, match="bib rekey usmoe2026 other2026"):
        parse_edit(changed, "biblatex", stored)


def test_editor_that_fails_is_one_bib_error_line_and_saves_nothing(
    cli, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", "false")
    for args in (("edit", "usmoe2026"), ("note", "add", "usmoe2026")):
        result = cli(*args)
        assert result.exit_code == 1
        assert result.stderr.startswith("bib: error: the editor 'false' exited with status 1")
        assert result.stderr.count("\n") == 1
    assert store.notes("usmoe2026") == []
    assert len(store.record_history("usmoe2026")) == 1


def test_no_editor_and_no_terminal_fails_with_one_line_instead_of_starting_vi(
    cli, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("PATH", "")  # a started vi would fail differently
    result = cli("note", "add", "usmoe2026")
    assert result.exit_code == 2
    assert result.stderr.startswith("bib: error: no editor: set $VISUAL or $EDITOR")
    assert result.stderr.count("\n") == 1


def test_note_add_from_stdin_that_is_not_utf8_is_one_line_exit_2(cli, store: Store) -> None:
    result = cli("note", "add", "usmoe2026", "-", input=b"a\xff")
    assert result.exit_code == 2
    assert result.stderr == "bib: error: <stdin>: not UTF-8 text: byte 0xff at offset 1\n"
    assert store.notes("usmoe2026") == []


# bib set, history, revert


def test_set_changes_fields_for_scripts(cli, store: Store) -> None:
    result = cli("set", "usmoe2026", "year=2025", "pages=1--12", "author=Doe, Jane and Roe, R.")
    assert result.exit_code == 0, result.stderr
    record = store.resolve("usmoe2026")
    assert record.year == 2025
    assert ("pages", "1--12") in record.fields
    assert [a.family for a in record.authors] == ["Doe", "Roe"]


def test_set_a_year_that_is_not_a_number_is_refused(cli, store: Store) -> None:
    result = cli("set", "usmoe2026", "year=soon")
    assert result.exit_code == 2
    assert store.resolve("usmoe2026").year == 2026


def test_set_key_points_to_rekey(cli, store: Store) -> None:
    result = cli("set", "usmoe2026", "key=x")
    assert result.exit_code == 2
    assert "bib rekey" in result.stderr


def test_revert_after_two_edits_brings_back_the_first_text_and_keeps_all(cli, store: Store) -> None:
    cli("set", "usmoe2026", "title=Second")
    cli("set", "usmoe2026", "title=Third")
    assert cli("revert", "usmoe2026", "1").exit_code == 0
    titles = [v.record.title for v in store.record_history("usmoe2026")]
    assert titles == [
        "Unified Sparse Mixture of Experts",
        "Second",
        "Third",
        "Unified Sparse Mixture of Experts",
    ]
    history = json.loads(cli("history", "usmoe2026", "--json").stdout)
    assert [v["origin"] for v in history] == ["set", "set", "revert", ""]


def test_revert_to_a_revision_that_does_not_exist_is_refused(cli, store: Store) -> None:
    result = cli("revert", "usmoe2026", "5")
    assert result.exit_code == 2
    assert "versions 1 to 1" in result.stderr


def test_import_keeps_an_edited_field_and_reports_the_conflict(cli, store: Store, papers) -> None:
    cli("set", "usmoe2026", "title=My Title")
    changed = dataclasses.replace(papers[0], title="Their New Title", year=2027)
    report = store.upsert([changed])
    record = store.resolve("usmoe2026")
    assert record.title == "My Title"
    assert record.year == 2027  # a field the user did not edit still follows the import
    assert [(c.field, c.ours, c.theirs) for c in report.conflicts] == [
        ("title", "My Title", "Their New Title")
    ]


# bib rm, restore, purge


def test_rm_hides_a_paper_from_list_search_and_export_and_keeps_its_notes(
    cli, store: Store
) -> None:
    store.add_note("usmoe2026", "keep me")
    assert cli("rm", "usmoe2026").exit_code == 0
    assert "usmoe2026" not in cli("list").stdout
    assert "usmoe2026" not in cli("search", "experts").stdout
    assert "usmoe2026" not in cli("export", "-f", "biblatex").stdout
    entry = store.entry("usmoe2026")
    assert entry.deleted
    assert [n.body for n in entry.notes] == ["keep me"]


def test_notes_json_export_keeps_the_notes_of_removed_papers(
    cli, store: Store, tmp_path: Path
) -> None:
    store.add_note("usmoe2026", "keep me")
    cli("rm", "usmoe2026")
    assert cli("notes", "export", "-f", "json", tmp_path / "n.json").exit_code == 0
    data = json.loads((tmp_path / "n.json").read_text(encoding="utf-8"))
    assert [p["key"] for p in data["papers"]] == ["usmoe2026"]
    assert cli("notes", "export", "-f", "markdown", tmp_path / "vault").exit_code == 0
    assert not (tmp_path / "vault" / "usmoe2026.md").exists()


def test_restore_brings_a_removed_paper_back(cli, store: Store) -> None:
    cli("rm", "usmoe2026")
    assert cli("restore", "usmoe2026").exit_code == 0
    assert "usmoe2026" in cli("list").stdout


def test_reimport_does_not_resurrect_a_removed_paper_unless_restore(store: Store, papers) -> None:
    store.remove(["usmoe2026"])
    assert store.upsert(papers).removed == ["usmoe2026"]
    assert store.entry("usmoe2026").deleted
    assert store.upsert(papers, restore=True).restored == ["usmoe2026"]
    assert not store.entry("usmoe2026").deleted


def test_purge_without_yes_and_without_a_terminal_deletes_nothing(cli, store: Store) -> None:
    result = cli("rm", "--purge", "usmoe2026")
    assert result.exit_code == 2
    assert store.resolve("usmoe2026").key == "usmoe2026"


def test_purge_with_yes_deletes_the_paper_and_its_annotations(cli, store: Store) -> None:
    store.add_note("usmoe2026", "gone")
    store.rate("usmoe2026", 4)
    store.rekey("usmoe2026", "nguyen2026")
    assert cli("rm", "--purge", "--yes", "nguyen2026").exit_code == 0
    assert cli("show", "usmoe2026").exit_code == 2
    assert store.integrity() == "ok"


# bib attach, open


def test_attach_records_a_pdf_shown_in_show_and_opened_first(
    cli, store: Store, tmp_path: Path
) -> None:
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    assert cli("attach", "usmoe2026", pdf).exit_code == 0
    assert f"file:     {pdf}" in cli("show", "usmoe2026").stdout
    assert cli("open", "usmoe2026", "--print").stdout == f"{pdf}\n"


@pytest.mark.sqlite_only
def test_attach_copy_puts_the_file_beside_the_library(
    cli, store: Store, tmp_path: Path, library: Path
) -> None:
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    copied = Path(cli("attach", "usmoe2026", pdf, "--copy").stdout.strip())
    assert copied == library.parent / "files" / "usmoe2026" / "paper.pdf"
    assert copied.read_bytes() == b"%PDF-1.4\n"


@pytest.mark.postgresql_only
def test_attach_copy_to_a_team_library_puts_the_file_in_your_own_data_folder(
    cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    copied = Path(cli("attach", "usmoe2026", pdf, "--copy").stdout.strip())
    assert copied == tmp_path / "data" / "bib" / "files" / "usmoe2026" / "paper.pdf"
    assert copied.read_bytes() == b"%PDF-1.4\n"


def test_open_prefers_the_doi_then_arxiv_then_the_url(cli, store: Store) -> None:
    assert cli("open", "usmoe2026", "--print").stdout == "https://example.org/usmoe\n"
    cli("set", "usmoe2026", "arxiv=2601.00001")
    assert cli("open", "usmoe2026", "--print").stdout == "https://arxiv.org/abs/2601.00001\n"
    cli("set", "usmoe2026", "doi=10.1000/xyz")
    assert cli("open", "usmoe2026", "--print").stdout == "https://doi.org/10.1000/xyz\n"


def test_open_code_opens_the_code_link(cli, store: Store) -> None:
    cli("set", "usmoe2026", "code=https://github.com/example/usmoe")
    assert store.resolve("usmoe2026").urls(LinkRole.CODE) == ["https://github.com/example/usmoe"]
    result = cli("open", "usmoe2026", "--print", "--code")
    assert result.stdout == "https://github.com/example/usmoe\n"


def test_open_runs_the_system_opener_with_the_link(
    cli, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "opened"
    opener = tmp_path / "xdg-open"
    opener.write_text(f'#!/bin/sh\necho "$1" > {log}\n', encoding="utf-8")
    opener.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(sys, "platform", "linux")
    assert cli("open", "usmoe2026").exit_code == 0
    assert log.read_text(encoding="utf-8") == "https://example.org/usmoe\n"


def test_open_without_any_link_says_so(cli, store: Store) -> None:
    result = cli("open", "judge2026", "--print")
    assert result.exit_code == 2
    assert "no attachment, DOI, arXiv id or URL" in result.stderr


# Completion of keys


def complete(library: Path, *words: str) -> list[str]:
    """What bash completion offers for the last of `words`, through click's bash protocol
    in a real process (as the shell calls it)."""
    env = {
        **os.environ,
        "BIB_LIBRARY": str(library),
        "_BIB_COMPLETE": "bash_complete",
        "COMP_WORDS": " ".join(("bib", *words)),
        "COMP_CWORD": str(len(words)),
    }
    code = "from bib.cli import main; main(prog_name='bib')"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    return [line.split(",", 1)[1] for line in result.stdout.splitlines() if line]


def test_completion_offers_keys_and_aliases_for_commands_that_take_a_key(
    library: Path, store: Store
) -> None:
    store.rekey("graphs2025", "hyper2025")
    assert complete(library, "show", "u") == ["usmoe2026"]
    assert complete(library, "note", "add", "g") == ["graphs2025"]
    assert complete(library, "open", "") == [
        "graphs2025",
        "hyper2025",
        "judge2026",
        "usmoe2026",
    ]


def test_completion_leaves_out_removed_papers(library: Path, store: Store) -> None:
    store.remove(["usmoe2026"])
    assert complete(library, "edit", "u") == []


# Names the user gives


@pytest.mark.parametrize("bad", ["../../x", "a/b", "..", "k" * 300, "a b", "é2026", "a{b"])
def test_rekey_refuses_a_key_some_output_cannot_take_with_the_reason(
    cli, store: Store, bad: str
) -> None:
    result = cli("rekey", "usmoe2026", bad)
    assert result.exit_code == 2
    assert result.stderr.startswith("bib: error: invalid citation key")
    assert result.stderr.count("\n") == 1
    assert store.resolve("usmoe2026").key == "usmoe2026"


@pytest.mark.parametrize("bad", ["a,b", "a b", "x{y", "50%", "t" * 101])
def test_tag_refuses_a_name_that_breaks_the_groups_field(cli, store: Store, bad: str) -> None:
    result = cli("tag", "usmoe2026", f"+{bad}")
    assert result.exit_code == 2
    assert result.stderr.startswith("bib: error: invalid tag")
    assert store.entry("usmoe2026").personal_tags == ()
