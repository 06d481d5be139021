"""The conversion pipeline: read -> merge duplicates -> extract -> citation keys.

Each extraction stage is a function from an iterable of Records to an iterable of
Records (see `Stage`), so stages compose in any order and records stream through them.
Merging and key assignment need every record at once; the rest does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from bib import keys, merge, readers
from bib.extract.methods import tag_methods
from bib.extract.tags import tag_stream
from bib.extract.titles import derive_titles
from bib.extract.urls import tag_urls
from bib.record import Record

Stage = Callable[[Iterable[Record]], Iterable[Record]]
Report = Callable[[str], None]

KEY_STAGES: tuple[Stage, ...] = (tag_methods, tag_urls, derive_titles)
"""The default stages whose output citation keys depend on (method names, titles); a caller
that streams its output may run the others after `run`, record by record (`bib convert`)."""
DEFAULT_STAGES: tuple[Stage, ...] = (*KEY_STAGES, tag_stream)
DEFAULT = DEFAULT_STAGES


@dataclass
class Stats:
    """Counts for the one-line summary."""

    files: int = 0
    read: int = 0
    records: int = 0
    merged: int = 0
    titles_derived: int = 0
    inputs: list[str] = field(default_factory=list)


@dataclass
class Result:
    records: list[Record]
    stats: Stats


def _read_all(
    paths: Sequence[Path],
    *,
    fmt: str | None,
    venue: str | None,
    year: int | None,
    stdin: BinaryIO | None,
    stats: Stats,
) -> Iterator[Record]:
    for path in paths:
        stats.files += 1
        stats.inputs.append(str(path))
        for record in readers.read(path, fmt=fmt, venue=venue, year=year, stdin=stdin):
            stats.read += 1
            yield record


def run(
    inputs: Sequence[str | Path],
    *,
    fmt: str | None = None,
    venue: str | None = None,
    year: int | None = None,
    extractors: Sequence[Stage] = DEFAULT_STAGES,
    report: Report | None = None,
    pinned: Mapping[str, str] | None = None,
    stdin: BinaryIO | None = None,
) -> Result:
    """Records and counts for `inputs` (files, directories or `-`), sorted by key."""
    stats = Stats()
    paths = readers.expand(inputs)
    merged, stats.merged = merge.merge(
        _read_all(paths, fmt=fmt, venue=venue, year=year, stdin=stdin, stats=stats), report
    )
    stream: Iterable[Record] = merged
    for stage in extractors:
        stream = stage(stream)
    records = keys.assign(stream, pinned)
    records.sort(key=lambda r: r.key)
    stats.records = len(records)
    stats.titles_derived = sum(r.title_derived for r in records)
    return Result(records, stats)


def load(
    inputs: Sequence[str | Path],
    *,
    fmt: str | None = None,
    venue: str | None = None,
    year: int | None = None,
    extractors: Sequence[Stage] = DEFAULT_STAGES,
    report: Report | None = None,
) -> list[Record]:
    """Records for `inputs`, sorted by key (the agreed interface; `run` also counts)."""
    return run(
        inputs, fmt=fmt, venue=venue, year=year, extractors=extractors, report=report
    ).records
