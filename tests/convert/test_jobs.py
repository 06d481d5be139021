"""`bib convert --jobs N` writes the same bytes for every N."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from bib import convert as engine
from bib import parallel

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
STRESS = Path(__file__).resolve().parents[1] / "data" / "stress.txt"

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="workers need fork here")


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers even for the seeds (57 records), in batches of a few records, so that every
    record crosses a process boundary and batches end in odd places."""
    monkeypatch.setattr(engine, "PARALLEL_AFTER", 5)
    monkeypatch.setattr(engine, "PARALLEL_BATCH", 7)


@pytest.mark.parametrize("jobs", ["2", "3"])
@pytest.mark.usefixtures("small_threshold")
def test_outputs_are_byte_identical_for_every_jobs(
    cli: Callable[..., Result], tmp_path: Path, jobs: str
) -> None:
    outputs = {}
    for n in ("1", jobs):
        names = [tmp_path / f"j{n}.bib", tmp_path / f"j{n}.biblatex.bib", tmp_path / f"j{n}.json"]
        args = [a for name in names for a in ("-o", name)]
        result = cli("convert", SEEDS, STRESS, *args, "--jobs", n)
        assert result.exit_code == 0, result.stderr
        outputs[n] = [name.read_bytes() for name in names]
    assert outputs["1"] == outputs[jobs]


@pytest.mark.usefixtures("small_threshold")
def test_duplicates_merge_the_same_with_workers(cli: Callable[..., Result], tmp_path: Path) -> None:
    seed = sorted(SEEDS.glob("*.txt"))[0]
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert cli("convert", seed, seed, "-o", one, "--jobs", "1").exit_code == 0
    result = cli("convert", seed, seed, "-o", two, "--jobs", "2")
    assert result.exit_code == 0
    assert one.read_bytes() == two.read_bytes()
    assert "duplicates merged" in result.stderr and " 0 duplicates" not in result.stderr


def test_jobs_must_be_positive(cli: Callable[..., Result]) -> None:
    assert cli("convert", SEEDS, "--jobs", "0").exit_code == 2
