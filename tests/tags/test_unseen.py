"""Abstracts the tagger was never tuned on (tests/tags/unseen-abstracts.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bib.extract.tags import tag_records
from bib.record import Link, LinkRole, Record, TagKind
from tests.helpers import tags_of

FIXTURE = Path(__file__).with_name("unseen-abstracts.json")
CASES = json.loads(FIXTURE.read_text(encoding="utf-8"))["abstracts"]


def _tag(case: dict) -> Record:
    links = (Link(case["code"], LinkRole.CODE),) if case.get("code") else ()
    record = Record(id=case["name"], abstract=case["abstract"], method=case["method"], links=links)
    (out,) = tag_records([record])
    return out


def _values(record: Record, kind: TagKind) -> list[str]:
    return [t.value for t in tags_of(record, kind)]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_unseen_abstract_gets_its_core_topics(case: dict) -> None:
    topics = _values(_tag(case), TagKind.TOPIC)
    assert set(case["topics"]) <= set(topics), topics


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_unseen_abstract_gets_no_unrelated_topic(case: dict) -> None:
    topics = _values(_tag(case), TagKind.TOPIC)
    assert not set(case["not_topics"]) & set(topics), topics


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_unseen_abstract_gets_exactly_its_datasets(case: dict) -> None:
    assert sorted(_values(_tag(case), TagKind.DATASET)) == sorted(case["datasets"])


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["models"] is not None], ids=lambda c: c["name"]
)
def test_unseen_abstract_gets_exactly_its_models(case: dict) -> None:
    assert sorted(_values(_tag(case), TagKind.MODEL)) == sorted(case["models"])


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.get("contributions")], ids=lambda c: c["name"]
)
def test_unseen_abstract_gets_its_contribution_type(case: dict) -> None:
    found = _values(_tag(case), TagKind.CONTRIBUTION)
    assert set(case["contributions"]) <= set(found), found
