"""Candidates for records from the sources, bulk sources first, hosts side by side.

1. Bulk, for every record at once: each venue's listing (OpenReview: fetched once per venue,
   matched locally), then the papers of the ids records already have (Semantic Scholar's
   batch endpoint, 500 ids a request).
2. Per paper, only for the records still unresolved: the searching sources in registry
   order; a source that searches many records in one request (arXiv) starts once every
   record that can reach it has, and takes them in input order, so its requests are the
   same on every run (and a re-run after an interruption finds them in the cache).
3. For a paper matched without a final venue: the enrichers in turn (`enrich.py`).

Each source has its own lane (one thread): a host is asked one request at a time at its own
pace (the HTTP layer's per-host limit), while the other hosts' lanes work on other records.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from bib.record import Record
from bib.resolve import enrich
from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Malformed, Offline, SourceFault
from bib.resolve.score import Decision, Evidence, Scored, Verdict, decide
from bib.resolve.sources import BatchFetch, BatchSearch, KnownIds, Role, Source, role
from bib.resolve.text import distinctive, words

T = TypeVar("T")
VENUE_POOL = 5
"""How many of a venue's best-scoring papers are kept as candidates beside the searches'."""
SHORTLIST = 25
SHORTLIST_WORDS = 12


@dataclass(frozen=True)
class Listing:
    """A venue's accepted papers, with an index of their words for `shortlist`."""

    candidates: list[Candidate]
    index: dict[str, list[int]]

    @classmethod
    def of(cls, candidates: list[Candidate]) -> Listing:
        index: dict[str, list[int]] = {}
        for number, candidate in enumerate(candidates):
            for word in set(words(f"{candidate.title} {candidate.abstract}")):
                index.setdefault(word, []).append(number)
        return cls(candidates, index)

    def shortlist(self, record: Record) -> list[Candidate]:
        """The `SHORTLIST` listed papers sharing most of the record's distinctive words.

        A speed trick: scoring every record against every paper of a 3,000-paper listing is
        quadratic. The paper itself shares nearly all those words (a rewording keeps most long
        words), another paper few; `tests/resolve/test_shortlist.py` holds the decision on the
        shortlist to the decision on the whole listing."""
        counts: Counter[int] = Counter()
        for word in distinctive(record.abstract or record.title, SHORTLIST_WORDS):
            counts.update(self.index.get(word, ()))
        ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:SHORTLIST]
        return [self.candidates[number] for number, _ in ranked]


def evidence(record: Record) -> Evidence:
    return Evidence(
        abstract=record.abstract,
        title="" if record.title_derived else record.title,
        year=record.year,
        authors=tuple(a.display for a in record.authors),
    )


def query(record: Record) -> Query:
    return Query(
        abstract=record.abstract,
        title="" if record.title_derived else record.title,
        year=record.year,
        venue=record.venue,
    )


@dataclass
class Work:
    """One unique record on its way through the sources; `index` is its input position."""

    index: int
    record: Record
    basis: Evidence
    found: list[Candidate] = field(default_factory=list)
    decision: Decision = field(default_factory=lambda: Decision(Verdict.UNRESOLVED, None, ()))

    def add(self, candidates: Iterable[Candidate]) -> None:
        self.found.extend(candidates)
        self.decision = decide(self.basis, self.found)

    @property
    def resolved(self) -> bool:
        return self.decision.verdict is Verdict.RESOLVED


def enriched(decision: Decision, candidate: Candidate) -> Decision:
    best = decision.best
    assert best is not None
    return Decision(decision.verdict, Scored(candidate, best.score), decision.candidates)


@dataclass
class Run:
    """The lanes of one `resolve_all` call and what is left to do."""

    searchers: list[Source]
    enrichers: list[Source]
    warn: Callable[[str], None]
    progress: Callable[[int], None] | None
    remaining: int
    lanes: dict[str, ThreadPoolExecutor] = field(default_factory=dict)
    waiting: dict[int, list[Work]] = field(default_factory=dict)
    due: dict[int, int] = field(default_factory=dict)
    failure: BaseException | None = None
    finished: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: int = 0

    def lane(self, source: Source) -> ThreadPoolExecutor:
        with self.lock:
            if source.name not in self.lanes:
                self.lanes[source.name] = ThreadPoolExecutor(1, thread_name_prefix=source.name)
            return self.lanes[source.name]

    def submit(self, source: Source, task: Callable[[], None]) -> None:
        def guarded() -> None:
            if self.failure is not None:
                return
            try:
                task()
            except BaseException as exc:  # re-raised in the caller's thread by wait()
                with self.lock:
                    self.failure = self.failure or exc
                self.finished.set()

        self.lane(source).submit(guarded)

    def search_step(self, work: Work, position: int) -> None:
        """Work at searcher `position` (or past the searchers: to the enrichers)."""
        if position >= len(self.searchers) or work.resolved:
            for skipped in range(position, len(self.searchers)):
                self.arrive(skipped, None)
            self.enrich_step(work, 0)
            return
        source = self.searchers[position]
        if isinstance(source, BatchSearch):
            self.arrive(position, work)
            return

        def task() -> None:
            work.add(self.searched(work.record, lambda: source.search(query(work.record)), []))
            self.search_step(work, position + 1)

        self.submit(source, task)

    def arrive(self, position: int, work: Work | None) -> None:
        """A record reaches batch searcher `position` (None: passes it by); the last one due
        starts the batch, in input order."""
        if not isinstance(self.searchers[position], BatchSearch):
            return
        with self.lock:
            if work is not None:
                self.waiting.setdefault(position, []).append(work)
            self.due[position] -= 1
            ready = self.due[position] == 0
        if ready:
            batch = sorted(self.waiting.pop(position, []), key=lambda w: w.index)
            if batch:
                self.batch_search(position, batch)

    def batch_search(self, position: int, batch: list[Work]) -> None:
        source = self.searchers[position]
        searcher = source if isinstance(source, BatchSearch) else None
        assert searcher is not None

        def task() -> None:
            queries = [query(w.record) for w in batch]
            empty: list[list[Candidate]] = [[] for _ in batch]
            answers = self.searched(batch[0].record, lambda: searcher.search_many(queries), empty)
            for work, found in zip(batch, answers, strict=True):
                work.add(found)
                self.search_step(work, position + 1)

        self.submit(source, task)

    def searched(self, record: Record, ask: Callable[[], T], empty: T) -> T:
        """The answer, or `empty` with a warning naming the source when it was malformed."""
        try:
            return ask()
        except Malformed as exc:
            self.warn(f"bib: warning: {exc}; {record.key or record.id} left unresolved by it")
            return empty

    def enrich_step(self, work: Work, position: int) -> None:
        best = work.decision.best
        wanted = (
            work.resolved
            and best is not None
            and best.candidate.enrichment is None
            and enrich.wants_enrichment(work.record.venue, best.candidate)
        )
        if not wanted or position >= len(self.enrichers):
            self.finish()
            return
        source = self.enrichers[position]

        def task() -> None:
            assert work.decision.best is not None
            matched = work.decision.best.candidate
            try:
                found = enrich.enrich(matched, source)
            except Malformed as exc:
                self.warn(f"bib: warning: {exc}; no venue or DOI from it")
                found = matched
            work.decision = enriched(work.decision, found)
            self.enrich_step(work, position + 1)

        self.submit(source, task)

    def finish(self) -> None:
        with self.lock:
            self.done += 1
            done = self.done
            last = done == self.remaining
        if self.progress is not None:
            self.progress(done)
        if last:
            self.finished.set()

    def wait(self) -> None:
        self.finished.wait()
        for lane in self.lanes.values():
            lane.shutdown(wait=True, cancel_futures=True)
        if self.failure is not None:
            raise self.failure


@dataclass
class Resolver:
    """One run's sources and the venue listings it has fetched (kept for the run only)."""

    sources: Sequence[Source]
    warn: Callable[[str], None]
    venues: dict[tuple[str, str, int], Listing] = field(default_factory=dict)

    def _venue(self, source: Source, record: Record) -> Listing | None:
        if not record.venue or not record.year:
            return None
        key = (source.name, record.venue, record.year)
        if key not in self.venues:
            try:
                self.venues[key] = Listing.of(source.venue(record.venue, record.year))
            except Malformed as exc:
                self.warn(f"bib: warning: {exc}; {record.venue} {record.year} not listed")
                self.venues[key] = Listing.of([])
        return self.venues[key]

    def _bulk(self, works: list[Work], matchers: list[Source]) -> None:
        """Venue listings, then the papers of known ids, for every record at once."""
        for source in matchers:
            for work in works:
                listing = self._venue(source, work.record)
                if listing is not None and listing.candidates:
                    pool = decide(work.basis, listing.shortlist(work.record)).candidates
                    work.add(s.candidate for s in pool[:VENUE_POOL])
        for source in matchers:
            if not isinstance(source, BatchFetch):
                continue
            known = [w for w in works if not w.resolved and (w.record.arxiv_id or w.record.doi)]
            if not known:
                continue
            try:
                papers = source.fetch_known(
                    [KnownIds(w.record.arxiv_id, w.record.doi) for w in known]
                )
            except Malformed as exc:
                self.warn(f"bib: warning: {exc}; known ids not fetched")
                continue
            for work, paper in zip(known, papers, strict=True):
                if paper is not None:
                    work.add([paper])

    def resolve(self, record: Record) -> Decision:
        """The decision for one record (see `resolve_all`)."""
        return self.resolve_all([record])[0]

    def resolve_all(
        self, records: Iterable[Record], progress: Callable[[int], None] | None = None
    ) -> list[Decision]:
        """One decision per record (records sharing an id share it); `progress` is told the
        number of unique records done after each.

        `Offline` and `SourceFault` (no network, retries spent) propagate: the caller decides
        whether a run goes on without the source."""
        listed = list(records)
        unique: dict[str, Work] = {}
        for record in listed:
            if record.id not in unique:
                unique[record.id] = Work(len(unique), record, evidence(record))
        works = list(unique.values())
        matchers = [s for s in self.sources if role(s) is Role.MATCH]
        self._bulk(works, matchers)
        run = Run(
            searchers=matchers,
            enrichers=[s for s in self.sources if role(s) is Role.ENRICH],
            warn=self.warn,
            progress=progress,
            remaining=len(works),
        )
        run.due = {p: len(works) for p, s in enumerate(matchers) if isinstance(s, BatchSearch)}
        if works:
            for work in works:
                run.search_step(work, 0)
            run.wait()
        return [unique[record.id].decision for record in listed]


__all__ = ["Offline", "Resolver", "SourceFault"]
