"""`bib convert --jobs N` on CSL-JSON input whose items workers read, extract and render in
parts (`bib.convert._read_csl`): the same bytes, warnings and first error for every N, the
whole-file read (`csljson.read`) as the oracle."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from bib import convert as engine
from bib import parallel
from bib.readers import csljson

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="workers need fork here")


def _items(count: int) -> list[dict[str, Any]]:
    """`count` articles; one with an empty type, one with a bidi control, and the last a
    copy (same DOI) of the first, parts apart."""
    items: list[dict[str, Any]] = [
        {
            "id": f"item{i}",
            "type": "article-journal",
            "title": f"Sparse Routing Number {i}",
            "author": [{"family": f"Lee{i}", "given": "Ann"}],
            "issued": {"date-parts": [[2000 + i % 20]]},
            "DOI": f"10.1000/{i}",
            "abstract": f"We propose Net{i}, trained on ImageNet with PyTorch.",
        }
        for i in range(count)
    ]
    items[4]["type"] = ""
    items[7]["title"] = "Hidden \u202etext"
    items.append({**items[0], "id": "copy", "note": "the same paper as item0"})
    return items


@pytest.fixture
def in_parts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Workers from five items on, in parts of three; a count of the parts read ahead (the
    path under test is taken)."""
    monkeypatch.setattr(engine, "PARALLEL_AFTER", 5)
    monkeypatch.setattr(engine, "LIST_PART", 3)
    counted: list[int] = []
    keep = engine._Reading.keep_ahead

    def counting(self: engine._Reading, *args: Any, **kwargs: Any) -> None:
        counted.append(1)
        keep(self, *args, **kwargs)

    monkeypatch.setattr(engine._Reading, "keep_ahead", counting)
    return counted


def _told(
    cli: Callable[..., Result], path: Path, out: Path, jobs: str, *more: str
) -> tuple[bytes, bytes, str, int]:
    result = cli("convert", path, "-o", out, "-o", out.with_suffix(".json"), "--jobs", jobs, *more)
    bib = out.read_bytes() if out.exists() else b""
    csl = out.with_suffix(".json").read_bytes() if out.exists() else b""
    return bib, csl, result.stderr.replace(out.stem + ".", "j."), result.exit_code


def test_csl_json_read_in_parts_in_workers_writes_the_same_bytes_and_warnings_for_every_jobs(
    cli: Callable[..., Result], tmp_path: Path, in_parts: list[int]
) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(_items(20), indent=2), encoding="utf-8")
    told = {jobs: _told(cli, path, tmp_path / f"j{jobs}.bib", jobs) for jobs in "123"}
    assert in_parts, "no part was read ahead"
    assert told["1"] == told["2"] == told["3"]
    assert told["2"][3] == 0
    assert "has an empty type" in told["2"][2]
    assert "removed bidirectional control characters" in told["2"][2]


def test_an_invalid_item_in_a_late_part_is_the_same_error_after_the_same_warnings(
    cli: Callable[..., Result], tmp_path: Path, in_parts: list[int]
) -> None:
    items = _items(20)
    items[16]["author"] = "not a list of names"
    path = tmp_path / "in.json"
    path.write_text(json.dumps(items, indent=2), encoding="utf-8")
    told = [_told(cli, path, tmp_path / f"j{n}.bib", n) for n in "12"]
    assert told[0] == told[1]
    assert told[1][3] == 2
    assert "invalid CSL-JSON item 16 (item16)" in told[1][2]
    assert "has an empty type" in told[1][2]


def test_strict_stops_at_the_same_first_warning_with_workers(
    cli: Callable[..., Result], tmp_path: Path, in_parts: list[int]
) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(_items(20), indent=2), encoding="utf-8")
    told = [_told(cli, path, tmp_path / f"j{n}.bib", n, "--strict") for n in "12"]
    assert told[0] == told[1]
    assert told[1][3] == 2
    assert "has an empty type" in told[1][2]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 25])
def test_records_of_every_part_in_turn_are_the_whole_file_read(size: int) -> None:
    data = json.dumps(_items(20), indent=2).encode()
    told: list[str] = []
    parsed = csljson.parse(data, "in.json")
    parts = [
        record
        for start in range(0, len(parsed.items), size)
        for record in csljson.records(parsed, start, start + size, told.append)
    ]
    whole: list[str] = []
    assert parts == list(csljson.read(data, "in.json", report=whole.append))
    assert told == whole
