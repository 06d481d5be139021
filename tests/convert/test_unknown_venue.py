"""`--venue` a venue table does not know, and `--venue-title`: the name is kept in every output
format (read back by pybtex, rispy and json, not by our readers), with one warning a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rispy
from pybtex.database import parse_string

WARNING = (
    "bib: warning: venue 'FooConf' is not in the venue table; kept as given "
    "(use --venue-title to name the proceedings)"
)
LIST = "We propose a model of cats as liquids that flow into boxes.\n"


@pytest.fixture
def paper_list(tmp_path: Path) -> Path:
    path = tmp_path / "list.txt"
    path.write_text(LIST, encoding="utf-8")
    return path


def _container(path: Path) -> str:
    """The proceedings title of the one record in `path`, as an independent reader sees it."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        [item] = json.loads(text)
        return str(item["container-title"])
    if path.suffix == ".ris":
        [entry] = rispy.loads(text)
        return str(entry["custom3"])  # C3: Zotero's proceedingsTitle of a CONF
    [entry] = parse_string(text, "bibtex").entries.values()
    return str(entry.fields["booktitle"])


OUTPUTS = ["refs.bib", "refs.biblatex.bib", "refs.json", "refs.ris"]


@pytest.mark.parametrize("name", OUTPUTS)
def test_unknown_venue_fooconf_is_kept_as_the_proceedings_title_in_every_format(
    cli, paper_list, tmp_path, name
):
    out = tmp_path / name
    result = cli("convert", paper_list, "--venue", "FooConf", "--year", "2026", "-o", out)
    assert result.exit_code == 0, result.output
    assert _container(out) == "FooConf"


def test_unknown_venue_is_kept_in_ris_as_the_proceedings_c3(cli, paper_list, tmp_path):
    """Zotero's RIS import maps C3 of a CONF to proceedingsTitle, T2 to conferenceName."""
    out = tmp_path / "refs.ris"
    cli("convert", paper_list, "--venue", "FooConf", "--year", "2026", "-o", out)
    [entry] = rispy.loads(out.read_text(encoding="utf-8"))
    assert (entry["type_of_reference"], entry["custom3"], entry["secondary_title"]) == (
        "CONF",
        "FooConf",
        "FooConf 2026",
    )


def test_unknown_venue_warns_once_a_run_with_the_hint(cli, paper_list, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("We propose a model of dogs as solids.\n", encoding="utf-8")
    result = cli("convert", paper_list, other, "--venue", "FooConf", "--year", "2026")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines().count(WARNING) == 1


def test_unknown_venue_in_a_header_warns_too(cli, tmp_path):
    path = tmp_path / "list.txt"
    path.write_text(f"FooConf 2026 Papers\n\n{LIST}", encoding="utf-8")
    result = cli("convert", path)
    assert WARNING in result.stderr.splitlines()


def test_known_venue_gives_no_venue_warning(cli, paper_list):
    result = cli("convert", paper_list, "--venue", "ICML", "--year", "2026")
    assert "venue table" not in result.stderr


@pytest.mark.parametrize("name", OUTPUTS)
def test_venue_title_names_the_proceedings_in_every_format_without_a_warning(
    cli, paper_list, tmp_path, name
):
    out = tmp_path / name
    result = cli(
        "convert", paper_list, "--venue", "FooConf", "--year", "2026",
        "--venue-title", "Proceedings of FooConf 2026", "-o", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert _container(out) == "Proceedings of FooConf 2026"
    assert "venue table" not in result.stderr


def test_venue_title_replaces_a_known_venues_proceedings_title(cli, paper_list, tmp_path):
    out = tmp_path / "refs.bib"
    cli("convert", paper_list, "--venue", "ICML", "--year", "2026",
        "--venue-title", "ICML 2026 Workshop on Cats", "-o", out)  # fmt: skip
    assert _container(out) == "ICML 2026 Workshop on Cats"


def test_unknown_venue_under_strict_is_an_error_and_writes_nothing(cli, paper_list, tmp_path):
    out = tmp_path / "refs.bib"
    result = cli(
        "convert", paper_list, "--venue", "FooConf", "--year", "2026", "--strict", "-o", out
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"bib: error: {paper_list}:1: venue 'FooConf' is not in")
    assert not out.exists()
