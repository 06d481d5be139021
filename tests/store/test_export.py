"""`bib export`: references with their annotations in fields other tools read, never in keywords."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from pybtex.database import parse_string

import schema
from annotations.sqlite import SQLiteStore


@pytest.fixture
def annotated(store: SQLiteStore) -> SQLiteStore:
    store.add_note("usmoe2026", "Routing as an LP: 50% less compute & {braces}")
    store.add_note("usmoe2026", "Second note")
    store.rate("usmoe2026", 4)
    store.set_status("usmoe2026", "read")  # type: ignore[arg-type]
    store.tag("usmoe2026", ["moe", "reread"], [])
    return store


def bibtex_fields(text: str, key: str) -> dict[str, str]:
    entries = parse_string(text, "bibtex").entries
    return {name.lower(): value for name, value in entries[key].fields.items()}


def test_bibtex_export_puts_notes_in_annote_and_jabref_fields(cli, annotated: SQLiteStore) -> None:
    result = cli("export", "-f", "bibtex")
    assert result.exit_code == 0
    fields = bibtex_fields(result.stdout, "usmoe2026")
    assert "Routing as an LP" in fields["annote"]
    assert "Second note" in fields["annote"]
    assert (fields["ranking"], fields["readstatus"]) == ("rank4", "read")
    assert fields["groups"] == "moe, reread"


def test_annotations_never_go_into_keywords(cli, annotated: SQLiteStore) -> None:
    fields = bibtex_fields(cli("export").stdout, "usmoe2026")
    keywords = fields.get("keywords", "")
    for word in ("rank4", "read", "moe", "reread", "Routing"):
        assert word not in keywords.split(", ")


def test_biblatex_export_puts_notes_in_annotation(cli, annotated: SQLiteStore) -> None:
    fields = bibtex_fields(cli("export", "-f", "biblatex").stdout, "usmoe2026")
    assert "Second note" in fields["annotation"]
    assert "annote" not in fields


@pytest.mark.parametrize(("status", "value"), [("reading", "skimmed"), ("read", "read")])
def test_readstatus_uses_jabref_values(cli, store: SQLiteStore, status: str, value: str) -> None:
    store.set_status("judge2026", status)  # type: ignore[arg-type]
    assert bibtex_fields(cli("export").stdout, "judge2026")["readstatus"] == value


@pytest.mark.parametrize("status", ["unread", "to-read", "skipped"])
def test_statuses_without_a_jabref_value_write_no_readstatus(
    cli, store: SQLiteStore, status: str
) -> None:
    store.set_status("judge2026", status)  # type: ignore[arg-type]
    assert "readstatus" not in bibtex_fields(cli("export").stdout, "judge2026")


def test_deleted_notes_are_not_exported(cli, store: SQLiteStore) -> None:
    note = store.add_note("judge2026", "retracted thought")
    store.delete_note(note.id)
    assert "annote" not in bibtex_fields(cli("export").stdout, "judge2026")


def test_csl_json_export_validates_and_carries_note_and_custom(cli, annotated: SQLiteStore) -> None:
    items = json.loads(cli("export", "-f", "csl-json").stdout)
    jsonschema.Draft7Validator(schema.load("csl-data.json")).validate(items)
    (item,) = [i for i in items if i["id"] == "usmoe2026"]
    assert "Second note" in item["note"]
    assert item["custom"] == {
        "rating": 4,
        "reading-status": "read",
        "personal-tags": ["moe", "reread"],
    }
    assert "rank" not in json.dumps(item.get("keyword", ""))


def test_export_filters_select_papers(cli, annotated: SQLiteStore) -> None:
    def keys(*args: str) -> list[str]:
        return [i["id"] for i in json.loads(cli("export", "-f", "csl-json", *args).stdout)]

    assert keys("--tag", "moe") == ["usmoe2026"]
    assert keys("--min-rating", "3") == ["usmoe2026"]
    assert keys("--status", "unread") == ["graphs2025", "judge2026"]
    assert keys("--venue", "NeurIPS") == ["graphs2025"]


def test_export_to_a_file_takes_the_format_from_the_suffix(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    out = tmp_path / "refs.json"
    assert cli("export", "-o", out).exit_code == 0
    assert {i["id"] for i in json.loads(out.read_text())} == {
        "usmoe2026",
        "judge2026",
        "graphs2025",
    }
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_export_of_bibtex_compiles_with_bibtex(cli, annotated: SQLiteStore, tmp_path: Path) -> None:
    missing = [tool for tool in ("pdflatex", "bibtex") if shutil.which(tool) is None]
    if missing and os.environ.get("BIB_REQUIRE_TOOLCHAINS") == "1":
        pytest.fail(f"BIB_REQUIRE_TOOLCHAINS=1 but not on PATH: {missing}")
    if missing:
        pytest.skip(f"not on PATH: {missing}")
    cli("export", "-o", tmp_path / "refs.bib")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\begin{document}\\nocite{*}"
        "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n"
    )
    for tool in (["pdflatex", "-interaction=nonstopmode", "doc"], ["bibtex", "doc"]):
        done = subprocess.run(tool, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]
    assert "unified sparse mixture of experts" in (tmp_path / "doc.bbl").read_text().lower()


def test_export_of_biblatex_with_annotations_compiles_with_biber(
    cli, annotated: SQLiteStore, tmp_path: Path
) -> None:
    missing = [tool for tool in ("pdflatex", "biber") if shutil.which(tool) is None]
    if missing and os.environ.get("BIB_REQUIRE_TOOLCHAINS") == "1":
        pytest.fail(f"BIB_REQUIRE_TOOLCHAINS=1 but not on PATH: {missing}")
    if missing:
        pytest.skip(f"not on PATH: {missing}")
    cli("export", "-f", "biblatex", "-o", tmp_path / "refs.bib")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[backend=biber]{biblatex}"
        "\\addbibresource{refs.bib}\\begin{document}\\nocite{*}\\printbibliography\\end{document}\n"
    )
    for tool in (["pdflatex", "-interaction=nonstopmode", "doc"], ["biber", "doc"]):
        done = subprocess.run(tool, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:]
    bbl = (tmp_path / "doc.bbl").read_text()
    assert "\\entry{usmoe2026}" in bbl
    assert "Second note" in bbl  # biber kept the annotation field


def test_imported_annote_and_ranking_are_kept_beside_ours(
    cli, store: SQLiteStore, make_record
) -> None:
    record = make_record(
        "id-jabref",
        "jabref2020",
        "From JabRef",
        fields=(("annote", "Imported remark"), ("ranking", "rank2"), ("volume", "7")),
    )
    store.upsert([record])
    store.add_note("jabref2020", "My note")
    fields = bibtex_fields(cli("export").stdout, "jabref2020")
    assert "Imported remark" in fields["annote"] and "My note" in fields["annote"]
    assert (fields["ranking"], fields["volume"]) == ("rank2", "7")
    store.rate("jabref2020", 5)
    assert bibtex_fields(cli("export").stdout, "jabref2020")["ranking"] == "rank5"
