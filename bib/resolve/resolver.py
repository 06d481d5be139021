"""Candidates for a record from the sources in turn: the venue listing first (one bulk fetch
per venue, matched locally), per-paper searches only while the record is still unresolved."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bib.record import Record
from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Malformed, Offline, SourceFault
from bib.resolve.score import Decision, Evidence, Verdict, decide
from bib.resolve.sources import Source

VENUE_POOL = 5
"""How many of a venue's best-scoring papers are kept as candidates beside the searches'."""


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
class Resolver:
    """One run's sources and the venue listings it has fetched (kept for the run only)."""

    sources: Sequence[Source]
    warn: Callable[[str], None]
    venues: dict[tuple[str, str, int], list[Candidate]] = field(default_factory=dict)

    def _venue(self, source: Source, record: Record) -> list[Candidate]:
        if not record.venue or not record.year:
            return []
        key = (source.name, record.venue, record.year)
        if key not in self.venues:
            try:
                self.venues[key] = source.venue(record.venue, record.year)
            except Malformed as exc:
                self.warn(f"bib: warning: {exc}; {record.venue} {record.year} not listed")
                self.venues[key] = []
        return self.venues[key]

    def resolve(self, record: Record) -> Decision:
        """The decision over every candidate found, stopping at the first source that resolves.

        `Offline` and `SourceFault` (no network, retries spent) propagate: the caller decides
        whether a run goes on without the source."""
        basis = evidence(record)
        found: list[Candidate] = []
        decision = decide(basis, found)
        for source in self.sources:
            listed = self._venue(source, record)
            if listed:
                pool = decide(basis, listed).candidates[:VENUE_POOL]
                found.extend(s.candidate for s in pool)
            else:
                try:
                    found.extend(source.search(query(record)))
                except Malformed as exc:
                    self.warn(
                        f"bib: warning: {exc}; {record.key or record.id} left unresolved by it"
                    )
            decision = decide(basis, found)
            if decision.verdict is Verdict.RESOLVED:
                return decision
        return decision


__all__ = ["Offline", "Resolver", "SourceFault"]
