"""The scorer: what counts as the same paper, and the three-way verdict."""

from __future__ import annotations

from bib.resolve.candidate import Candidate
from bib.resolve.score import AMBIGUOUS, RESOLVED, Evidence, Verdict, decide, score
from tests.resolve import corpus

ABSTRACT = corpus.seed_records()[0].abstract
OTHER = corpus.seed_records()[1].abstract


def candidate(ident: str, abstract: str = ABSTRACT, **fields: object) -> Candidate:
    return Candidate("test", ident, abstract=abstract, **fields)  # type: ignore[arg-type]


def test_the_same_abstract_scores_one() -> None:
    assert score(Evidence(abstract=ABSTRACT), candidate("a")) == 1.0


def test_markup_and_case_do_not_lower_the_score() -> None:
    plain = ABSTRACT.replace("*", "").replace("**", "").upper()
    assert score(Evidence(abstract=ABSTRACT), candidate("a", plain)) == 1.0


def test_an_abstract_with_words_swapped_for_synonyms_is_still_resolved() -> None:
    assert score(Evidence(abstract=ABSTRACT), candidate("a", corpus.synonyms(ABSTRACT))) >= RESOLVED


def test_another_papers_abstract_is_below_review() -> None:
    assert score(Evidence(abstract=ABSTRACT), candidate("b", OTHER)) < AMBIGUOUS


def test_another_year_lowers_the_score_out_of_the_resolved_band() -> None:
    assert score(Evidence(abstract=ABSTRACT, year=2026), candidate("a", year=2023)) < RESOLVED


def test_disjoint_authors_lower_the_score() -> None:
    basis = Evidence(abstract=ABSTRACT, authors=("Jane Doe",))
    assert score(basis, candidate("a", authors=("John Roe",))) < RESOLVED


def test_a_near_identical_title_alone_is_never_resolved() -> None:
    basis = Evidence(title="Sparse Experts for Language Models", year=2026)
    found = candidate("a", "", title="Sparse Experts for Vision Models", year=2026)
    assert decide(basis, [found]).verdict is not Verdict.RESOLVED


def test_the_exact_title_and_year_resolve_a_record_without_abstract() -> None:
    basis = Evidence(title="Sparse Experts for Language Models", year=2026)
    found = candidate("a", "", title="Sparse experts for language models.", year=2026)
    assert decide(basis, [found]).verdict is Verdict.RESOLVED


def test_two_close_candidates_are_ambiguous() -> None:
    basis = Evidence(abstract=ABSTRACT)
    twins = [candidate("a", title="One"), candidate("b", corpus.synonyms(ABSTRACT), title="Two")]
    assert decide(basis, twins).verdict is Verdict.AMBIGUOUS


def test_two_sources_describing_one_paper_are_not_rivals() -> None:
    basis = Evidence(abstract=ABSTRACT)
    same = [
        candidate("a", arxiv_id="2605.1"),
        candidate("b", corpus.synonyms(ABSTRACT), arxiv_id="2605.1"),
    ]
    assert decide(basis, same).verdict is Verdict.RESOLVED


def test_no_candidates_is_unresolved() -> None:
    decision = decide(Evidence(abstract=ABSTRACT), [])
    assert decision.verdict is Verdict.UNRESOLVED
    assert decision.best is None
