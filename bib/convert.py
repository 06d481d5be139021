"""The conversion engine: read -> merge duplicates -> extract -> citation keys -> write.

`run` and `load` give the records of some inputs; `spool` the same without holding them
(they wait on disk, `bib.spool`, until every key is known); `convert` writes them to sinks
(`FileSink`, `TextSink`), every output in full before any is published (`bib.atomic`).
Each takes one `ConvertOptions`. The command line (`bib.cli.convert`) only parses options
into one, calls `convert` and prints the summary.

Each extraction stage is a function from an iterable of Records to an iterable of
Records (see `Stage`), so stages compose in any order and records stream through them.
Merging and key assignment need every record at once; the rest does not.
"""

from __future__ import annotations

import bisect
import collections
import contextlib
import gc
import itertools
import marshal
import sys
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, BinaryIO, Generic, NamedTuple, Protocol, TypeVar, runtime_checkable

from bib import bidi, crossref, keys, merge, parallel, readers, stable_keys, writers
from bib.atomic import Staged
from bib.errors import BibError
from bib.extract import tags as tagging
from bib.extract import vocabulary as vocab
from bib.extract.generic import GenericTopics, Observed
from bib.extract.methods import tag_methods
from bib.extract.tags import tag_stream
from bib.extract.titles import derive_titles
from bib.extract.urls import tag_urls
from bib.latex.source import Definitions, expanded
from bib.readers import bibtex, bibtex_parts, csljson, paperlist
from bib.record import LatexSource, Record, StringDef, TagKind
from bib.spool import NO_ITEMS, Items, Spool, record_bytes, record_of, write_items
from bib.writers import WriteOptions

Stage = Callable[[Iterable[Record]], Iterable[Record]]
"""An extraction step: one record out for each record in, in the same order."""
Report = Callable[[str], None]
Done = TypeVar("Done")
Item = TypeVar("Item")


class Progress(Protocol):
    """Sees every record a worker read and extracted ahead (`_read_list`, `_kept`), and every
    other unique paper as it goes into the stages, in whatever form each travels, and passes
    each on: a record is seen once, but the copies of a paper read ahead are each seen, and
    so is the paper they merge into (they are known as copies only once all are read)."""

    def __call__(self, items: Iterable[Item], /) -> Iterator[Item]: ...


Encoder = Callable[[Record], bytes]
"""What the spool keeps of a record (`record_bytes`: the record itself)."""

DEFAULT_STAGES: tuple[Stage, ...] = (tag_methods, tag_urls, derive_titles, tag_stream)
BATCH_GC_THRESHOLD = 10_000
"""Allocations between collections of the youngest generation while converting (Python's
default is 700)."""


@dataclass(frozen=True, slots=True)
class ConvertOptions:
    """Everything a conversion is told, in one place (the CLI builds one from its options).

    `source_format` reads every input (and `-`) as that format; `venue` and `year` override
    list headers, and `venue_title` names the proceedings of a paper list's venue (known or
    not: `bib.venues.given`); `stages` run over every unique paper (`tag_stages` builds them from a
    vocabulary), then `lookups`, stages that must run in this process (a network lookup:
    one client and its rate limits) even when `jobs` > 1; `report` hears warnings and what
    the run did (keys kept and changed), each message once a run (an unknown `venue` is
    told once, not once per list), and `strict` makes the first warning an error
    (`strict_report`); `pinned` maps record ids to keys they keep, and `keys_from` names
    files whose keys are kept (`convert` adds the outputs that exist); `jobs` worker
    processes read and extract long paper lists, `.bib` and CSL-JSON files, and extract
    other large inputs; `progress` sees the records as
    they are extracted (`Progress`); `output` says how entries are rendered."""

    source_format: str | None = None
    venue: str | None = None
    venue_title: str | None = None
    year: int | None = None
    stages: Sequence[Stage] = DEFAULT_STAGES
    lookups: Sequence[Stage] = ()
    report: Report | None = None
    strict: bool = False
    pinned: Mapping[str, str] | None = None
    keys_from: tuple[Path, ...] = ()
    stdin: BinaryIO | None = None
    jobs: int = 1
    progress: Progress | None = None
    output: WriteOptions = field(default_factory=WriteOptions)


def tag_stages(
    vocab_files: Sequence[Path] = (),
    max_topics: int = tagging.DEFAULT_MAX_TOPICS,
    kinds: Collection[TagKind] = tagging.DEFAULT_KINDS,
    with_parents: bool = False,
) -> list[Stage]:
    """The default stages with the tagging stage set up from a vocabulary (the shipped one
    and `vocab_files`), making tags of `kinds` only; with topics, the list's generic topics
    left out where a paper is not about them (`GenericTopics`, a `ListStage`), and the
    ancestors of each topic added when `with_parents` (bib.extract.hierarchy)."""
    vocabulary = vocab.load(vocab_files)
    stages: list[Stage] = [s for s in DEFAULT_STAGES if s is not tag_stream]
    topical = TagKind.TOPIC in kinds
    stages.append(tagging.stage(vocabulary, max_topics, kinds, loose=topical))
    if topical:
        stages.append(GenericTopics(vocabulary, max_topics, with_parents))
    return stages


@runtime_checkable
class ListStage(Protocol):
    """A last stage that needs the whole run: it learns something of every record
    (`observe`), decides once all are seen (`decide`), and then finishes each record
    (`finish`). The engine finishes each record at once with the `prior` decision and
    keeps it as it was before (on disk) only when `observe` says some decision could
    change it (`Observed.loose`); those few are finished again if the run's decision
    differs. Called as a plain stage, it finishes each record with the `prior`."""

    @property
    def prior(self) -> frozenset[str]: ...

    def __call__(self, records: Iterable[Record], /) -> Iterable[Record]: ...

    def observe(self, record: Record) -> Observed: ...

    def decide(self, counts: collections.Counter[str], records: int) -> frozenset[str]: ...

    def finish(self, record: Record, decided: frozenset[str]) -> Record: ...


def _list_stage(stages: Sequence[Stage]) -> tuple[Sequence[Stage], ListStage | None]:
    """The per-record stages, and the list stage if the last one is one."""
    if stages and isinstance(stages[-1], ListStage):
        return stages[:-1], stages[-1]
    return stages, None


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


def _stripped(record: Record, warn: Report | None) -> Record:
    """`record` without bidirectional controls (`bib.bidi`), each removal told to `warn`."""
    record, stripped = bidi.strip(record)
    if stripped and warn is not None:
        warn(
            f"warning: {_where(record)}: removed bidirectional control characters "
            f"from {', '.join(stripped)}"
        )
    return record


def _warnings(options: ConvertOptions) -> Report | None:
    """Who hears a warning: `report`, or under `strict` nobody (it is an error)."""
    return strict_report if options.strict else options.report


def strict_report(message: str) -> None:
    """A `report` for `--strict`: the first warning is an error (exit 2), where it was."""
    raise BibError(message.removeprefix("warning: "))


def _once(report: Report) -> Report:
    """`report`, saying each message once (the same words twice tell nothing new)."""
    said: set[str] = set()

    def once(message: str) -> None:
        if message not in said:
            said.add(message)
            report(message)

    return once


def _where(record: Record) -> str:
    """`file:line (key)`, as far as the reader knew them."""
    place = _place(record)
    return f"{place} ({record.key})" if record.key else place


def _place(record: Record) -> str:
    """`file:line`, as far as the reader knew them."""
    source = record.source
    return ":".join(str(p) for p in (source.path, source.line) if p) if source else ""


def run(inputs: Sequence[str | Path], options: ConvertOptions | None = None) -> Result:
    """Records and counts for `inputs` (files, directories or `-`), sorted by key.

    The same stages as `spool`, whose records are read back here into one list."""
    with spool(inputs, options) as spooled:
        return Result(list(spooled.records(spooled.order())), spooled.stats)


def load(inputs: Sequence[str | Path], options: ConvertOptions | None = None) -> list[Record]:
    """Records for `inputs`, sorted by key (the agreed interface; `run` also counts)."""
    return run(inputs, options).records


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
    definitions: Definitions = field(default_factory=Definitions)
    """The inputs' `@preamble`s and `@string`s, for the top of BibTeX outputs."""

    def parent_positions(self) -> frozenset[int]:
        """Positions of the records that are some record's crossref parent."""
        folded = self.parents
        return frozenset(i for i, key in enumerate(self.keys) if key.casefold() in folded)

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
    options: ConvertOptions | None = None,
    encode: Encoder = record_bytes,
) -> Spooled:
    """`run`, holding no record: records wait in a temp file until keys, which need every
    base key, are known, so memory per record is an identity, a key and an offset.

    Records are read first, each kept on disk as read, until every identity is known and
    the copies of one paper can be merged; only then does each unique paper go through the
    stages, once (a lookup with a cost, such as `lookups` on the network, never runs for a
    copy), and is encoded into the spool. `encode` is what the spool keeps of a record: by
    default the record itself; a caller that needs only some rendering of it keeps that
    (`Spooled.items`).

    With `jobs` > 1, a paper list of `PARALLEL_AFTER` paragraphs or more, a `.bib` of
    `bibtex_parts.AFTER` characters or more and a CSL-JSON file of `PARALLEL_AFTER` items or
    more are read, extracted and encoded ahead, part by part, in that many worker processes
    (`_read_list`, `_read_bib`, `_read_csl`; the few copies of a paper, and a `.bib`'s
    crossref children, are taken as read and merged or resolved first), and whatever else
    is left of more than `PARALLEL_AFTER` records (`AFTER_AHEAD` after inputs read ahead)
    is extracted and encoded in them, batch by batch, after merging (`Workers`); always in
    order. Merging, lookups, keys and the spool stay here, so the result is the same for
    every `jobs`."""
    options = options or ConvertOptions()
    if options.report is not None:
        options = replace(options, report=_once(options.report))
    paths = readers.expand(inputs)
    stdin = options.stdin
    if stdin is None and any(str(path) == readers.STDIN for path in paths):
        stdin = sys.stdin.buffer
    done = Spool()
    try:
        return _spool(paths, done, options, stdin, Stats(), encode)
    except BaseException:
        done.close()
        raise


def _spool(
    paths: Sequence[Path],
    done: Spool,
    options: ConvertOptions,
    stdin: BinaryIO | None,
    stats: Stats,
    encode: Encoder,
) -> Spooled:
    with (
        contextlib.closing(Spool()) as raw,
        contextlib.closing(Spool()) as held,
        tempfile.TemporaryDirectory(prefix="bib-") as handoff,
    ):
        reading = _Reading(raw, done, Definitions(), held, handoff)
        found = merge.groups(_read_into(reading, paths, options, stdin, stats, encode))
        papers = [group for group in found if len(group) > 1]
        stats.merged = stats.read - len(found)
        found.clear()
        copies = {position for group in papers for position in group}
        definitions = reading.definitions
        unusable = definitions.unusable()
        reading.keep_read(copies, expand=bool(unusable))
        where = reading.where
        singles = [i for i in range(stats.read) if i not in copies]
        todo = (raw.get_bytes(where[i]) for i in singles if where[i] >= 0)
        warn = _warnings(options)
        if unusable:
            if warn is not None:
                for line in definitions.warnings():
                    warn(line)
            todo = (record_bytes(expanded(record_of(data), unusable)) for data in todo)
        merged = (
            record_bytes(
                expanded(merge.merge_group([raw.get(where[i]) for i in group], warn), unusable)
            )
            for group in papers
        )
        unique = stats.read - len(copies) + len(papers)
        extracted = _prepared(itertools.chain(todo, merged), options, encode, bool(reading.parts))
        listed = _Listed()
        bases: list[tuple[str, str]] = []
        owns: dict[int, OwnKey] = {}
        lookalikes: list[merge.Lookalike] = []
        derived = 0
        parents: set[str] = set()
        texts: list[str] = []
        indices: list[int] = []
        for index, item, read_at in _in_order(singles, reading, extracted):
            if len(bases) == unique:
                raise RuntimeError("an extraction stage yielded more records than it got")
            listed.count(len(bases), item, reading, read_at)
            if item.own is not None:
                owns[len(bases)] = item.own
            if index < 0:
                index = len(done)
                done.add_bytes(item.data)
            indices.append(index)
            bases.append((item.id, item.base_key))
            lookalikes.append(item.lookalike)
            derived += item.title_derived
            if item.parent:
                parents.add(item.parent)
            texts.append(item.text_id)
        listing = _list_stage(options.stages)[1]
        if listing is not None:
            listed.finish(listing, reading.held, done, indices, Workers(options.jobs), encode)
    if len(bases) < unique:
        raise RuntimeError("an extraction stage yielded fewer records than it got")
    stats.records = unique
    if warn is not None:
        for line in merge.possible_duplicates(lookalikes):
            warn(line)
    stats.titles_derived = derived
    pinned = dict(options.pinned or {})
    if pinned:
        pinned = stable_keys.pin_by_text(pinned, [record_id for record_id, _ in bases], texts)
    brought = [i in owns and owns[i].key == base for i, (_, base) in enumerate(bases)]
    chosen = keys.unique_keys(bases, keys.with_own_keys(bases, brought, pinned))
    if warn is not None:
        for position, own in sorted(owns.items()):
            if own.key != chosen[position]:
                record_id, base = bases[position]
                warn(_key_change(own, chosen[position], record_id in pinned, base == own.key))
    return Spooled(stats, chosen, done, indices, frozenset(parents), reading.definitions)


class OwnKey(NamedTuple):
    """The key a record had in its input, and where (`file:line`)."""

    key: str
    where: str


def _key_change(own: OwnKey, key: str, pinned: bool, usable: bool) -> str:
    """The warning for a record whose key had to change, with why."""
    if pinned:
        why = "the key it has in an existing output or --keys-from file"
    elif usable:
        why = "another record has that key"
    else:
        why = "not usable as a citation key"
    return f"warning: {own.where}: key {own.key!r} -> {key!r} ({why})"


@dataclass
class _Reading:
    """Where each record read so far is: kept as read in `raw` (`where` >= 0: its index
    there), or extracted ahead by a worker (`where` < 0: `-1 - n`, `ahead[n]`), what `encode`
    made of it in `done` at `ahead_at[n]`; a record whose part could not be extracted ahead
    has `ahead[n]` None. `parts` tells where those records can be read again."""

    raw: Spool
    done: Spool
    definitions: Definitions
    held: Spool
    """Records as the stages left them, for a list stage to finish again (`_Listed`)."""
    handoff: str
    """Where workers write what they make of a part (`spool.write_items`)."""
    where: list[int] = field(default_factory=list)
    ahead: list[Prepared | None] = field(default_factory=list)
    ahead_at: list[int] = field(default_factory=list)
    held_at: dict[int, int] = field(default_factory=dict)
    """Where in `held` a record extracted ahead is, by its position in `where`."""
    parts: list[_Ahead | _BibAhead | _CslAhead] = field(default_factory=list)
    as_read: dict[int, int] = field(default_factory=dict)
    """Where in `raw` a record extracted ahead is kept as read too, by its position in
    `where` (a `.bib`'s: `_Made.kept`)."""

    def keep(self, record: Record) -> list[str]:
        """Keep a record read here; its identities."""
        self.where.append(len(self.raw))
        self.raw.add(record)
        self.definitions.add(record.latex)
        return merge.identities(record)

    def keep_instead(self, position: int, record: Record) -> list[str]:
        """Keep as read a record whose part was extracted ahead (a crossref child, resolved
        here); its identities. Its `@string`s came with the part's."""
        self.where[position] = len(self.raw)
        self.raw.add(record)
        return merge.identities(record)

    def keep_ahead(
        self,
        part: _Ahead | _BibAhead | _CslAhead,
        made: _Made,
        data: Items,
        done: list[Prepared] | None,
        held: list[bytes],
        stored: _Stored | None = None,
    ) -> None:
        """Keep what a worker made of the records of a part it read: `made` its `_Made`, `data`
        what `encode` made of each, `done` each `Prepared` but its `data` (None: it could not
        make them), `held` each `Prepared.held`; `stored`: where `store` put `data` and
        `made.kept` already (`data` is then `NO_ITEMS`)."""
        if stored is None:
            stored = self.store(made, data)
        strings, preambles = made.latex
        self.definitions.add(LatexSource((), tuple(StringDef(*s) for s in strings), preambles))
        read = len(self.where)
        if stored.kept:
            kept = range(stored.raw, stored.raw + part.total)
            self.as_read.update(zip(range(read, read + part.total), kept, strict=True))
        self.parts.append(part)
        first = len(self.ahead)
        self.where.extend(range(-1 - first, -1 - first - part.total, -1))
        if done is None:
            self.ahead.extend(itertools.repeat(None, part.total))
            self.ahead_at.extend(itertools.repeat(-1, part.total))
            return
        self.ahead.extend(done)
        self.ahead_at.extend(range(stored.done, stored.done + part.total))
        for offset, record in enumerate(held):
            if record:
                self.held_at[read + offset] = len(self.held)
                self.held.add_bytes(record)

    def store(self, made: _Made, data: Items) -> _Stored:
        """Take into the spools what a worker made of a part (its entries, and its records
        as kept, `_Made.kept`), before the part is kept (`keep_ahead`): where they are."""
        stored = _Stored(len(self.raw), len(self.done), bool(made.kept.sizes))
        self.raw.add_file(made.kept)
        self.done.add_file(data)
        return stored

    def keep_read(self, copies: Collection[int], expand: bool = False) -> None:
        """Read again, and keep as read, the records extracted ahead that are copies of a
        paper (they are merged first) or that could not be extracted ahead, and with
        `expand` (two inputs define an `@string` differently) every record of a `.bib`: a
        `.bib`'s are taken as the worker sent them back (`as_read`), every other part that
        holds one is parsed once more, here."""
        for part in self.parts:
            span = range(part.first, part.first + part.total)
            whole = expand and isinstance(part, _BibAhead)
            wanted = [
                i for i in span
                if self.where[i] < 0
                and (whole or i in copies or self.ahead[-1 - self.where[i]] is None)
            ]  # fmt: skip
            if not wanted:
                continue
            if isinstance(part, _BibAhead):
                for i in wanted:
                    self.where[i] = self.as_read[i]
                continue
            records = part.records()
            for i in wanted:
                self.where[i] = len(self.raw)
                self.raw.add(_stripped(records[i - part.first], None))


class _Stored(NamedTuple):
    """Where `_Reading.store` wrote a part's records as kept (in `raw`, when `kept`) and its
    entries (in `done`)."""

    raw: int
    done: int
    kept: bool


class _Ahead(NamedTuple):
    """A part of a paper list that a worker read and extracted ahead: its list, where it is
    (`Part` without its bytes, their length), the first record read from it and their total."""

    source: bytes | Path
    listing: paperlist.Listing
    part: paperlist.Part
    size: int
    first: int
    total: int

    def read(self) -> paperlist.Part:
        """The part with its bytes, read again."""
        if isinstance(self.source, bytes):
            data = self.source[self.part.offset : self.part.offset + self.size]
        else:
            with self.source.open("rb") as handle:
                handle.seek(self.part.offset)
                data = handle.read(self.size)
        return self.part._replace(data=data)

    def records(self) -> list[Record]:
        """The part's records, read again."""
        return list(paperlist.parse(self.read(), self.listing))


class _CslAhead(NamedTuple):
    """A part of a CSL-JSON file's items that a worker read and extracted ahead: the file
    parsed, the items of the part, the first record read from it and their total."""

    parsed: csljson.Items
    span: range
    first: int
    total: int

    def records(self) -> list[Record]:
        """The part's records, read again."""
        return list(csljson.records(self.parsed, self.span.start, self.span.stop))


class _BibAhead(NamedTuple):
    """A part of a `.bib` that a worker read and extracted ahead (`bibtex_parts.read_parts`
    with `then`): the first record read from it and their total. Its records came back as
    `_Reading.keep` keeps them too (`_Reading.as_read`), so none is read again."""

    first: int
    total: int


def _in_order(
    singles: Iterable[int], reading: _Reading, extracted: Iterator[Prepared]
) -> Iterator[tuple[int, Prepared, int]]:
    """Every unique paper's `Prepared`, in the order of one process (the records read once,
    in read order, then the merged papers), with the index in `done` of what was extracted
    ahead and its position in `reading.where` (-1 and -1 for the rest, which come from
    `extracted` in the same order)."""
    where, ahead, ahead_at = reading.where, reading.ahead, reading.ahead_at
    for i in singles:
        at = where[i]
        if at < 0:
            found = ahead[-1 - at]
            assert found is not None
            yield ahead_at[-1 - at], found, i
        else:
            item = next(extracted, None)
            if item is None:  # a stage dropped records: the caller counts them
                return
            yield -1, item, -1
    for item in extracted:
        yield -1, item, -1


@dataclass
class _Listed:
    """What the records of a run told its list stage (`ListStage.observe`): how many carry
    each counted value, how many carry any, and, by output position, the records some
    decision could change (their `loose` values, and where in `held` each is)."""

    counts: collections.Counter[str] = field(default_factory=collections.Counter)
    records: int = 0
    loose: dict[int, tuple[str, ...]] = field(default_factory=dict)
    held_at: dict[int, int] = field(default_factory=dict)

    def count(self, position: int, item: Prepared, reading: _Reading, read_at: int) -> None:
        """Count the record at output `position` (`read_at`: where it was read ahead)."""
        if item.counted:
            self.counts.update(item.counted)
            self.records += 1
        if item.loose:
            self.loose[position] = item.loose
            if item.held:
                self.held_at[position] = len(reading.held)
                reading.held.add_bytes(item.held)
            else:
                self.held_at[position] = reading.held_at[read_at]

    def finish(
        self,
        listing: ListStage,
        held: Spool,
        done: Spool,
        indices: list[int],
        workers: Workers,
        encode: Encoder,
    ) -> None:
        """Decide for the whole run; the records whose finish that changes are finished
        and encoded again (in the workers, past `PARALLEL_AFTER` of them), and `indices`
        point at them."""
        decided = listing.decide(self.counts, self.records)
        changed = decided ^ listing.prior
        again = [k for k, loose in self.loose.items() if not changed.isdisjoint(loose)]
        if not again:
            return
        finish = listing.finish
        records = (held.get_bytes(self.held_at[k]) for k in again)
        encoded = workers.run(
            lambda batch: [encode(finish(record_of(data), decided)) for data in batch],
            records,
            BYTES,
        )
        for position, data in zip(again, encoded, strict=True):
            indices[position] = len(done)
            done.add_bytes(data)


def _read_into(
    reading: _Reading,
    paths: Sequence[Path],
    options: ConvertOptions,
    stdin: BinaryIO | None,
    stats: Stats,
    encode: Encoder,
) -> Iterator[list[str]]:
    """The identities of every record read, each record kept (`reading`) until its paper's
    copies are known (`merge.groups` needs every identity); `definitions` gets the
    `@preamble`s and `@string`s of `.bib` inputs. A long paper list is read and extracted
    ahead in worker processes when `jobs` says so (`_read_list`, `_read_bib`, `_read_csl`)."""
    warn = _warnings(options)
    for path in paths:
        stats.files += 1
        stats.inputs.append(str(path))
        opened = readers.open_input(path, fmt=options.source_format, stdin=stdin)
        if opened.fmt == "paperlist" and _ahead(options):
            for identities in _read_list(opened, options, warn, reading, encode):
                stats.read += 1
                yield identities
            continue
        if opened.fmt == "csl-json" and _ahead(options):
            for identities in _read_csl(opened, options, warn, reading, encode):
                stats.read += 1
                yield identities
            continue
        bib = _bib_parts(opened, options)
        if bib is not None:
            assert isinstance(opened.source, bytes)
            for identities in _read_bib(bib, opened.source, options, warn, reading, encode):
                stats.read += 1
                yield identities
            continue
        records = readers.read_input(
            opened,
            venue=options.venue,
            year=options.year,
            report=warn,
            venue_title=options.venue_title,
            jobs=options.jobs,
        )
        for record in records:
            stats.read += 1
            yield reading.keep(_stripped(record, warn))


def _ahead(options: ConvertOptions) -> bool:
    """Whether paper lists are read and extracted ahead, in workers: with `jobs` > 1 and no
    lookups (they must come after the stages, in this process)."""
    return options.jobs > 1 and not options.lookups and parallel.can_fork()


LIST_PART = 4 * parallel.BATCH
"""Paragraphs of a paper list a worker reads and extracts at once (`paperlist.split`)."""


def _read_list(
    opened: readers.Input,
    options: ConvertOptions,
    warn: Report | None,
    reading: _Reading,
    encode: Encoder,
) -> Iterator[list[str]]:
    """The identities of a paper list's records, in order, each record kept in `reading`.

    The list is cut into parts here (`paperlist.split`, a scan of its bytes); when it has
    `PARALLEL_AFTER` paragraphs or more, each part is read, and its records extracted and
    encoded ahead, in a worker process, before anyone knows which records are copies of one
    paper: those few are read again and merged first (`_Reading.keep_read`). Warnings are
    told here, in order; under `strict` the first is the error it is in one process. A part
    whose stages fail is read again too, so that the error comes where it comes in one
    process."""
    source = opened.source
    listed, parts = paperlist.split(
        source,
        opened.name,
        venue=options.venue,
        year=options.year,
        venue_title=options.venue_title,
        report=warn,
        size=LIST_PART,
    )
    enough = -(-PARALLEL_AFTER // LIST_PART)  # parts of a list worth the workers
    head = list(itertools.islice(parts, enough))
    if len(head) < enough:
        for part in head:
            for record in paperlist.parse(part, listed):
                yield reading.keep(_stripped(record, warn))
        return
    work = _work_ahead(options, encode, reading.handoff, strict=options.strict)

    sent: collections.deque[tuple[paperlist.Part, int]] = collections.deque()

    def sending(parts: Iterable[paperlist.Part]) -> Iterator[paperlist.Part]:
        for part in parts:
            sent.append((part._replace(data=b""), len(part.data)))
            yield part

    def arrived() -> Iterator[tuple[list[str], list[str]]]:
        results = parallel.ordered_map(
            lambda part: work(lambda _: paperlist.parse(part, listed)),
            sending(itertools.chain(head, parts)),
            options.jobs,
        )
        for blob in results:
            made, data, done, held = _Made.of_blob(blob)
            part, size = sent.popleft()
            first = len(reading.where)
            ahead = _Ahead(source, listed, part, size, first, len(made.read))
            reading.keep_ahead(ahead, made, data, done, held)
            yield from made.read

    records = arrived()
    for identities, told in options.progress(records) if options.progress else records:
        if warn is not None:
            for message in told:
                warn(message)
        yield identities


class _Made(NamedTuple):
    """What a worker tells of the records of a part it read and extracted ahead, besides
    their `Prepared`: each one's identities and warnings, and the `@string`s (name, raw)
    and `@preamble`s they carry, in order of first use (`Definitions.add` gives the same
    from them as from the records); with `as_read`, also each record as `_Reading.keep`
    keeps it (`kept`, in a file for `Spool.add_file`), those whose bidi controls were
    stripped as read before that (`unstripped`, by place in the part), each one's key, and
    the places of the crossref children."""

    read: list[tuple[list[str], list[str]]]
    latex: tuple[list[tuple[str, str]], tuple[str, ...]]
    kept: Items
    unstripped: dict[int, bytes]
    keys: list[str]
    children: list[int]

    @staticmethod
    def of_blob(blob: bytes) -> tuple[_Made, Items, list[Prepared] | None, list[bytes]]:
        """`_work_ahead`'s blob: the `_Made`, and each record's encoding (in a file),
        `Prepared` without its `data` (None: the stages failed) and `Prepared.held`;
        unpacked as each part arrives, while the workers read on."""
        read, latex, kept, unstripped, keys, children, data, done, held = marshal.loads(blob)
        made = _Made(read, latex, Items(*kept), unstripped, keys, children)
        if done is None:
            return made, Items(*data), None, held
        return made, Items(*data), [Prepared.of_plain(plain, b"") for plain in done], held


Read = Callable[[Report], Iterable[Record]]
"""How a worker reads the records of a part: what the reader warns of a record goes to the
report given, before the record comes."""


def _work_ahead(
    options: ConvertOptions,
    encode: Encoder,
    handoff: str,
    *,
    strict: bool,
    as_read: bool = False,
) -> Callable[[Read], bytes]:
    """What a worker does with the records of a part it read: the reader's warnings and the
    bidi controls stripped told back with each (or under `strict` a removal is the error),
    identities, the stages and `encode`, all in one marshal blob (`_Made.of_blob`) but what
    goes into the spools as it is (the encodings, the records as kept): that is written to
    files in `handoff` (`spool.write_items`). When a stage fails, the records are sent back
    without their `Prepared` and read again here, so the error comes where it comes in one
    process. `as_read`: the records also come back as read, with their keys (`_Made`), so
    that copies of a paper and crossref children need no part read again here."""
    texts = bool(options.pinned)
    stages, listing = _list_stage(options.stages)

    def work(reading: Read) -> bytes:
        records: list[Record] = []
        read: list[tuple[list[str], list[str]]] = []
        strings: dict[tuple[str, str], None] = {}
        preambles: dict[str, None] = {}
        pending: list[str] = []
        kept: list[bytes] = []
        unstripped: dict[int, bytes] = {}
        keys: list[str] = []
        children: list[int] = []
        for record in reading(pending.append):
            told = pending.copy()
            pending.clear()
            read_as = record
            record = _stripped(record, strict_report if strict else told.append)
            if as_read:
                kept.append(record_bytes(record))
                if record is not read_as:
                    unstripped[len(records)] = record_bytes(read_as)
                keys.append(record.key)
                if crossref.is_child(read_as):
                    children.append(len(records))
            records.append(record)
            read.append((merge.identities(record), told))
            if record.latex is not None:
                strings.update(dict.fromkeys((s.name, s.raw) for s in record.latex.strings))
                preambles.update(dict.fromkeys(record.latex.preambles))
        latex = (list(strings), tuple(preambles))
        made = (read, latex, write_items(handoff, kept).plain(), unstripped, keys, children)
        try:
            prepared = list(_prepare(_extract(records, stages), encode, texts, listing))
        except BibError:
            return marshal.dumps((*made, NO_ITEMS.plain(), None, []))  # told when read again
        if len(prepared) != len(records):
            raise RuntimeError("an extraction stage did not yield one record for each")
        data = write_items(handoff, [item.data for item in prepared]).plain()
        done = [item.plain() for item in prepared]
        return marshal.dumps((*made, data, done, [item.held for item in prepared]))

    return work


def _bib_parts(opened: readers.Input, options: ConvertOptions) -> bibtex_parts.File | None:
    """A `.bib` cut into parts that workers read and extract ahead (`_read_bib`): with
    `jobs` > 1, no lookups, and `bibtex_parts.AFTER` characters or more."""
    source = opened.source
    if opened.fmt != "bibtex" or not _ahead(options) or not isinstance(source, bytes):
        return None
    return bibtex_parts.split(source, opened.name, options.jobs)


def _read_bib(
    file: bibtex_parts.File,
    source: bytes,
    options: ConvertOptions,
    warn: Report | None,
    reading: _Reading,
    encode: Encoder,
) -> Iterator[list[str]]:
    """The identities of a `.bib`'s records, in order, each record kept in `reading`.

    Each part is read, and its records extracted and encoded, in a worker, in the same
    task (`bibtex_parts.read_parts` with `then`); a part read again here (a check failed)
    or whose stages failed is kept as read, and so are copies of a paper (read again,
    `_Reading.keep_read`). In a file with crossrefs, a child is resolved here against its
    parents (`_Parents`) and kept as read. The parse warnings come first, then each
    record's, as in one process; when the first pass was wrong, the file is read whole
    here."""
    name = file.path
    linked = crossref.mentions(source)
    # the parse warnings come first: a record's are told here, in order
    work = _work_ahead(options, encode, reading.handoff, strict=False, as_read=True)
    stored: dict[int, tuple[_Made, _Stored, list[Prepared] | None, list[bytes]]] = {}

    def take(found: bibtex_parts.Read) -> None:
        """Into the spools while the workers read on: the blob is not held to the end."""
        assert found.ahead is not None
        made, data, plain, held = _Made.of_blob(found.ahead)
        at = reading.store(made, data)
        stored[found.index] = (made, at, plain, held)
        found.ahead = b""

    done = bibtex_parts.read_parts(
        file, options.jobs, lambda records: work(lambda _: records), take
    )
    if done is None:
        records = bibtex.read(source, name, report=warn)
        for record in crossref.resolve(records, warn) if linked else records:
            yield reading.keep(_stripped(record, warn))
        return
    bibtex_parts.tell(done, name, warn, False)
    parents = _Parents.of(done, stored, reading.raw) if linked else None

    def arrived() -> Iterator[Arrived]:
        position = 0
        for index, found in enumerate(done):
            if found.ahead is None:
                for record in (
                    parents.read(index, found.total)
                    if parents
                    else bibtex_parts.records(found, position == 0)
                ):
                    yield crossref.resolved(record, parents.find, warn) if parents else record
                position += found.total
                continue
            made, at, plain, held = stored.pop(found.index)
            first = len(reading.where)
            reading.keep_ahead(_BibAhead(first, found.total), made, NO_ITEMS, plain, held, at)
            for offset, told in enumerate(made.read):
                if parents is not None and parents.child(position):
                    child = parents.at(position)
                    yield _Resolved(first + offset, crossref.resolved(child, parents.find, warn))
                else:
                    yield told
                position += 1

    yield from _kept(arrived(), options, warn, reading)


class _Resolved(NamedTuple):
    """A child read ahead in a worker, resolved here against its parents: kept as read at
    `position` instead (`_Reading.keep_instead`)."""

    position: int
    record: Record


Arrived = tuple[list[str], list[str]] | Record | _Resolved
"""A record as `_kept` gets it: read ahead (its identities and what to tell of it), or read
here (a Record, or a `_Resolved` child)."""


@dataclass
class _Parents:
    """The records of a `.bib` read in parts that `crossref.resolved` asks for, found by key
    as `crossref.resolve` finds them in the whole file: the last record of a key, else the
    last of it in any case, as read (workers send each back: `_Made.kept`, `unstripped`).
    The same position gives the same Record (`resolved` tells a record by identity)."""

    kept: list[tuple[dict[int, bytes], int] | None]
    """Each part's records as read: those whose bidi controls were stripped, by place in the
    part (`_Made.unstripped`), and where in `raw` the part's records as kept begin; None for
    a part read here (its records are `known`)."""
    raw: Spool
    starts: list[int]
    """Each part's first record's position in the file."""
    by_key: dict[str, int]
    by_folded: dict[str, int]
    children: frozenset[int]
    known: dict[int, Record] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        done: list[bibtex_parts.Read],
        stored: Mapping[int, tuple[_Made, _Stored, list[Prepared] | None, list[bytes]]],
        raw: Spool,
    ) -> _Parents:
        kept: list[tuple[dict[int, bytes], int] | None] = []
        starts: list[int] = []
        keys: list[str] = []
        children: set[int] = set()
        known: dict[int, Record] = {}
        for found in done:
            start = len(keys)
            starts.append(start)
            if found.ahead is None:
                kept.append(None)
                for offset, record in enumerate(bibtex_parts.records(found, start == 0)):
                    known[start + offset] = record
                    keys.append(record.key)
                    if crossref.is_child(record):
                        children.add(start + offset)
                continue
            part, at = stored[found.index][:2]
            kept.append((part.unstripped, at.raw))
            keys.extend(part.keys)
            children.update(start + offset for offset in part.children)
        by_key = {key: i for i, key in enumerate(keys)}
        by_folded = {key.casefold(): i for i, key in enumerate(keys)}
        return cls(kept, raw, starts, by_key, by_folded, frozenset(children), known)

    def child(self, position: int) -> bool:
        return position in self.children

    def read(self, index: int, total: int) -> list[Record]:
        """The `total` records of part `index` (read here, not ahead)."""
        start = self.starts[index]
        return [self.known[start + offset] for offset in range(total)]

    def at(self, position: int) -> Record:
        """The record at `position` in the file, as read."""
        found = self.known.get(position)
        if found is None:
            index = bisect.bisect_right(self.starts, position) - 1
            kept = self.kept[index]
            assert kept is not None, "a part read here has its records known"
            unstripped, first = kept
            offset = position - self.starts[index]
            data = unstripped.get(offset) or self.raw.get_bytes(first + offset)
            found = self.known[position] = record_of(data)
        return found

    def find(self, key: str) -> Record | None:
        """`crossref.Find`: the record `key` names."""
        position = self.by_key.get(key)
        if position is None:
            position = self.by_folded.get(key.casefold())
        return None if position is None else self.at(position)


def _read_csl(
    opened: readers.Input,
    options: ConvertOptions,
    warn: Report | None,
    reading: _Reading,
    encode: Encoder,
) -> Iterator[list[str]]:
    """The identities of a CSL-JSON file's records, in order, each record kept in `reading`.

    The JSON is parsed here (`csljson.parse`: a syntax error anywhere comes first); with
    `PARALLEL_AFTER` items or more, each part of `LIST_PART` items is checked against the
    schema, read into records, extracted and encoded in a worker (forked after the parse,
    it has the items), in the same task. A part with an invalid item is read again here,
    in order, so that the error and the warnings before it are those of one process."""
    source = opened.source
    assert isinstance(source, bytes)
    parsed = csljson.parse(source, opened.name)
    total = len(parsed.items)
    if total < PARALLEL_AFTER:
        for record in csljson.records(parsed, report=warn):
            yield reading.keep(_stripped(record, warn))
        return
    work = _work_ahead(options, encode, reading.handoff, strict=False)  # a warning may come first

    def read(span: range) -> bytes:
        try:
            return work(lambda report: csljson.records(parsed, span.start, span.stop, report))
        except BibError:
            return b""  # read again here, where the error comes in order

    spans = [range(a, min(a + LIST_PART, total)) for a in range(0, total, LIST_PART)]

    def arrived() -> Iterator[tuple[list[str], list[str]] | Record]:
        for span, blob in zip(spans, parallel.ordered_map(read, spans, options.jobs), strict=True):
            if not blob:
                yield from csljson.records(parsed, span.start, span.stop, warn)
                continue
            made, data, done, held = _Made.of_blob(blob)
            reading.keep_ahead(
                _CslAhead(parsed, span, len(reading.where), len(span)), made, data, done, held
            )
            yield from made.read

    yield from _kept(arrived(), options, warn, reading)


def _kept(
    items: Iterator[Arrived],
    options: ConvertOptions,
    warn: Report | None,
    reading: _Reading,
) -> Iterator[list[str]]:
    """The identities of records read ahead (each with what to tell of it) or read here
    (a Record, or a `_Resolved` child, kept and told here), in order. `progress` sees
    those read ahead (`_counted`)."""
    for item in _counted(items, options.progress):
        if isinstance(item, Record):
            yield reading.keep(_stripped(item, warn))
            continue
        if isinstance(item, _Resolved):
            yield reading.keep_instead(item.position, _stripped(item.record, warn))
            continue
        identities, told = item
        if warn is not None:
            for message in told:
                warn(message)
        yield identities


def _counted(items: Iterator[Arrived], progress: Progress | None) -> Iterator[Arrived]:
    """`items` in order, those read ahead shown to `progress` as they pass. A record read
    here is kept as read and goes into the stages after the merge, where `progress` sees
    it (`Workers`): shown here too, it was counted twice."""
    if progress is None:
        yield from items
        return
    here: collections.deque[Record | _Resolved] = collections.deque()

    def ahead() -> Iterator[Arrived]:
        for item in items:
            if isinstance(item, (Record, _Resolved)):
                here.append(item)
            else:
                yield item

    for item in progress(ahead()):
        while here:
            yield here.popleft()
        yield item
    yield from here


def _prepared(
    records: Iterable[bytes], options: ConvertOptions, encode: Encoder, ahead: bool = False
) -> Iterator[Prepared]:
    """Each unique paper (as `record_bytes`) through the stages, then the lookups, then
    encoded: the stages and the encoding in worker processes when `jobs` says so (`ahead`:
    after inputs read ahead in workers, from `AFTER_AHEAD` records on), the lookups always
    here."""
    workers = Workers(options.jobs, options.progress, AFTER_AHEAD if ahead else None)
    (stages, listing), lookups = _list_stage(options.stages), options.lookups
    texts = bool(options.pinned)
    if not lookups:
        return workers.run(
            lambda batch: _prepare(_extract(map(record_of, batch), stages), encode, texts, listing),
            records,
            PREPARED,
        )
    extracted = workers.run(lambda batch: _extract(map(record_of, batch), stages), records, RECORDS)
    return _prepare(_extract(extracted, lookups), encode, texts, listing)


def _prepare(
    records: Iterable[Record], encode: Encoder, texts: bool, listing: ListStage | None = None
) -> Iterator[Prepared]:
    """`texts`: with each record its `stable_keys.text_id` (when existing keys are pinned).
    `listing`: each record finished with its `prior` before it is encoded, and kept as the
    stages left it when the run's decision could change it (`ListStage`)."""
    observed = _UNLISTED
    for record in records:
        held = b""
        if listing is not None:
            observed = listing.observe(record)
            if observed.loose:
                held = record_bytes(record)
            record = listing.finish(record, listing.prior)
        yield Prepared(
            record.id,
            keys.base_key(record, verbatim=True),
            record.title_derived,
            merge.lookalike(record),
            encode(record),
            OwnKey(record.key, _place(record)) if record.key else None,
            crossref.parent_key(record),
            stable_keys.text_id(record) if texts else "",
            observed.topics,
            observed.loose,
            held,
        )


_UNLISTED = Observed((), ())


class Prepared(NamedTuple):
    """What the spool needs of an extracted record: its id, the key it would have alone,
    whether its title is derived, what a possible duplicate would be told by, what
    `encode` made of it, the key of its own it had in its input (if any), the key of its
    crossref parent, and its `stable_keys.text_id` when existing keys are pinned."""

    id: str
    base_key: str
    title_derived: bool
    lookalike: merge.Lookalike
    data: bytes
    own: OwnKey | None = None
    parent: str = ""
    text_id: str = ""
    counted: tuple[str, ...] = ()
    loose: tuple[str, ...] = ()
    held: bytes = b""
    """`ListStage.observe`'s `topics` and `loose`, and the record as the stages left it
    when `loose` is not empty (`record_bytes`)."""

    def plain(self) -> Plain:
        """All but `data` and `held`, as plain tuples and strings, which `marshal` writes
        (`PREPARED`)."""
        own = tuple(self.own) if self.own is not None else None
        lookalike = tuple(self.lookalike)
        return (self.id, self.base_key, self.title_derived, lookalike, own, self.parent,
                self.text_id, self.counted, self.loose)  # fmt: skip

    @classmethod
    def of_plain(cls, plain: Plain, data: bytes, held: bytes = b"") -> Prepared:
        """The `Prepared` that `plain` gave, with `data` and `held`."""
        record_id, base_key, derived, lookalike, own, parent, text_id, counted, loose = plain
        return cls(record_id, base_key, derived, merge.Lookalike(*lookalike), data,
                   OwnKey(*own) if own is not None else None, parent, text_id, counted, loose,
                   held)  # fmt: skip


Plain = tuple[
    str, str, bool, tuple[str, ...], tuple[str, ...] | None, str, str, tuple[str, ...],
    tuple[str, ...],
]  # fmt: skip
"""A `Prepared` but its `data` and `held` as `marshal` writes it."""


class Codec(NamedTuple, Generic[Done]):
    """How a worker's results for one batch travel back: `pack` makes bytes of them, `unpack`
    gives them back. Pickling namedtuples rebuilds each through its Python `__new__` (27 µs
    a record for `Prepared`, in the parent); one `marshal` blob of plain tuples a batch
    costs 3 µs to read."""

    pack: Callable[[Iterable[Done]], bytes]
    unpack: Callable[[bytes], Iterable[Done]]


PREPARED: Codec[Prepared] = Codec(
    lambda done: marshal.dumps([(item.plain(), item.data, item.held) for item in done]),
    lambda data: itertools.starmap(Prepared.of_plain, marshal.loads(data)),
)
RECORDS: Codec[Record] = Codec(
    lambda done: marshal.dumps(list(map(record_bytes, done))),
    lambda data: map(record_of, marshal.loads(data)),
)
BYTES: Codec[bytes] = Codec(lambda done: marshal.dumps(list(done)), marshal.loads)


PARALLEL_AFTER = 2_000
"""Records read before worker processes pay: below this, starting them (forking, each
worker's first batch cold) costs more than it saves (benchmarks/convert.py --jobs)."""

AFTER_AHEAD = 4 * parallel.BATCH
"""Records left to extract after the merge of inputs read ahead in workers (a `.bib`'s
crossref children and the merged copies of a paper: 964 of 20,000 TeX Live entries) from
which they go to workers too: the run's extraction was parallel already, so this was its
last serial part, and a pool starts in about 30-70 ms, when 256 records take about 80 ms
to extract here (docs/convert.md, `--jobs`, 2026-12-06)."""

PARALLEL_BATCH = 4 * parallel.BATCH
"""Records sent to a worker at once: large enough that pickling and the pipes cost little
beside the work, small enough to keep every worker busy to the end."""


@dataclass(frozen=True, slots=True)
class Workers:
    """How the per-record work runs: here (`jobs` 1, or a small input) or in worker processes,
    from `after` records on (None: `PARALLEL_AFTER`)."""

    jobs: int = 1
    progress: Progress | None = None
    after: int | None = None

    def run(
        self,
        work: Callable[[Iterable[bytes]], Iterable[Done]],
        records: Iterable[bytes],
        codec: Codec[Done],
    ) -> Iterator[Done]:
        """`work` over the records (`record_bytes`), in order, here or batch by batch in
        worker processes, whose results come back through `codec`."""
        if self.progress is not None:
            records = self.progress(records)
        records = iter(records)
        if self.jobs < 2:
            return iter(work(records))
        after = PARALLEL_AFTER if self.after is None else self.after
        head = list(itertools.islice(records, after))
        if len(head) < after:
            return iter(work(head))

        def batch_work(batch: list[bytes]) -> bytes:
            return codec.pack(work(batch))

        batches = parallel.batches(itertools.chain(head, records), PARALLEL_BATCH)
        results = parallel.ordered_map(batch_work, batches, self.jobs)
        return itertools.chain.from_iterable(map(codec.unpack, results))


def _extract(records: Iterable[Record], extractors: Sequence[Stage]) -> Iterable[Record]:
    records = _batched(records)
    for stage in extractors:
        records = _batched(stage(records))
    return records


def _batched(records: Iterable[Record]) -> Iterator[Record]:
    """The records, taken `parallel.BATCH` at a time: each stage then runs over a batch in
    turn, which makes a conversion a tenth faster than one record through every stage at a
    time (the code and data of one stage stay in the processor's caches)."""
    for batch in parallel.batches(records):
        yield from batch


class Sink(Protocol):
    """Where one output goes: `fmt` names its writer; `open` gives the text file its entries
    are streamed into, `commit` makes them the output once every output was written,
    `discard` drops them (a failure anywhere leaves no output created or changed)."""

    fmt: str

    def open(self) -> IO[str]: ...

    def commit(self) -> None: ...

    def discard(self) -> None: ...


class FileSink:
    """An output file, staged beside its target and renamed over it (`bib.atomic.Staged`:
    a link is followed, a device or FIFO written through)."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.path = path
        self.fmt = fmt
        self._staged: Staged | None = None

    def open(self) -> IO[str]:
        self._staged = Staged(self.path, text=True)
        return self._staged.file

    def commit(self) -> None:
        if self._staged is not None:
            self._staged.commit()

    def discard(self) -> None:
        if self._staged is not None:
            self._staged.discard()


class TextSink:
    """An output handed to `emit` piece by piece (standard output), only once every output
    was written; it ends with a line end, so a shell prompt starts on a line of its own."""

    def __init__(self, fmt: str, emit: Callable[[str], None]) -> None:
        self.fmt = fmt
        self._emit = emit
        self._file: IO[str] | None = None

    def open(self) -> IO[str]:
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8", newline="")  # noqa: SIM115 (closed by commit or discard)
        return self._file

    def commit(self) -> None:
        if self._file is None:
            return
        self._file.seek(0)
        last = ""
        while chunk := self._file.read(1 << 20):
            self._emit(chunk)
            last = chunk[-1]
        if last != "\n":
            self._emit("\n")
        self.discard()

    def discard(self) -> None:
        if self._file is not None:
            self._file.close()


def convert(inputs: Sequence[str | Path], sinks: Sequence[Sink], options: ConvertOptions) -> Stats:
    """Convert `inputs` into every sink: keys kept from the outputs that exist and from
    `keys_from`, each record rendered once per format while it is read (`encoder`), every
    output written in key order, then all published together."""
    report = options.report or (lambda _: None)
    existing = [sink.path for sink in sinks if isinstance(sink, FileSink)]
    pinned = stable_keys.pinned_from(existing, options.keys_from, report)
    if options.pinned:
        pinned.update(options.pinned)
    formats = list(dict.fromkeys(sink.fmt for sink in sinks))
    with batch_collection():
        encode = encoder(formats, options.output)
        with spool(inputs, replace(options, pinned=pinned), encode) as spooled:
            write(spooled, formats, sinks, _warnings(options))
    return spooled.stats


@contextlib.contextmanager
def batch_collection() -> Iterator[None]:
    """Rarer and cheaper cyclic garbage collection while converting.

    Records are trees of tuples and strings, without cycles, yet a conversion allocates
    enough to trigger a collection every few records, and each full one walks every
    long-lived object (the compiled vocabulary, every id and key): about 20 µs a record at
    10,000 records. Freezing what exists before the run keeps it out of every collection,
    and a larger first generation makes collections rarer; both are undone afterwards."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(BATCH_GC_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def encoder(formats: Sequence[str], output: WriteOptions) -> Encoder:
    """What the spool keeps of a record: its entry in each of `formats`, cut where its key
    goes (`writers.template`), so that writing needs only the keys (they need every record).
    The run's writers share one `writers.RunMemo` (in each worker process, its own)."""
    memo = writers.RunMemo()

    def encode(record: Record) -> bytes:
        return marshal.dumps(writers.templates(record, formats, output, memo))

    return encode


class Output(NamedTuple):
    """One sink being written: its file, and the keys as written there (`_output_keys`)."""

    sink: Sink
    handle: IO[str]
    keys: list[str]


class Pass(NamedTuple):
    """Outputs whose entries come in the same record order: one reading of the spool."""

    order: list[int]
    outputs: list[Output]


def write(
    spooled: Spooled,
    formats: Sequence[str],
    sinks: Sequence[Sink],
    report: Report | None = None,
) -> None:
    """Stream every output into its sink, in key order, from the entries spooled in
    `formats` (`encoder`); commit them all only when every output was written, else discard
    them, so a failure leaves no output created or changed.

    Outputs in the same record order share one reading of the spool (BibTeX and CSL-JSON
    orders differ only when two keys differ in case alone). A key an output's format refuses
    (`x y` in BibTeX) is changed in that output only, and told to `report`."""
    check_keys(spooled.keys)
    with contextlib.ExitStack() as cleanup:
        passes: list[Pass] = []
        for sink in sinks:
            cleanup.callback(sink.discard)
            handle = sink.open()
            header = writers.writer(sink.fmt).header
            if header is not None and spooled.keys:
                handle.write(header(spooled.definitions))
            names = _output_keys(spooled.keys, sink, report)
            last = spooled.parent_positions() if writers.writer(sink.fmt).parents_last else ()
            order = _order(names, writers.order_key(sink.fmt), last)
            same = next((p for p in passes if p.order == order), None)
            if same is None:
                passes.append(Pass(order, [Output(sink, handle, names)]))
            else:
                same.outputs.append(Output(sink, handle, names))
        for one in passes:
            items = map(marshal.loads, spooled.items(one.order))
            copies = itertools.tee(items, len(one.outputs))
            pieces = [
                _entries(
                    zip(map(out.keys.__getitem__, one.order), copy, strict=True),
                    out.sink.fmt,
                    formats.index(out.sink.fmt),
                )
                for copy, out in zip(copies, one.outputs, strict=True)
            ]
            # Lockstep: each output yields once per record, so tee holds one record at most.
            for step in zip(*pieces, strict=True):
                for piece, out in zip(step, one.outputs, strict=True):
                    out.handle.write(piece)
        for sink in sinks:
            sink.commit()
        cleanup.pop_all()


Templates = Iterable[tuple[str, list[list[str]]]]
"""(key, `writers.template` of each format) of records, in output order."""


def _entries(templates: Templates, fmt: str, slot: int) -> Iterator[str]:
    """The pieces of a whole `fmt` output from (key, templates) of its records in order, where
    `slot` is the position of its format's template."""
    return writers.layout(fmt).wrap(key.join(cut[slot]) for key, cut in templates)


def _output_keys(names: list[str], sink: Sink, report: Report | None) -> list[str]:
    """The keys as written in one output: those its format refuses changed there only
    (`keys.for_output`), each change reported."""
    changed = keys.for_output(names, writers.writer(sink.fmt).accepts_key)
    if report is not None:
        where = str(sink.path) if isinstance(sink, FileSink) else "stdout"
        for old, new in sorted(changed.items()):
            report(f"warning: key {old!r} -> {new!r} in {where}")
    return [changed.get(key, key) for key in names] if changed else names


def _order(
    names: list[str], sort_key: Callable[[str], str], last: Collection[int] = ()
) -> list[int]:
    """Positions of the records sorted by key, then by the format's `sort_key` (as
    `Spooled.order`, on an output's own keys), the positions in `last` (crossref parents,
    for the BibTeX writers) after all others."""
    by_key = sorted(range(len(names)), key=names.__getitem__)
    return sorted(by_key, key=lambda i: (i in last, sort_key(names[i])))


def check_keys(names: Iterable[str]) -> None:
    """Refuse a key given twice (a writer would; a key a format refuses is changed in that
    output, `_output_keys`)."""
    seen: set[str] = set()
    for key in names:
        if key in seen:
            raise BibError(f"citation key {key!r} is used by two records")
        seen.add(key)
