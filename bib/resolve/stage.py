"""The resolve stage: records in, records with what resolving found filled in, out.

Only missing or derived values are filled; a field the user wrote is kept. Every applied
match leaves its provenance (source, id, score) in the record's note, which the writers put
in CSL `note`, BibTeX/BibLaTeX `note` and Zotero `extra`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from bib.parallel import batches
from bib.readers.names import split_name
from bib.record import Link, LinkRole, Record, evolve
from bib.resolve.candidate import Candidate
from bib.resolve.http import SourceFault
from bib.resolve.provenance import enrichment_sentence, provenance_of, sentence
from bib.resolve.resolver import Resolver
from bib.resolve.score import Decision, Verdict


@dataclass(frozen=True, slots=True)
class Outcome:
    """A record after the stage, and the decision that produced it."""

    record: Record
    decision: Decision

    @property
    def applied(self) -> bool:
        return self.decision.verdict is Verdict.RESOLVED


def provenance(candidate: Candidate, score: float) -> str:
    """The match sentence, and the enrichment sentence when another source gave the venue."""
    found = sentence(candidate.source, candidate.source_id, score)
    extra = candidate.enrichment
    if extra is None:
        return found
    more = enrichment_sentence(extra.source, extra.source_id, doi=bool(extra.doi), venue=True)
    return f"{found} {more}"


def apply(record: Record, candidate: Candidate, score: float) -> Record:
    """The record with the candidate's values where the record has none or a derived one."""
    changes: dict[str, object] = {}
    if candidate.title and (record.title_derived or not record.title):
        changes["title"] = candidate.title
        changes["title_derived"] = False
    if candidate.authors and not record.authors:
        changes["authors"] = tuple(split_name(name) for name in candidate.authors if name.strip())
    if candidate.doi and not record.doi:
        changes["doi"] = candidate.doi
    if candidate.arxiv_id and not record.arxiv_id:
        changes["arxiv_id"] = candidate.arxiv_id
    if candidate.year and not record.year:
        changes["year"] = candidate.year
    if (
        candidate.venue
        and not record.venue
        and (candidate.source != "arxiv" or candidate.enrichment is not None)
    ):
        changes["venue"] = candidate.venue
    if candidate.url and not record.urls(LinkRole.PAPER):
        changes["links"] = (Link(candidate.url, LinkRole.PAPER), *record.links)
    if not provenance_of(record.note):
        note = provenance(candidate, score)
        changes["note"] = f"{record.note.rstrip()} {note}".strip() if record.note else note
    return evolve(record, **changes)


def resolve_records(
    records: Iterable[Record],
    resolver: Resolver,
    progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Each record resolved once per unique paper (records sharing an id share the decision);
    only resolved decisions change a record, ambiguous ones are returned for review.
    `progress` is told the count of records done after each one."""
    listed = list(records)
    outcomes = []
    for record, decision in zip(listed, resolver.resolve_all(listed, progress), strict=True):
        if decision.verdict is Verdict.RESOLVED and decision.best is not None:
            outcomes.append(
                Outcome(apply(record, decision.best.candidate, decision.best.score), decision)
            )
        else:
            outcomes.append(Outcome(record, decision))
    return outcomes


RESOLVE_BATCH = 500
"""Records `bib convert --resolve` hands to the resolver at a time: the Semantic Scholar batch
endpoint's limit, so that the bulk requests, the OR-batched arXiv searches and the hosts
queried side by side work as they do for `bib resolve`."""


def convert_stage(
    resolver: Resolver, *, best_effort: bool, warn: Callable[[str], None]
) -> Callable[[Iterable[Record]], Iterator[Record]]:
    """A pipeline stage for `bib convert --resolve`: before keys are assigned, so a resolved
    title and first author make the key (the same input and cache give the same keys).

    A source fault (no network, retries spent) fails the run, unless `best_effort`: then it is
    reported once and the remaining records pass unresolved."""
    decided: dict[str, Decision] = {}
    failed: list[str] = []

    def stage(records: Iterable[Record]) -> Iterator[Record]:
        for batch in batches(records, RESOLVE_BATCH):
            todo = [record for record in batch if record.id not in decided]
            if todo and not failed:
                try:
                    for record, decision in zip(todo, resolver.resolve_all(todo), strict=True):
                        decided[record.id] = decision
                except SourceFault as exc:
                    if not best_effort:
                        raise
                    failed.append(str(exc))
                    warn(f"bib: warning: {exc}; the remaining records are written unresolved")
            for record in batch:
                found = decided.get(record.id)
                best = found.best if found else None
                if found and found.verdict is Verdict.RESOLVED and best is not None:
                    yield apply(record, best.candidate, best.score)
                else:
                    yield record

    return stage
