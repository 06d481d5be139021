"""The conversion pipeline: read -> merge duplicates -> extract -> citation keys.

Each extraction stage is a function from an iterable of Records to an iterable of
Records (see `Stage`), so stages compose in any order and records stream through them.
Merging and key assignment need every record at once; the rest does not.
"""

from __future__ import annotations

import contextlib
import itertools
import marshal
import shutil
import sys
import tempfile
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter
from pathlib import Path
from typing import IO, BinaryIO, NamedTuple

from bib import bidi, crossref, keys, merge, parallel, readers
from bib.errors import BibError
from bib.extract.methods import tag_methods
from bib.extract.tags import tag_stream
from bib.extract.titles import derive_titles
from bib.extract.urls import tag_urls
from bib.record import Author, EntryType, Link, LinkRole, Record, Source, Tag, TagKind

Stage = Callable[[Iterable[Record]], Iterable[Record]]
"""An extraction step: one record out for each record in, in the same order."""
Report = Callable[[str], None]

DEFAULT_STAGES: tuple[Stage, ...] = (tag_methods, tag_urls, derive_titles, tag_stream)
DEFAULT = DEFAULT_STAGES
BATCH = 64
"""Records each stage takes at a time (see `_batched`)."""


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
    report: Report | None,
    starts: list[int] | None = None,
) -> Iterator[Record]:
    """Every record of `paths` in order; `starts` gets the position where each path starts."""
    for path in paths:
        if starts is not None:
            starts.append(stats.read)
        stats.files += 1
        stats.inputs.append(str(path))
        records = readers.read(path, fmt=fmt, venue=venue, year=year, stdin=stdin, report=report)
        for record in records:
            stats.read += 1
            record, stripped = bidi.strip(record)
            if stripped and report is not None:
                report(
                    f"warning: {_where(record)}: removed bidirectional control characters "
                    f"from {', '.join(stripped)}"
                )
            yield record


def strict(message: str) -> None:
    """A `report` for `--strict`: the first warning is an error (exit 2), where it was."""
    raise BibError(message.removeprefix("warning: "))


def _where(record: Record) -> str:
    """`file:line (key)`, as far as the reader knew them."""
    source = record.source
    place = ":".join(str(p) for p in (source.path, source.line) if p) if source else ""
    return f"{place} ({record.key})" if record.key else place


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
    """Records and counts for `inputs` (files, directories or `-`), sorted by key.

    The same stages as `spool`, whose records are read back here into one list."""
    with spool(
        inputs,
        fmt=fmt,
        venue=venue,
        year=year,
        extractors=extractors,
        report=report,
        pinned=pinned,
        stdin=stdin,
    ) as spooled:
        return Result(list(spooled.records(spooled.order())), spooled.stats)


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


class Spool:
    """Byte strings on disk, each read back by its offset: what `spool` keeps instead of
    records (a record as `record_bytes` encodes it, or what a caller renders of it).

    Items are appended while a run produces them and read back (in any order) only after
    that, so writes go through the file's buffer without a seek (a seek flushes it: one
    system call an item) and reads never meet a pending write."""

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close)
        self._reading = False
        self.offsets = array("q")  # 8 bytes an item
        self._end = 0

    def add(self, record: Record) -> None:
        self.add_bytes(record_bytes(record))

    def add_bytes(self, data: bytes) -> None:
        if self._reading:
            raise RuntimeError("items are added before any is read back")
        self._file.write(data)
        self.offsets.append(self._end)
        self._end += len(data)

    def get(self, index: int, key: str | None = None) -> Record:
        """The record added `index`-th, with `key` as its citation key when given."""
        return _record(marshal.loads(self.get_bytes(index)), key)

    def get_bytes(self, index: int) -> bytes:
        if not self._reading:
            self._file.flush()
            self._reading = True
        start = self.offsets[index]
        end = self.offsets[index + 1] if index + 1 < len(self.offsets) else self._end
        self._file.seek(start)
        return self._file.read(end - start)

    def close(self) -> None:
        self._file.close()


_RECORD_FIELDS = tuple(f.name for f in fields(Record))
_values = attrgetter(*_RECORD_FIELDS)
"""Every field of a Record, in order, as one tuple (one C call)."""
_AT = {name: i for i, name in enumerate(_RECORD_FIELDS)}
_ENTRY_TYPES = {t.value: t for t in EntryType}
_ROLES = {r.value: r for r in LinkRole}
_KINDS = {k.value: k for k in TagKind}


def record_bytes(record: Record) -> bytes:
    """A record as the spool keeps it by default (see `Spool.get`)."""
    return marshal.dumps(_plain(record))


def _plain(record: Record) -> list[object]:
    """A Record as plain lists, tuples, strings and numbers (marshal writes them several
    times faster than pickle writes dataclasses and enums)."""
    out = list(_values(record))
    out[_AT["entry_type"]] = record.entry_type.value
    if record.authors:
        out[_AT["authors"]] = [(a.family, a.given, a.literal, a.suffix) for a in record.authors]
    if record.links:
        out[_AT["links"]] = [(link.url, link.role.value) for link in record.links]
    if record.tags:
        out[_AT["tags"]] = [(t.kind.value, t.value, t.label, t.evidence) for t in record.tags]
    out[_AT["sources"]] = [(s.path, s.line) for s in record.sources]
    return out


def _record(plain: list[object], key: str | None = None) -> Record:
    """The Record `_plain` wrote (marshal reads its tuples back as tuples)."""
    plain[_AT["entry_type"]] = _ENTRY_TYPES[plain[_AT["entry_type"]]]  # type: ignore[index]
    if authors := plain[_AT["authors"]]:
        plain[_AT["authors"]] = tuple(Author(*a) for a in authors)  # type: ignore[attr-defined]
    if links := plain[_AT["links"]]:
        plain[_AT["links"]] = tuple(Link(u, _ROLES[r]) for u, r in links)  # type: ignore[attr-defined]
    if tags := plain[_AT["tags"]]:
        plain[_AT["tags"]] = tuple(
            Tag(_KINDS[k], v, label, e)
            for k, v, label, e in tags  # type: ignore[attr-defined]
        )
    plain[_AT["sources"]] = tuple(Source(*s) for s in plain[_AT["sources"]])  # type: ignore[attr-defined]
    if key is not None:
        plain[_AT["key"]] = key
    return Record(*plain)  # type: ignore[arg-type]


@dataclass
class Spooled:
    """`run`'s result with the records on disk: their keys in memory, the rest read back one
    by one in the order a writer asks for (`records`). Close it (a context manager).

    The spool may hold records no longer wanted (a paper's copies, before their merge):
    `indices` says where each wanted record is, `keys` what it is called."""

    stats: Stats
    keys: list[str]
    spool: Spool
    indices: Sequence[int]
    parents: frozenset[str] = frozenset()
    """Casefolded keys of crossref parents (`order` can put them last)."""

    def order(
        self, sort_key: Callable[[str], str] = str, *, parents_last: bool = False
    ) -> list[int]:
        """Positions of the records sorted by key (as `run` sorts them), then by `sort_key`;
        with `parents_last`, crossref parents after all others."""
        by_key = sorted(range(len(self.keys)), key=self.keys.__getitem__)
        if parents_last and self.parents:
            folded = self.parents
            return sorted(
                by_key, key=lambda i: (self.keys[i].casefold() in folded, sort_key(self.keys[i]))
            )
        return sorted(by_key, key=lambda i: sort_key(self.keys[i]))

    def records(self, order: Iterable[int]) -> Iterator[Record]:
        """The records, with their keys (when `spool` kept records: its default)."""
        for position in order:
            yield self.spool.get(self.indices[position], self.keys[position])

    def items(self, order: Iterable[int]) -> Iterator[bytes]:
        """What `spool` kept of each record (its `encode`)."""
        for position in order:
            yield self.spool.get_bytes(self.indices[position])

    def __enter__(self) -> Spooled:
        return self

    def __exit__(self, *exc: object) -> None:
        self.spool.close()


def spool(
    inputs: Sequence[str | Path],
    *,
    fmt: str | None = None,
    venue: str | None = None,
    year: int | None = None,
    extractors: Sequence[Stage] = DEFAULT_STAGES,
    report: Report | None = None,
    pinned: Mapping[str, str] | None = None,
    stdin: BinaryIO | None = None,
    encode: Callable[[Record], bytes] = record_bytes,
    jobs: int = 1,
    progress: Stage | None = None,
) -> Spooled:
    """`run`, holding no record: records wait in a temp file until keys, which need every
    base key, are known, so memory per record is an identity, a key and an offset.

    Records go through the extractors as they are read, before anyone knows which are the
    same paper: nearly none are. Those that are get read again once all identities are in,
    merged, extracted and added to the spool; their unmerged copies stay there unread.
    `encode` is what the spool keeps of a record: by default the record itself; a caller
    that needs only some rendering of it keeps that (`Spooled.items`).

    With `jobs` > 1, an input of more than `PARALLEL_AFTER` records is extracted and encoded
    in that many worker processes (`bib.parallel`), batch by batch and in order; reading,
    merging, keys and the spool stay here, so the result is the same for every `jobs`.
    `progress` sees every record as it is read, in this process."""
    stats = Stats()
    paths = readers.expand(inputs)
    with contextlib.ExitStack() as cleanup:
        if any(str(path) == readers.STDIN for path in paths):
            stdin = cleanup.enter_context(_replayable(stdin or sys.stdin.buffer))
        else:
            stdin = None  # read by no input: nothing to replay
        done = Spool()
        try:
            return _spool(
                paths,
                done,
                fmt,
                venue,
                year,
                extractors,
                report,
                pinned,
                stdin,
                stats,
                encode,
                Workers(jobs, progress),
            )
        except BaseException:
            done.close()
            raise


def _spool(
    paths: Sequence[Path],
    done: Spool,
    fmt: str | None,
    venue: str | None,
    year: int | None,
    extractors: Sequence[Stage],
    report: Report | None,
    pinned: Mapping[str, str] | None,
    stdin: BinaryIO | None,
    stats: Stats,
    encode: Callable[[Record], bytes],
    workers: Workers,
) -> Spooled:
    starts: list[int] = []
    pending: deque[list[str]] = deque()  # identities of records read, not yet extracted

    def read() -> Iterator[Record]:
        for record in _read_all(
            paths,
            fmt=fmt,
            venue=venue,
            year=year,
            stdin=stdin,
            stats=stats,
            report=report,
            starts=starts,
        ):
            pending.append(merge.identities(record))
            yield record

    bases: list[tuple[str, str]] = []
    lookalikes: list[merge.Lookalike] = []
    derived = bytearray()
    parents: set[str] = set()
    wanted = array("q")

    def prepare(records: Iterable[Record]) -> Iterator[Prepared]:
        for record in _extract(records, extractors):
            yield Prepared(
                record.id,
                keys.base_key(record),
                record.title_derived,
                merge.lookalike(record),
                encode(record),
                crossref.parent_key(record),
            )

    def keep(items: Iterable[Prepared]) -> Iterator[None]:
        for item in items:
            wanted.append(len(bases))
            done.add_bytes(item.data)
            bases.append((item.id, item.base_key))
            lookalikes.append(item.lookalike)
            derived.append(item.title_derived)
            if item.parent:
                parents.add(item.parent)
            yield

    def identities() -> Iterator[list[str]]:
        for _ in keep(workers.run(prepare, read())):
            if not pending:
                raise RuntimeError("an extraction stage yielded more records than it got")
            yield pending.popleft()

    found = merge.groups(identities())
    if pending:
        raise RuntimeError("an extraction stage yielded fewer records than it got")
    stats.merged = stats.read - len(found)
    if stats.merged:
        papers = [group for group in found if len(group) > 1]
        copies = {position for group in papers for position in group}
        if stdin is not None:
            stdin.seek(0)
        raw = _read_again(
            paths, starts, stats.read, copies, fmt=fmt, venue=venue, year=year, stdin=stdin
        )
        merged = (merge.merge_group([raw.pop(i) for i in group], report) for group in papers)
        deque(keep(prepare(merged)), maxlen=0)
        wanted = array("q", (i for i in wanted if i not in copies))
    found.clear()
    stats.records = len(wanted)
    if report is not None:
        for line in merge.possible_duplicates(lookalikes[i] for i in wanted):
            report(line)
    stats.titles_derived = sum(derived[i] for i in wanted)
    chosen = keys.unique_keys([bases[i] for i in wanted], pinned)
    return Spooled(stats, chosen, done, wanted, frozenset(parents))


class Prepared(NamedTuple):
    """What the spool needs of an extracted record: its id, the key it would have alone,
    whether its title is derived, what a possible duplicate would be told by, and what
    `encode` made of it, and the key of its crossref parent."""

    id: str
    base_key: str
    title_derived: bool
    lookalike: merge.Lookalike
    data: bytes
    parent: str = ""


PARALLEL_AFTER = 2_000
"""Records read before worker processes pay: below this, starting them (forking, each
worker's first batch cold) costs more than it saves (benchmarks/convert.py --jobs)."""

PARALLEL_BATCH = 4 * BATCH
"""Records sent to a worker at once: large enough that pickling and the pipes cost little
beside the work, small enough to keep every worker busy to the end."""


@dataclass(frozen=True, slots=True)
class Workers:
    """How the per-record work runs: here (`jobs` 1, or a small input) or in worker processes."""

    jobs: int = 1
    progress: Stage | None = None

    def run(
        self, prepare: Callable[[Iterable[Record]], Iterator[Prepared]], records: Iterable[Record]
    ) -> Iterator[Prepared]:
        if self.progress is not None:
            records = self.progress(records)
        records = iter(records)
        if self.jobs < 2:
            return prepare(records)
        head = list(itertools.islice(records, PARALLEL_AFTER))
        if len(head) < PARALLEL_AFTER:
            return prepare(head)

        def batch_work(batch: list[Record]) -> list[Prepared]:
            return list(prepare(batch))

        batches = _batches(itertools.chain(head, records), PARALLEL_BATCH)
        results = parallel.ordered_map(batch_work, batches, self.jobs)
        return itertools.chain.from_iterable(results)


def _batches(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    records = iter(records)
    while batch := list(itertools.islice(records, size)):
        yield batch


def _extract(records: Iterable[Record], extractors: Sequence[Stage]) -> Iterable[Record]:
    records = _batched(records)
    for stage in extractors:
        records = _batched(stage(records))
    return records


def _batched(records: Iterable[Record]) -> Iterator[Record]:
    """The records, taken `BATCH` at a time: each stage then runs over a batch in turn, which
    makes a conversion a tenth faster than one record through every stage at a time (the
    code and data of one stage stay in the processor's caches)."""
    records = iter(records)
    while batch := list(itertools.islice(records, BATCH)):
        yield from batch


@contextlib.contextmanager
def _replayable(stream: BinaryIO) -> Iterator[BinaryIO]:
    """Standard input copied to a temp file, so that it can be read again from the start."""
    with tempfile.TemporaryFile() as copy:
        shutil.copyfileobj(stream, copy)
        copy.seek(0)
        yield copy


def _read_again(
    paths: Sequence[Path],
    starts: Sequence[int],
    total: int,
    positions: set[int],
    *,
    fmt: str | None,
    venue: str | None,
    year: int | None,
    stdin: BinaryIO | None,
) -> dict[int, Record]:
    """The records at these positions of the first reading, read again the same way (only
    the files that hold them, saying nothing a first reading said)."""
    found: dict[int, Record] = {}
    ends = [*starts[1:], total]
    for path, start, end in zip(paths, starts, ends, strict=True):
        if not any(start <= position < end for position in positions):
            continue
        records = readers.read(path, fmt=fmt, venue=venue, year=year, stdin=stdin)
        for position, record in enumerate(records, start):
            if position in positions:
                found[position] = bidi.strip(record)[0]
    return found
