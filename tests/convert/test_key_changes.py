"""Keys that had to change are reported: a key one output format refuses changes in that
output only, and a record whose key had to change is named with old -> new. Keys are read
back by pybtex, rispy and json (not by our readers)."""

from __future__ import annotations

import json
from pathlib import Path

import rispy
from pybtex.database import parse_string

from bib import keys
from bib.writers import safe_key

SEED = Path(__file__).resolve().parents[2] / "seeds" / "000_465737449dbd50b8.txt"


def _csl(path: Path, *items: tuple[str, str], doi: str = "") -> Path:
    """A CSL-JSON file of articles (id, title), with a DOI when given."""
    data = [
        {"id": key, "type": "article-journal", "title": title, "issued": {"date-parts": [[2020]]}}
        | ({"DOI": doi} if doi else {})
        for key, title in items
    ]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _bib_keys(path: Path) -> set[str]:
    return set(parse_string(path.read_text(encoding="utf-8"), "bibtex").entries.keys())


def _json_keys(path: Path) -> set[str]:
    return {item["id"] for item in json.loads(path.read_text(encoding="utf-8"))}


def _ris_keys(path: Path) -> set[str]:
    return {entry["id"] for entry in rispy.loads(path.read_text(encoding="utf-8"))}


def test_key_x_y_becomes_xy_in_the_bib_only_and_is_reported(cli, tmp_path):
    source = _csl(tmp_path / "in.json", ("x y", "Cats"))
    bib, csl, ris = tmp_path / "refs.bib", tmp_path / "refs.json", tmp_path / "refs.ris"
    result = cli("convert", source, "-o", bib, "-o", csl, "-o", ris)
    assert result.exit_code == 0, result.output
    assert (_bib_keys(bib), _json_keys(csl), _ris_keys(ris)) == ({"xy"}, {"x y"}, {"x y"})
    assert f"bib: warning: key 'x y' -> 'xy' in {bib}" in result.stderr.splitlines()


def test_a_key_changed_for_one_output_does_not_take_another_records_key(cli, tmp_path):
    source = _csl(tmp_path / "in.json", ("x y", "Cats"), ("xy", "Dogs"))
    bib = tmp_path / "refs.bib"
    result = cli("convert", source, "-o", bib)
    assert _bib_keys(bib) == {"xy", "xya"}
    assert f"bib: warning: key 'x y' -> 'xya' in {bib}" in result.stderr.splitlines()


def test_a_key_every_output_takes_is_not_reported(cli, tmp_path):
    source = _csl(tmp_path / "in.json", ("smith:2020", "Cats"))
    result = cli("convert", source, "-o", tmp_path / "refs.bib", "-o", tmp_path / "refs.json")
    assert "key '" not in result.stderr


def test_key_changed_for_one_output_is_the_same_on_a_rerun(cli, tmp_path):
    source = _csl(tmp_path / "in.json", ("x y", "Cats"), ("xy", "Dogs"))
    bib, csl = tmp_path / "refs.bib", tmp_path / "refs.json"
    cli("convert", source, "-o", bib, "-o", csl)
    first = bib.read_bytes(), csl.read_bytes()
    assert cli("convert", source, "-o", bib, "-o", csl).exit_code == 0
    assert (bib.read_bytes(), csl.read_bytes()) == first


def test_own_key_taken_by_a_record_already_in_the_output_changes_and_is_reported(cli, tmp_path):
    """usmoe2026 is in refs.bib already (a paper list's USMoE); a .bib entry of another paper
    keyed usmoe2026 arrives: the old record keeps the key, the new one is told old -> new."""
    out = tmp_path / "refs.bib"
    assert cli("convert", SEED, "-o", out).exit_code == 0
    other = _csl(tmp_path / "other.json", ("usmoe2026", "Birds Fly in the Air"))
    result = cli("convert", SEED, other, "-o", out)
    assert result.exit_code == 0, result.output
    [entry] = [e for e in parse_string(out.read_text(), "bibtex").entries.values()
               if e.fields["title"] == "Birds Fly in the Air"]  # fmt: skip
    assert entry.key == "usmoe2026a"
    assert f"bib: warning: {other}:1: key 'usmoe2026' -> 'usmoe2026a'" in result.stderr
    assert "usmoe2026" in _bib_keys(out)


def test_own_key_outranks_a_generated_one_in_a_fresh_output(cli, tmp_path):
    other = _csl(tmp_path / "other.json", ("usmoe2026", "Birds Fly in the Air"))
    out = tmp_path / "refs.json"
    result = cli("convert", SEED, other, "-o", out)
    assert result.exit_code == 0, result.output
    by_key = {item["id"]: item["title"] for item in json.loads(out.read_text())}
    assert by_key["usmoe2026"] == "Birds Fly in the Air"
    assert "usmoe2026a" in by_key
    assert "key 'usmoe2026'" not in result.stderr


def test_two_keys_from_files_giving_one_key_to_two_records_keep_the_first(cli, tmp_path):
    one = _csl(tmp_path / "one.json", ("smith2020", "Cats"), doi="10.1000/cats")
    two = _csl(tmp_path / "two.json", ("smith2020", "Dogs"), doi="10.1000/dogs")
    out = tmp_path / "refs.json"
    result = cli("convert", one, two, "-o", out, "--keys-from", one, "--keys-from", two)
    assert result.exit_code == 0, result.output
    by_key = {item["id"]: item["title"] for item in json.loads(out.read_text())}
    assert by_key == {"smith2020": "Cats", "smith2020a": "Dogs"}
    assert f"bib: warning: {two}: key 'smith2020' is kept for another record" in result.stderr


def test_for_output_depends_on_the_set_of_keys_only():
    names = ["x y", "xy", "a b", "ab", "x.y"]
    assert keys.for_output(names, safe_key) == keys.for_output(names[::-1], safe_key)
    assert keys.for_output(names, safe_key) == {"x y": "xya", "a b": "aba"}
