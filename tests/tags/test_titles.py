"""Derived titles: from the abstract's naming of its contribution, else its main claim."""

from __future__ import annotations

import re

import pytest

from bib.extract.titles import derive_title, derive_titles, title_case
from bib.record import Record


def test_name_and_long_form():
    text = "We introduce **Unified Sparse Mixture of Experts (USMoE)**, a novel framework."
    assert derive_title(text) == "USMoE: Unified Sparse Mixture of Experts"


def test_name_and_description_are_title_cased_keeping_acronyms():
    text = "We propose FairJudge, an adaptive, debiased, and consistent LLM-as-a-Judge. Done."
    assert derive_title(text) == "FairJudge: An Adaptive, Debiased, and Consistent LLM-as-a-Judge"


def test_unnamed_paper_gets_a_title_from_its_main_claim():
    text = (
        "Models are trained on shuffled data. In this work, we study the impact of pretraining "
        "dynamics on the acquisition of time-sensitive factual knowledge, focusing on order."
    )
    assert derive_title(text) == (
        "The Impact of Pretraining Dynamics on the Acquisition of Time-Sensitive Factual Knowledge"
    )


def test_claim_titles_of_the_seeds_are_short_and_end_without_punctuation(seed_records):
    for source, record in seed_records.items():
        title = derive_title(record.abstract)
        assert 1 <= len(title.split()) <= 13, source
        assert not re.search(r"[.,;:!?]$", title), source


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a training-free KV cache framework", "A Training-Free KV Cache Framework"),
        (
            "mitigating erasure for stable many-shot merging",
            "Mitigating Erasure for Stable Many-Shot Merging",
        ),
        ("the impact of data on the model", "The Impact of Data on the Model"),
    ],
)
def test_title_case(text, expected):
    assert title_case(text) == expected


def test_stage_marks_derived_titles_and_keeps_given_ones():
    given = Record(id="a", abstract="We propose Weasel, a method.", title="Real Title")
    untitled = Record(id="b", abstract="We propose Weasel, a method.")
    kept, derived = derive_titles([given, untitled])
    assert (kept.title, kept.title_derived) == ("Real Title", False)
    assert (derived.title, derived.title_derived) == ("Weasel: A Method", True)


def test_develop_a_theory_is_a_claim():
    text = "We develop a theory of in-context learning. Our analysis shows more."
    assert derive_title(text) == "A Theory of In-Context Learning"


def test_first_sentence_fallback_drops_we_and_its_verb():
    assert derive_title("We propose GPT-4 based evaluation (see Appendix). It works.") == (
        "GPT-4 Based Evaluation"
    )
