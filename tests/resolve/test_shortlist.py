"""The venue listing's shortlist (a speed trick) decides as the whole listing would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bib.record import Record, evolve
from bib.resolve.candidate import Candidate
from bib.resolve.resolver import Listing, evidence
from bib.resolve.score import decide
from bib.resolve.sources.openreview import candidate
from tests.resolve import corpus, servers

PAPERS = corpus.papers()
LISTED = [candidate(servers.note(p), 2026) for p in PAPERS if p.on_openreview]
RECORDS = corpus.seed_records()
REWORDED = [evolve(r, abstract=corpus.reword(r.abstract)) for r in RECORDS]


def whole_and_shortlist(record: Record, listed: list[Candidate]) -> tuple[object, object]:
    basis = evidence(record)
    whole = decide(basis, listed)
    short = decide(basis, Listing.of(listed).shortlist(record))
    return (whole.verdict, whole.best), (short.verdict, short.best)


@given(
    st.sampled_from(RECORDS + REWORDED),
    st.lists(st.sampled_from(LISTED), min_size=1, max_size=60, unique_by=lambda c: c.source_id),
)
def test_the_shortlist_gives_the_whole_listings_verdict_and_best(
    record: Record, listed: list[Candidate]
) -> None:
    whole, short = whole_and_shortlist(record, listed)
    if whole[0] != "unresolved":
        assert short == whole


def test_the_hard_seed_records_decide_the_same_on_the_full_listing() -> None:
    """Records 40-56: their paper is not listed, so every decision rests on the rivals."""
    for record in RECORDS[40:] + REWORDED[40:]:
        whole, short = whole_and_shortlist(record, LISTED)
        assert short == whole or whole[0] == "unresolved"
