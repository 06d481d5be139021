"""Per-record work spread over worker processes, in order, with bounded memory.

The stages of a conversion are functions of one record each (method names, titles, tags,
rendering), so batches of records can go to other processes and come back in the order they
left. What needs every record at once (merging, keys, writing) stays in the parent. Workers
are forked, so they inherit the stages as the parent built them (vocabulary compiled once,
closures and all) instead of rebuilding them from pickles.

`ordered_map(work, batches, jobs)` is `map(work, batches)` with at most `WINDOW_PER_JOB` batches
per worker in flight: the reader never runs ahead of the workers by more than that.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

In = TypeVar("In")
Out = TypeVar("Out")

BATCH = 64
"""Records taken at a time by every step that works in batches: each extraction stage
(`bib.convert`), the tagger (`bib.extract.tags`), and, four at a time, a worker process.
Small enough to stream, large enough that a stage's code and data stay in the processor's
caches over a batch."""

WINDOW_PER_JOB = 4
"""Batches sent ahead per worker: enough to keep every worker busy while the parent reads
and writes, few enough that memory does not grow with the input."""


def batches(items: Iterable[In], size: int = BATCH) -> Iterator[list[In]]:
    """`items` as lists of `size` (the last one shorter)."""
    items = iter(items)
    while batch := list(itertools.islice(items, size)):
        yield batch


def usable_cores() -> int:
    """The processors this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """Whether worker processes can inherit the parent's stages (fork start method)."""
    import multiprocessing  # here, not at the top: a one-process run never loads it

    return "fork" in multiprocessing.get_all_start_methods()


_work: Callable[[object], object] | None = None
"""The function a worker runs, set once in each worker process by `_install` (a worker's
own state, inherited through fork, not a cache of results)."""


def _install(work: Callable[[object], object]) -> None:
    global _work
    _work = work


def _run(batch: object) -> object:
    assert _work is not None, "worker started without its work"
    return _work(batch)


def ordered_map(work: Callable[[In], Out], batches: Iterable[In], jobs: int) -> Iterator[Out]:
    """`work(batch)` for each batch, in order, computed by `jobs` forked worker processes.

    An exception raised by `work` in a worker is raised here, in the parent, for its batch.
    """
    if jobs < 2 or not can_fork():
        yield from map(work, batches)
        return
    import multiprocessing

    context = multiprocessing.get_context("fork")
    window: deque[AsyncResult[Out]] = deque()
    with context.Pool(jobs, initializer=_install, initargs=(work,)) as pool:
        for batch in batches:
            window.append(pool.apply_async(_run, (batch,)))  # type: ignore[arg-type]
            if len(window) >= jobs * WINDOW_PER_JOB:
                yield window.popleft().get()
        while window:
            yield window.popleft().get()
