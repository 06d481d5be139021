"""`bib convert` end to end: outputs, summary, standard input and output, snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from pybtex.database import parse_string

import schema

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
SUMMARY = "bib: 57 records from 3 files, 0 duplicates merged, 57 titles derived -> "


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The seeds converted once by the real process, all three formats in one call."""
    import os
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("out")
    names = ["seeds.bib", "seeds.biblatex.bib", "seeds.json"]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(SEEDS.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "bib", "convert", str(SEEDS), *[f"-o{out / n}" for n in names]],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return {"stderr": done.stderr, **{n: (out / n).read_text(encoding="utf-8") for n in names}}


def test_one_call_writes_three_formats_and_a_summary(converted):
    assert converted["stderr"].startswith(SUMMARY)
    assert converted["stderr"].count("\n") == 1
    assert converted["seeds.bib"].count("@inproceedings{") == 57


def test_bibtex_output_parses_strictly_with_pybtex(converted):
    for name in ("seeds.bib", "seeds.biblatex.bib"):
        data = parse_string(converted[name], "bibtex")
        assert len(data.entries) == 57


def test_csl_json_output_is_valid_against_the_official_schema(converted):
    items = json.loads(converted["seeds.json"])
    jsonschema.validate(items, schema.load("csl-data.json"))
    assert {item["container-title"] for item in items} == {
        "Proceedings of the 43rd International Conference on Machine Learning"
    }


def test_seed_bibtex_snapshot(converted, file_regression):
    file_regression.check(converted["seeds.bib"], extension=".bib")


def test_seed_biblatex_snapshot(converted, file_regression):
    file_regression.check(converted["seeds.biblatex.bib"], extension=".bib")


def test_seed_csl_json_snapshot(converted, file_regression):
    file_regression.check(converted["seeds.json"], extension=".json")


def test_no_output_option_writes_bibtex_to_stdout(cli, seeds):
    result = cli("convert", seeds[0])
    assert result.exit_code == 0
    assert result.stdout.count("@inproceedings{") == 19
    assert "19 records from 1 file" in result.stderr


def test_format_option_sets_stdout_format(cli, seeds):
    result = cli("convert", seeds[0], "-f", "csl-json")
    assert len(json.loads(result.stdout)) == 19


def test_format_option_overrides_the_suffix_of_one_output(cli, seeds, tmp_path):
    target = tmp_path / "refs.txt"
    assert cli("convert", seeds[0], "-f", "csl-json", "-o", target).exit_code == 0
    assert len(json.loads(target.read_text(encoding="utf-8"))) == 19


def test_format_option_with_several_outputs_is_refused(cli, seeds, tmp_path):
    result = cli(
        "convert", seeds[0], "-f", "bibtex", "-o", tmp_path / "a.bib", "-o", tmp_path / "b.bib"
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("bib: error: -f applies to a single -o")


def test_stdin_with_from_reads_a_paper_list(cli):
    text = "We propose FairJudge, an adaptive judge.\n"
    result = cli(
        "convert", "-", "--from", "paperlist", "--venue", "ICLR", "--year", "2026", input=text
    )
    assert result.exit_code == 0
    assert "fairjudge2026" in result.stdout
    assert "The Fourteenth International Conference on Learning Representations" in result.stdout


def test_stdin_format_is_recognised_without_from(cli):
    item = {
        "id": "x1",
        "type": "article-journal",
        "title": "On Things",
        "issued": {"date-parts": [[2020]]},
    }
    result = cli("convert", "-", input=json.dumps([item]))
    assert result.exit_code == 0
    assert "@article{x1," in result.stdout


def test_bibtex_converts_to_csl_json_keeping_names_and_keys(cli, tmp_path):
    bib = tmp_path / "r.bib"
    bib.write_text(
        '@article{Muller2024, title={{\\"U}ber Caf\\\'e}, author={M{\\"u}ller, J{\\"o}rg and '
        "Fran{\\c c}ois, Luc and {\\L}ukasz Nowak}, journal={J}, year={2024}}\n",
        encoding="utf-8",
    )
    [item] = json.loads(cli("convert", bib, "-f", "csl-json").stdout)
    assert (item["id"], item["title"]) == ("Muller2024", "Über Café")
    assert [a["family"] for a in item["author"]] == ["Müller", "François", "Nowak"]


def test_duplicates_across_files_are_merged_and_reported(cli, seeds, tmp_path):
    copy = tmp_path / "copy.txt"
    copy.write_text(seeds[0].read_text(encoding="utf-8"), encoding="utf-8")
    result = cli("convert", seeds[0], copy, "-f", "csl-json")
    merged = [line for line in result.stderr.splitlines() if line.startswith("bib: merged: ")]
    assert len(merged) == 19
    assert len(json.loads(result.stdout)) == 19
    assert "19 duplicates merged" in result.stderr.splitlines()[-1]


def test_help_shows_examples(cli):
    result = cli("convert", "--help")
    assert "Examples:" in result.stdout
    assert "bib convert seeds/ -o out/seeds.bib" in result.stdout


@pytest.mark.parametrize("name", ["seeds.bib", "seeds.biblatex.bib", "seeds.json"])
def test_output_reads_back_to_the_same_records(converted, name, tmp_path):
    from bib import convert as engine

    written = tmp_path / name
    written.write_text(converted[name], encoding="utf-8")
    fields = ("key", "title", "title_derived", "year", "venue", "container_title", "note")

    def summary(records):
        return {(*(getattr(r, f) for f in fields), frozenset(r.links)) for r in records}

    assert summary(engine.load([written])) == summary(engine.load([SEEDS]))


# CSL-JSON keeps the abstract as plain text (markdown gone), which the tagger may read a little
# differently; a `.bib` reads back to the very record text, so its keywords must not change.
@pytest.mark.parametrize("name", ["seeds.bib", "seeds.biblatex.bib"])
def test_own_bib_converted_again_keeps_its_keywords_as_written(converted, name, cli, tmp_path):
    written = tmp_path / name
    written.write_text(converted[name], encoding="utf-8")
    again = cli("convert", written, "-f", "csl-json").stdout
    direct = json.loads(converted["seeds.json"])
    assert [i.get("keyword") for i in json.loads(again)] == [i.get("keyword") for i in direct]


def test_bibtex_to_csl_json_to_bibtex_keeps_titles_years_and_accented_names(cli, tmp_path):
    from bib.readers import read

    source = tmp_path / "in.bib"
    source.write_text(
        "@inproceedings{Muller2024, title={{\\\"U}ber {USMoE} Caf\\'e}, year={2024},\n"
        '  author={M{\\"u}ller, J{\\"o}rg and {\\L}ukasz Nowak and Fran{\\c c}ois Dupont},\n'
        "  booktitle={Proceedings of the 41st International Conference on Machine Learning}}\n",
        encoding="utf-8",
    )
    middle, final = tmp_path / "mid.json", tmp_path / "out.bib"
    assert cli("convert", source, "-o", middle).exit_code == 0
    assert cli("convert", middle, "-o", final).exit_code == 0
    [before], [after] = list(read(source)), list(read(final))
    assert (after.key, after.title, after.year) == (before.key, before.title, before.year)
    assert after.authors == before.authors
    assert [a.display for a in after.authors] == ["Jörg Müller", "Łukasz Nowak", "François Dupont"]


def test_summary_uses_singular_for_one(cli):
    result = cli(
        "convert", "-", "--venue", "ICML", "--year", "2026", input="We propose X1Net, a net.\n"
    )
    assert result.stderr.splitlines()[-1] == (
        "bib: 1 record from 1 file, 0 duplicates merged, 1 title derived -> stdout"
    )


def test_stdin_through_the_real_process(bib_process):
    text = "ICML 2026 Papers\n\nWe propose FairJudge, an adaptive judge.\n"
    done = bib_process("convert", "-", "--from", "paperlist", "-f", "csl-json", input=text)
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)
    assert (item["id"], item["event-title"]) == ("fairjudge2026", "ICML 2026")


def test_directory_without_inputs_is_refused(cli, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("convert", empty)
    assert result.exit_code == 2
    assert (
        result.stderr == f"bib: error: {empty}: directory has no .txt, .md, .bib or .json files\n"
    )


def test_convert_leaves_the_garbage_collector_as_it_found_it(cli, tmp_path):
    import gc

    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    result = cli("convert", SEEDS, "-o", tmp_path / "out.bib")
    assert result.exit_code == 0
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before
