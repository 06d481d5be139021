"""`bib add`: importing the seeds into the library, again and again, never loses a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotations import open_store


def test_add_reports_every_paper_as_new_then_unchanged(
    cli, seeds: list[Path], library: Path
) -> None:
    first = cli("add", *seeds, "--json")
    report = json.loads(first.stdout)
    assert first.exit_code == 0
    assert len(report["new"]) > 50
    assert report["updated"] == report["unchanged"] == []
    again = json.loads(cli("add", *seeds, "--json").stdout)
    assert (again["new"], again["updated"]) == ([], [])
    assert sorted(again["unchanged"]) == sorted(report["new"])


def test_add_prints_new_keys_and_a_summary(cli, seeds: list[Path]) -> None:
    result = cli("add", seeds[0])
    assert result.stdout.splitlines()[0].startswith("new\t")
    assert result.stderr.strip().endswith("0 updated, 0 unchanged")


def test_add_reports_a_changed_paper_as_updated_and_keeps_its_key(cli, tmp_path: Path) -> None:
    plain = tmp_path / "list.txt"
    plain.write_text(
        "Papers\n\nWe propose FooNet, a network for foo that beats every bar baseline.\n",
        encoding="utf-8",
    )
    cli("add", plain, "--venue", "NeurIPS", "--year", "2024")
    report = json.loads(cli("add", plain, "--venue", "NeurIPS", "--year", "2025", "--json").stdout)
    assert "foonet2024" in report["updated"]
    assert report["new"] == []
    assert json.loads(cli("show", "foonet2024", "--json").stdout)["year"] == 2025


def test_keys_stay_pinned_when_the_key_rule_changes(
    cli, seeds: list[Path], library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("add", *seeds)
    cli("note", "add", "usmoe2026", "keep me")
    from bib import keys

    monkeypatch.setattr(keys, "base_key", lambda record, **_: "changed")
    report = json.loads(cli("add", *seeds, "--json").stdout)
    assert report["new"] == []
    with open_store(library) as store:
        assert [n.body for n in store.notes("usmoe2026")] == ["keep me"]


def test_notes_survive_rekey_and_reimport_through_the_cli(cli, seeds: list[Path]) -> None:
    cli("add", *seeds)
    cli("note", "add", "usmoe2026", "survivor")
    cli("rekey", "usmoe2026", "nguyen2026usmoe")
    report = json.loads(cli("add", *seeds, "--json").stdout)
    assert "usmoe2026" not in report["new"]
    shown = json.loads(cli("show", "usmoe2026", "--json").stdout)
    assert shown["key"] == "nguyen2026usmoe"
    assert [n["body"] for n in shown["notes"]] == ["survivor"]


def test_add_with_one_bad_input_stores_nothing(
    cli, seeds: list[Path], tmp_path: Path, library: Path
) -> None:
    bad = tmp_path / "bad.bib"
    bad.write_text("@article{bad,\n  title = {Unclosed\n", encoding="utf-8")
    result = cli("add", *seeds, bad)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith("bib: error: ")
    with open_store(library) as store:
        assert store.count() == 0


def test_add_venue_and_year_options(cli, tmp_path: Path) -> None:
    plain = tmp_path / "list.txt"
    plain.write_text(
        "Papers\n\nWe propose FooNet, a network for foo that beats every bar baseline.\n",
        encoding="utf-8",
    )
    assert cli("add", plain, "--venue", "NeurIPS", "--year", "2024").exit_code == 0
    paper = json.loads(cli("show", "foonet2024", "--json").stdout)
    assert (paper["venue"], paper["year"]) == ("NeurIPS", 2024)


def test_add_reads_standard_input_with_from(cli) -> None:
    text = "Papers\n\nWe propose BarNet, a network for bar that beats every foo baseline.\n"
    result = cli("add", "-", "--from", "paperlist", "--venue", "ICLR", "--year", "2025", input=text)
    assert result.exit_code == 0
    assert json.loads(cli("show", "barnet2025", "--json").stdout)["venue"] == "ICLR"
