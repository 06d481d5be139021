"""`bib convert --jobs N` on CSL-JSON input whose items workers read, extract and render in
parts (`bib.convert._read_csl`): the same bytes, warnings and first error for every N, the
whole-file read (`csljson.read`) as the oracle."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bib import convert as engine
from bib import parallel
from bib.readers import csljson
from tests.convert.conftest import Told

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
def in_parts(monkeypatch: pytest.MonkeyPatch, parts_read_ahead: list[int]) -> list[int]:
    """Workers from five items on, in parts of three; a count of the parts read ahead (the
    path under test is taken)."""
    monkeypatch.setattr(engine, "PARALLEL_AFTER", 5)
    monkeypatch.setattr(engine, "LIST_PART", 3)
    return parts_read_ahead


def test_csl_json_read_in_parts_in_workers_writes_the_same_bytes_and_warnings_for_every_jobs(
    told: Callable[..., Told], tmp_path: Path, in_parts: list[int]
) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(_items(20), indent=2), encoding="utf-8")
    runs = {jobs: told([path], tmp_path / f"j{jobs}.bib", jobs) for jobs in "123"}
    assert in_parts, "no part was read ahead"
    assert runs["1"] == runs["2"] == runs["3"]
    assert runs["2"][3] == 0
    assert "has an empty type" in runs["2"][2]
    assert "removed bidirectional control characters" in runs["2"][2]


def test_an_invalid_item_in_a_late_part_is_the_same_error_after_the_same_warnings(
    told: Callable[..., Told], tmp_path: Path, in_parts: list[int]
) -> None:
    items = _items(20)
    items[16]["author"] = "not a list of names"
    path = tmp_path / "in.json"
    path.write_text(json.dumps(items, indent=2), encoding="utf-8")
    runs = [told([path], tmp_path / f"j{n}.bib", n) for n in "12"]
    assert runs[0] == runs[1]
    assert runs[1][3] == 2
    assert "invalid CSL-JSON item 16 (item16)" in runs[1][2]
    assert "has an empty type" in runs[1][2]


def test_strict_stops_at_the_same_first_warning_with_workers(
    told: Callable[..., Told], tmp_path: Path, in_parts: list[int]
) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(_items(20), indent=2), encoding="utf-8")
    runs = [told([path], tmp_path / f"j{n}.bib", n, "--strict") for n in "12"]
    assert runs[0] == runs[1]
    assert runs[1][3] == 2
    assert "has an empty type" in runs[1][2]


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
