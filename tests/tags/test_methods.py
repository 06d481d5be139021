"""Method names: the name an abstract gives its own contribution, or none."""

from __future__ import annotations

import pytest

from bib.extract.methods import find_method, long_form, tag_methods
from bib.record import Record, TagKind

TARGET_ACCURACY = 0.95


def test_seed_method_names_match_the_fixture(seed_records, expected_methods):
    wrong = []
    for row in expected_methods:
        found = find_method(seed_records[row["source"]].abstract)
        name = found.name if found else None
        if name != row["method"]:
            wrong.append(f"{row['source']}: expected {row['method']!r}, got {name!r}")
    accuracy = 1 - len(wrong) / len(expected_methods)
    assert accuracy >= TARGET_ACCURACY, "\n".join(wrong)


def test_fixture_covers_every_seed(seed_records, expected_methods):
    assert sorted(row["source"] for row in expected_methods) == sorted(seed_records)


def test_bold_name_with_acronym_gives_acronym_and_long_form():
    text = "Furthermore, we introduce **Unified Sparse Mixture of Experts (USMoE)**, a framework."
    found = find_method(text)
    assert (found.name, found.long_form) == ("USMoE", "Unified Sparse Mixture of Experts")


def test_name_followed_by_description():
    text = (
        "To address these issues, we propose FairJudge, an adaptive, debiased, and consistent "
        "LLM-as-a-Judge. It works."
    )
    found = find_method(text)
    assert (found.name, found.description) == (
        "FairJudge",
        "an adaptive, debiased, and consistent LLM-as-a-Judge",
    )


def test_name_followed_by_its_expansion_in_parentheses():
    text = (
        "We present BARRED (Boundary Alignment Refinement through REflection and Debate), "
        "a framework."
    )
    found = find_method(text)
    assert (found.name, found.long_form) == (
        "BARRED",
        "Boundary Alignment Refinement through REflection and Debate",
    )


def test_name_with_digits_and_hyphen():
    found = find_method("We thus propose S2L-PO (Small-to-Large Policy Optimization), a framework.")
    assert (found.name, found.long_form) == ("S2L-PO", "Small-to-Large Policy Optimization")


def test_name_between_commas_after_its_description():
    found = find_method(
        "We introduce a milestone-guided policy learning framework, BEACON, that works."
    )
    assert (found.name, found.description) == (
        "BEACON",
        "a milestone-guided policy learning framework",
    )


def test_existing_method_that_is_only_used_is_not_a_name():
    text = "We train models with GRPO and LoRA. Experiments show GRPO improves accuracy."
    assert find_method(text) is None


def test_unnamed_contribution_gives_no_name():
    text = "We propose a novel meta-cognitive framework for reliable knowledge augmentation."
    assert find_method(text) is None


def test_most_discussed_of_several_names_wins():
    text = (
        "We propose NAEViT (No AttEntion from Visual Tokens), an attention mechanism. "
        "Then, we introduce SAISA (Self-Attention Input Space Alignment), an architecture. "
        "SAISA is fast. SAISA is small."
    )
    assert find_method(text).name == "SAISA"


def test_evidence_points_at_the_name_in_the_verbatim_abstract():
    text = "We introduce **DFlash**, a speculative decoding framework."
    start, end = find_method(text).evidence
    assert text[start:end] == "DFlash"


def test_lower_case_long_form_is_found_by_its_letters():
    assert long_form("a hybrid episodic-procedural memory strategy", "H-EPM") == (
        "hybrid episodic-procedural memory strategy"
    )


def test_stage_sets_method_and_adds_a_method_tag():
    text = "We propose Weasel, a trajectory selection method."
    [record] = tag_methods([Record(id="x", abstract=text)])
    [tag] = record.tags
    assert (record.method, tag.kind, tag.value, tag.label) == (
        "Weasel",
        TagKind.METHOD,
        "Weasel",
        "a trajectory selection method",
    )


@pytest.mark.parametrize("text", ["", "Short text without any claim."])
def test_no_claim_no_name(text):
    assert find_method(text) is None


def test_citation_in_parentheses_is_not_a_long_form():
    found = find_method("We introduce GraphX (Smith et al., 2020), a model.")
    assert (found.name, found.long_form) == ("GraphX", "")


def test_name_given_with_dubbed():
    text = "Our method, dubbed FastX, achieves 2x speedups over FlashAttention. FastX is simple."
    assert find_method(text).name == "FastX"


def test_so_called_is_not_a_naming():
    assert find_method("Attention sinks, so-called Sinks, are studied here.") is None


def test_name_with_plus_signs():
    found = find_method("We design SpecDec++: an adaptive speculative decoding method.")
    assert (found.name, found.description) == (
        "SpecDec++",
        "an adaptive speculative decoding method",
    )
