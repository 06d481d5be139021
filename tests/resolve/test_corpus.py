"""The resolve stage over the seed papers against the look-alike corpus: no wrong match."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from bib.resolve.session import open_session
from bib.resolve.stage import Outcome, resolve_records
from tests.resolve import corpus
from tests.resolve.conftest import fast, server_fixture


def truth(outcome: Outcome, papers: list[corpus.Paper]) -> int | None:
    best = outcome.decision.best
    assert best is not None
    ident = best.candidate.source_id.removeprefix("s2")
    by_id = {p.ident: p for p in papers} | {p.arxiv_id: p for p in papers}
    return by_id[ident].truth


@dataclass(frozen=True)
class Run:
    outcomes: list[Outcome]
    requests: list[str]


@pytest.fixture(scope="module")
def run(papers: list[corpus.Paper], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """The whole seed list resolved once against the corpus server (the tests read the run)."""
    with pytest.MonkeyPatch.context() as patch:
        running = server_fixture(papers, patch)
        state = next(running)
        session = fast(open_session(online=True, cache_dir=tmp_path_factory.mktemp("cache")))
        outcomes = resolve_records(corpus.seed_records(), session.resolver)
        session.close()
        yield Run(outcomes, list(state.requests))
        running.close()


def test_no_record_is_resolved_to_another_paper(run: Run, papers: list[corpus.Paper]) -> None:
    outcomes = run.outcomes
    wrong = [
        (i, o.decision.best) for i, o in enumerate(outcomes) if o.applied and truth(o, papers) != i
    ]
    assert wrong == []


def test_papers_on_openreview_resolve_from_the_venue_listing(run: Run) -> None:
    outcomes = run.outcomes
    for i in corpus.ON_OPENREVIEW:
        assert outcomes[i].applied, i
        assert outcomes[i].decision.best is not None
        assert outcomes[i].decision.best.candidate.source == "openreview"


def test_papers_only_on_arxiv_resolve_from_their_reworded_abstract(run: Run) -> None:
    outcomes = run.outcomes
    resolved = [i for i in corpus.ON_ARXIV_ONLY if outcomes[i].applied]
    assert resolved == list(corpus.ON_ARXIV_ONLY)


def test_papers_nowhere_stay_unresolved_despite_their_look_alikes(run: Run) -> None:
    outcomes = run.outcomes
    assert [i for i in range(50, len(outcomes)) if outcomes[i].applied] == []


def test_the_venue_is_listed_once_for_the_whole_list(run: Run) -> None:
    listings = [r for r in run.requests if "content.venueid" in r]
    assert len(listings) == 1
