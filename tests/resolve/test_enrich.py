"""Final venue and DOI after a match: from OpenAlex, Crossref or DBLP, never from a look-alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bib.record import Record, evolve
from bib.resolve.candidate import Candidate
from bib.resolve.enrich import final_venue, pick, query_for
from bib.resolve.http import Malformed
from bib.resolve.session import open_session
from bib.resolve.stage import Outcome, resolve_records
from tests.resolve import corpus
from tests.resolve.conftest import fast, server_fixture
from tests.resolve.servers import State

MATCHED = Candidate(
    "arxiv",
    "2605.00001",
    title="Unified Sparse Mixture of Experts",
    authors=("Jane Doe", "John Roe"),
    year=2026,
)
PUBLISHED = Candidate(
    "crossref",
    "10.1/x",
    title="Unified sparse mixture of experts.",
    authors=("J. Doe", "J. Roe"),
    year=2026,
    venue="Proceedings of the AAAI Conference",
    doi="10.1/x",
)


def test_the_same_title_year_and_authors_give_venue_and_doi() -> None:
    found = pick(MATCHED, [PUBLISHED])
    assert found is not None and (found.venue, found.doi) == (PUBLISHED.venue, "10.1/x")


def test_a_paper_with_the_same_title_from_another_year_lends_nothing() -> None:
    assert pick(MATCHED, [dataclasses.replace(PUBLISHED, year=2023)]) is None


def test_a_paper_with_the_same_title_by_other_authors_lends_nothing() -> None:
    assert pick(MATCHED, [dataclasses.replace(PUBLISHED, authors=("Ann Other",))]) is None


def test_a_title_with_one_word_changed_lends_nothing() -> None:
    near = dataclasses.replace(PUBLISHED, title="Unified Sparse Mixture of Networks")
    assert pick(MATCHED, [near]) is None


def test_two_different_published_versions_that_both_pass_give_nothing() -> None:
    other = dataclasses.replace(PUBLISHED, doi="10.2/y", venue="Another Journal")
    assert pick(MATCHED, [PUBLISHED, other]) is None


def test_a_preprint_listing_is_no_final_venue() -> None:
    assert not final_venue("arXiv (Cornell University)")
    assert not final_venue("CoRR")
    assert final_venue("Trans. Mach. Learn. Res.")
    assert pick(MATCHED, [dataclasses.replace(PUBLISHED, venue="CoRR")]) is None


@dataclass(frozen=True)
class Run:
    outcomes: list[Outcome]
    requests: list[str]


def without_venue(records: list[Record]) -> list[Record]:
    """The seed records as a list without a venue header would give them (BibTeX, CSL)."""
    return [evolve(r, venue="") for r in records]


@pytest.fixture(scope="module")
def run(papers: list[corpus.Paper], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    with pytest.MonkeyPatch.context() as patch:
        running = server_fixture(papers, patch)
        state = next(running)
        session = fast(open_session(online=True, cache_dir=tmp_path_factory.mktemp("cache")))
        records = without_venue(corpus.seed_records()[40:50])
        outcomes = resolve_records(records, session.resolver)
        session.close()
        yield Run(outcomes, list(state.requests))
        running.close()


def published(i: int) -> corpus.Published:
    found = corpus.final_version(i)
    assert found is not None
    return found


@pytest.mark.parametrize("i", [*corpus.IN_OPENALEX, *corpus.IN_CROSSREF, *corpus.IN_DBLP], ids=str)
def test_an_arxiv_match_gets_its_final_venue_and_doi(run: Run, i: int) -> None:
    record = run.outcomes[i - 40].record
    assert (record.venue, record.doi) == (published(i).venue, published(i).doi)


def test_the_enricher_is_named_in_the_provenance(run: Run) -> None:
    note = run.outcomes[corpus.IN_CROSSREF[0] - 40].record.note
    assert f"DOI and venue from crossref {published(corpus.IN_CROSSREF[0]).doi}." in note


def test_a_paper_published_nowhere_stays_a_preprint(run: Run) -> None:
    record = run.outcomes[9].record
    assert run.outcomes[9].applied and (record.venue, record.doi) == ("", "")


def test_enrichers_stop_at_the_first_that_gives_a_venue(run: Run) -> None:
    asked = [r.split("/")[1] for r in run.requests if not r.startswith("POST")]
    assert asked.count("openalex") == 10
    assert asked.count("crossref") == 10 - len(corpus.IN_OPENALEX)
    assert asked.count("dblp") == 10 - len(corpus.IN_OPENALEX) - len(corpus.IN_CROSSREF)


def test_a_record_that_names_its_venue_asks_no_enricher(server: State, tmp_path: Path) -> None:
    session = fast(open_session(online=True, cache_dir=tmp_path))
    outcomes = resolve_records(corpus.seed_records()[40:42], session.resolver)
    assert all(o.applied and o.record.venue == "ICML" and not o.record.doi for o in outcomes)
    assert not [r for r in server.requests if r.split("/")[1] in ("openalex", "crossref", "dblp")]


@pytest.mark.parametrize("name", ["openalex", "crossref", "dblp"])
def test_a_malformed_enricher_answer_names_the_source(
    name: str, server: State, tmp_path: Path
) -> None:
    server.faults.malformed = True
    (enricher,) = fast(open_session(online=True, cache_dir=tmp_path, sources=[name])).sources
    with pytest.raises(Malformed, match=f"^{name}: "):
        enricher.search(query_for(MATCHED))


def test_a_malformed_enricher_answer_is_a_warning_and_the_next_enricher_is_asked(
    server: State, tmp_path: Path
) -> None:
    server.faults.malformed_under = "/openalex/"
    session = fast(open_session(online=True, cache_dir=tmp_path))
    warnings: list[str] = []
    session.resolver.warn = warnings.append
    i = corpus.IN_CROSSREF[0]
    outcome = resolve_records(without_venue(corpus.seed_records()[i : i + 1]), session.resolver)
    assert outcome[0].applied and outcome[0].record.doi == published(i).doi
    assert [w.split(":")[:3] for w in warnings] == [["bib", " warning", " openalex"]]
