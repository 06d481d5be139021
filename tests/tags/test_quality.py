"""The tagger against the hand-written seed labels must not get worse than measured.

Floors are the figures `benchmarks/tags_quality.py` measured when they were set, rounded
down slightly; raise them when the tagger improves, never lower them to let a change pass.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from bib.extract.vocabulary import shipped

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "tags_quality.py"
FLOORS = {
    ("method", "recall"): 1.0,
    ("code", "precision"): 1.0,
    ("code", "recall"): 1.0,
    # topics as `bib list --tag` finds them (a tag below a gold topic is that topic): tags
    # are the most specific topics, and the gold labels often name a topic's ancestor too
    ("topic-tree", "precision"): 0.88,
    ("topic-tree", "recall"): 0.89,
    ("dataset", "precision"): 0.98,
    ("dataset", "recall"): 0.98,
    ("model", "precision"): 0.98,
    ("model", "recall"): 0.98,
    ("contribution", "precision"): 0.9,
    ("contribution", "recall"): 0.83,
}


@pytest.fixture(scope="module")
def scores() -> dict:
    spec = importlib.util.spec_from_file_location("tags_quality", BENCHMARK)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    pairs = module.pair(module.load_records(), module.load_gold())
    return module.score_tagger(pairs, shipped())


def test_every_seed_abstract_has_gold_labels(scores) -> None:
    method = scores["method"]
    assert method.tp + method.fn == 57


def test_every_seed_abstract_has_a_contribution_label(scores) -> None:
    contribution = scores["contribution"]
    assert contribution.tp + contribution.fn >= 57


@pytest.mark.parametrize("kind, measure", sorted(FLOORS), ids=lambda v: str(v))
def test_quality_does_not_fall_below_the_measured_floor(scores, kind: str, measure: str) -> None:
    assert getattr(scores[kind], measure) >= FLOORS[(kind, measure)]
