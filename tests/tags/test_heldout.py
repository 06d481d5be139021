"""The tagger on held-out abstracts, labelled before it was run on them
(tests/tags/heldout-abstracts.json, areas the seed abstracts do not cover).

Floors are the figures `benchmarks/tags_quality.py` measured (topics as `bib list --tag`
finds them: a tag below a labelled topic counts as it), rounded down slightly; they
guard against tuning the matcher to the seed abstracts at the expense of other fields.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bib.extract.tags import tag_records
from bib.record import Record, TagKind
from tests.helpers import tags_of

FIXTURE = Path(__file__).with_name("heldout-abstracts.json")
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["abstracts"]
FLOORS = {
    ("topic", "precision"): 0.79,
    ("topic", "recall"): 0.97,
    ("contribution", "precision"): 0.93,
    ("contribution", "recall"): 0.78,
}


def _tagged(case: dict) -> Record:
    (out,) = tag_records(
        [Record(id=case["name"], abstract=case["abstract"], method=case["method"])]
    )
    return out


@pytest.fixture(scope="module")
def found() -> dict[str, dict[str, set[str]]]:
    kinds = {"topic": TagKind.TOPIC, "contribution": TagKind.CONTRIBUTION}
    return {
        case["name"]: {
            name: {t.value for t in tags_of(_tagged(case), kind)} for name, kind in kinds.items()
        }
        for case in CASES
    }


def test_labels_name_known_topics(vocabulary) -> None:
    for case in CASES:
        assert set(case["topics"]) | set(case["not_topics"]) <= vocabulary.topics.keys(), case[
            "name"
        ]


@pytest.mark.parametrize("kind, measure", sorted(FLOORS), ids=lambda v: str(v))
def test_heldout_quality_does_not_fall_below_the_measured_floor(
    found, vocabulary, kind: str, measure: str
) -> None:
    key = "topics" if kind == "topic" else "contributions"
    right = found_gold = predicted = gold = 0
    for case in CASES:
        tags, wanted = found[case["name"]][kind], set(case[key])
        if kind == "topic":  # as `bib list --tag` finds them: a tag below a label is it
            right += sum(1 for t in tags if t in wanted or _below(t, wanted, vocabulary))
            found_gold += sum(
                1 for g in wanted if g in tags or any(_below(t, {g}, vocabulary) for t in tags)
            )
        else:
            right += len(tags & wanted)
            found_gold += len(tags & wanted)
        predicted += len(tags)
        gold += len(wanted)
    value = right / predicted if measure == "precision" else found_gold / gold
    assert value >= FLOORS[(kind, measure)]


def _below(slug: str, topics: set[str], vocabulary) -> bool:
    return not topics.isdisjoint(vocabulary.ancestors(slug))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_heldout_abstract_gets_no_topic_it_must_not(found, case: dict) -> None:
    assert not set(case["not_topics"]) & found[case["name"]]["topic"]
