"""Work spread over processes gives what `map` gives, in order, without reading ahead."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bib.parallel import WINDOW_PER_JOB, can_fork, ordered_map

pytestmark = pytest.mark.skipif(not can_fork(), reason="worker processes need fork here")


def _square_all(batch: list[int]) -> list[int]:
    return [n * n for n in batch]


@settings(max_examples=15, deadline=None)
@given(st.lists(st.lists(st.integers(), max_size=5), max_size=30), st.integers(1, 3))
def test_the_parallel_map_is_the_plain_map(batches: list[list[int]], jobs: int) -> None:
    assert list(ordered_map(_square_all, batches, jobs)) == list(map(_square_all, batches))


def test_a_closure_reaches_the_workers_as_built() -> None:
    offset = 1000

    def shifted(batch: list[int]) -> list[int]:
        return [n + offset for n in batch]

    assert list(ordered_map(shifted, [[1], [2, 3]], 2)) == [[1001], [1002, 1003]]


def test_an_error_in_a_worker_is_raised_in_the_parent() -> None:
    def fails(batch: list[int]) -> list[int]:
        raise ValueError(f"bad batch {batch}")

    with pytest.raises(ValueError, match="bad batch"):
        list(ordered_map(fails, [[1]], 2))


def test_the_input_is_read_at_most_a_window_ahead() -> None:
    read = 0

    def batches() -> Iterator[list[int]]:
        nonlocal read
        for n in range(1000):
            read += 1
            yield [n]

    results = ordered_map(_square_all, batches(), 2)
    assert next(results) == [0]
    assert read <= 2 * WINDOW_PER_JOB + 1
    results.close()
