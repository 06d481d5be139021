"""`--jobs` on `bib add` and `bib tags`: the engine's workers, chosen as in `bib convert`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from bib import convert as engine
from bib import parallel

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
STRESS = Path(__file__).resolve().parents[1] / "data" / "stress.txt"

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="workers need fork here")


@pytest.fixture
def worker_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Workers even for the seeds, in small batches and parts; a count of the calls that
    spread work over more than one process, so that a test can assert `--jobs` reached them."""
    monkeypatch.setattr(engine, "PARALLEL_AFTER", 5)
    monkeypatch.setattr(engine, "PARALLEL_BATCH", 7)
    monkeypatch.setattr(engine, "LIST_PART", 3)
    counted: list[int] = []
    ordered_map = parallel.ordered_map

    def counting(work: Callable[[Any], Any], batches: Iterable[Any], jobs: int) -> Iterator[Any]:
        if jobs > 1:
            counted.append(jobs)
        return ordered_map(work, batches, jobs)

    monkeypatch.setattr(parallel, "ordered_map", counting)
    return counted


def test_tags_with_jobs_2_prints_what_jobs_1_prints(
    cli: Callable[..., Result], worker_runs: list[int]
) -> None:
    one = cli("tags", SEEDS, STRESS, "--json", "--jobs", "1")
    assert one.exit_code == 0, one.stderr
    assert not worker_runs
    two = cli("tags", SEEDS, STRESS, "--json", "--jobs", "2")
    assert two.exit_code == 0, two.stderr
    assert worker_runs and set(worker_runs) == {2}
    assert two.stdout == one.stdout


def test_add_with_jobs_2_stores_what_jobs_1_stores(
    cli: Callable[..., Result],
    worker_runs: list[int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exported = []
    for jobs in ("1", "2"):
        monkeypatch.setenv("BIB_LIBRARY", str(tmp_path / f"jobs{jobs}.sqlite"))
        added = cli("add", SEEDS, STRESS, "--json", "--jobs", jobs)
        assert added.exit_code == 0, added.stderr
        listed = cli("export", "-f", "csl-json")
        assert listed.exit_code == 0, listed.stderr
        assert listed.stdout.count('"id":') >= 57
        exported.append((added.stdout, listed.stdout))
    assert worker_runs and set(worker_runs) == {2}
    assert exported[1] == exported[0]


@pytest.mark.parametrize("command", ["add", "tags"])
def test_jobs_below_one_is_bad_usage(cli: Callable[..., Result], command: str) -> None:
    result = cli(command, SEEDS, "--jobs", "0")
    assert result.exit_code == 2
    assert "--jobs" in result.stderr
