"""Key phrases: concepts the abstract names or stresses, never generic, at most a handful."""

from __future__ import annotations

import os
import subprocess
import sys

from bib.extract.keyphrases import MAX_KEYPHRASES, fold, keyphrases
from bib.extract.tags import tag_records
from bib.record import Record, TagKind
from tests.helpers import tags_of


def _values(text: str, **kwargs) -> list[str]:
    return [k.value for k in keyphrases(text, **kwargs)]


def test_an_expanded_acronym_is_a_key_phrase() -> None:
    text = "We study Direct Preference Optimization (DPO) for tutoring dialogues."
    (found,) = keyphrases(text)
    assert found.value == "direct preference optimization"
    assert found.label == "Direct Preference Optimization (DPO)"


def test_a_defined_term_is_a_key_phrase() -> None:
    text = "We add a loss, which we call contrastive reward shaping, to every sample."
    assert "contrastive reward shaping" in _values(text)


def test_a_repeated_noun_phrase_is_a_key_phrase_whatever_its_case_and_hyphens() -> None:
    text = "Rollback buffers help. We revisit rollback-buffer and Rollback Buffers at scale."
    assert _values(text) == ["rollback buffer"]


def test_generic_phrases_are_never_key_phrases() -> None:
    text = (
        "Our novel framework wins. The novel framework is simple. Extensive experiments "
        "show it; extensive experiments confirm it. Experimental results and experimental "
        "results again."
    )
    assert _values(text) == []


def test_the_papers_own_method_is_left_to_the_method_tag() -> None:
    text = "We present Anchored Policy Optimization (APO). APO trains faster."
    assert _values(text, method="APO") == []


def test_at_most_a_handful_per_paper() -> None:
    pairs = ["alpha beta", "gamma delta", "epsilon zeta", "theta iota", "kappa lambda", "mu nu"]
    text = " ".join(f"{p} here, {p} there." for p in pairs)
    assert len(keyphrases(text)) == MAX_KEYPHRASES


def test_evidence_is_every_occurrence_in_the_verbatim_abstract() -> None:
    text = "Token budget matters.\nA token-budget policy and token budgets."
    (found,) = keyphrases(text)
    assert [fold(text[s:e]) for s, e in found.evidence] == ["token budget"] * 3


def test_keyphrase_is_a_tag_kind_made_on_request() -> None:
    text = "We revisit rollback buffers. A rollback buffer is old."
    record = Record(id="a", abstract=text)
    (default,) = tag_records([record])
    (asked,) = tag_records([record], kinds={TagKind.KEYPHRASE})
    assert not tags_of(default, TagKind.KEYPHRASE)
    assert [t.value for t in tags_of(asked, TagKind.KEYPHRASE)] == ["rollback buffer"]


def test_key_phrases_of_equal_strength_are_the_same_in_every_process() -> None:
    """Regression: phrases said as often were ranked in a set's order, which follows
    string hashes, so two runs could give one abstract different key phrases."""
    text = " ".join(f"{p} here, {p} there." for p in ["alpha beta", "gamma delta",
        "epsilon zeta", "theta iota", "kappa lambda", "mu nu", "xi omicron"])  # fmt: skip
    script = (
        "import sys; from bib.extract.keyphrases import keyphrases; "
        "print([k.value for k in keyphrases(sys.argv[1])])"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", script, text],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in range(6)
    }  # fmt: skip
    assert runs == {repr(_values(text)) + "\n"}
    assert _values(text) == ["alpha beta", "gamma delta", "epsilon zeta", "theta iota",
                             "kappa lambda"]  # fmt: skip


def test_a_phrase_the_title_names_and_the_abstract_says_once_is_a_key_phrase() -> None:
    text = "We train agents with a rollback buffer. It keeps old states."
    assert _values(text) == []
    (found,) = keyphrases(text, title="Rollback Buffers for Agents")
    assert found.value == "rollback buffer"
    assert [text[s:e] for s, e in found.evidence] == ["rollback buffer"]


def test_a_title_phrase_the_abstract_never_says_is_no_key_phrase() -> None:
    assert _values("We train agents.", title="Rollback buffers, rollback buffers") == []


def test_a_repeated_phrase_ending_in_y_said_in_the_singular_is_a_key_phrase() -> None:
    """Regression: `occurrences` tried no ending `y` after a `y`-word's stem, so `sparse
    reward policy` said twice in the singular had no evidence and was dropped."""
    text = (
        "We learn a sparse reward policy for navigation. The sparse reward policy transfers "
        "to new mazes without tuning."
    )
    found = {k.value: k for k in keyphrases(text)}
    assert "sparse reward policy" in found
    assert found["sparse reward policy"].evidence == ((11, 31), (52, 72))
