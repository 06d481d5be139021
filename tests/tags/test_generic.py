"""Generic topics are the list's to decide (bib.extract.generic): a topic on most records of
a run is left out where a paper is not about it; a short list takes the vocabulary's flags.

The lists are real: the seeds (ICML 2026), and ICLR 2020 papers with the keywords their
authors gave on OpenReview (tests/data/author-keywords.json), so which papers are about
reinforcement learning is said by their authors, not by the tagger."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib import convert as engine
from bib.extract import generic, tags
from bib.extract.vocabulary import Vocabulary, shipped
from bib.record import Record, TagKind

DATA = Path(__file__).resolve().parents[1] / "data"
SEEDS = Path(__file__).resolve().parents[2] / "seeds"
RL = "reinforcement-learning"
LLMS = "large-language-models"


def _iclr(keyword: str = "") -> list[Record]:
    papers = json.loads((DATA / "author-keywords.json").read_text(encoding="utf-8"))["papers"]
    return [
        Record(id=p["id"], title=p["title"], abstract=p["abstract"])
        for p in papers
        if any(keyword in k.casefold() for k in p["keywords"])
    ]


def _seeds() -> list[Record]:
    return [
        Record(id=f"{path.stem}-{i}", abstract=text.strip())
        for path in sorted(SEEDS.glob("*.txt"))
        for i, text in enumerate(path.read_text(encoding="utf-8").split("\n\n")[1:])
        if text.strip()
    ]


def _loose(records: Sequence[Record], vocabulary: Vocabulary, most: int) -> list[Record]:
    return list(tags.tag_stream(records, vocabulary=vocabulary, max_topics=most, loose=True))


def _topics(record: Record) -> list[str]:
    return [t.value for t in record.tags if t.kind is TagKind.TOPIC]


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    return shipped()


@pytest.mark.parametrize("most", [1, 2, 8])
def test_loose_tags_finished_with_the_flags_are_the_tags_of_the_tagger_without_loose(
    vocabulary: Vocabulary, most: int
) -> None:
    records = _seeds() + _iclr()
    listing = generic.GenericTopics(vocabulary, most)
    finished = [listing.finish(r, listing.prior) for r in _loose(records, vocabulary, most)]
    plain = tags.tag_records(records, vocabulary=vocabulary, max_topics=most)
    assert [r.tags for r in finished] == [r.tags for r in plain]


@given(
    st.lists(st.sampled_from(range(57)), min_size=1, max_size=4),
    st.integers(min_value=1, max_value=8),
    st.sets(st.sampled_from([LLMS, RL, "llm-agents", "llm-reasoning", "diffusion-models"])),
)
def test_any_generic_set_leaves_out_only_loose_topics_and_keeps_the_cap(
    picks: list[int], most: int, chosen: set[str]
) -> None:
    vocabulary = shipped()
    seeds = _seeds()
    abstract = " ".join(seeds[i].abstract for i in picks)
    record = Record(id="x", abstract=abstract)
    listing = generic.GenericTopics(vocabulary, most)
    (loose,) = _loose([record], vocabulary, most)
    finished = listing.finish(loose, frozenset(chosen))
    kept = [t for t in finished.tags if t.kind is TagKind.TOPIC]
    assert len(kept) <= most
    dropped = {t.value for t in loose.tags if t.kind is TagKind.TOPIC} - set(_topics(finished))
    left_out = {t.value for t in loose.tags if t.loose and t.value in chosen}
    assert left_out <= dropped


def test_a_list_shorter_than_min_records_takes_the_vocabulary_flags(
    vocabulary: Vocabulary,
) -> None:
    listing = generic.GenericTopics(vocabulary, 8)
    few = generic.MIN_RECORDS - 1
    assert listing.decide(Counter({RL: few}), few) == vocabulary.generic


def test_a_topic_on_the_share_of_a_long_list_is_generic_and_one_below_it_is_not(
    vocabulary: Vocabulary,
) -> None:
    listing = generic.GenericTopics(vocabulary, 8)
    counts = Counter({RL: 30, LLMS: 29})
    assert listing.decide(counts, 100) == {RL}


def test_the_seeds_find_generic_what_the_vocabulary_flags(vocabulary: Vocabulary) -> None:
    listing = generic.GenericTopics(vocabulary, 8)
    assert listing.decide_all(_loose(_seeds(), vocabulary, 8)) == vocabulary.generic == {LLMS}


def test_iclr_2020_has_no_generic_topic(vocabulary: Vocabulary) -> None:
    listing = generic.GenericTopics(vocabulary, 8)
    assert listing.decide_all(_loose(_iclr(), vocabulary, 8)) == frozenset()


def test_in_a_list_of_rl_papers_rl_stays_only_on_the_papers_about_it(tmp_path: Path) -> None:
    records = _iclr("reinforcement learning")
    loose = _loose(records, shipped(), tags.DEFAULT_MAX_TOPICS)
    about = {r.title for r in loose for t in r.tags if t.value == RL and not t.loose}
    not_about = {r.title for r in loose for t in r.tags if t.value == RL and t.loose}
    out = _converted(records, tmp_path)
    assert about and not_about
    assert all(RL in out[title] for title in about)
    assert not any(RL in out[title] for title in not_about)


def test_llms_stay_where_few_papers_of_the_list_name_them(tmp_path: Path) -> None:
    records = _iclr()
    loose = _loose(records, shipped(), tags.DEFAULT_MAX_TOPICS)
    named = {r.title for r in loose for t in r.tags if t.value == LLMS and t.loose}
    out = _converted(records, tmp_path)
    assert named
    assert all(LLMS in out[title] for title in named)


def _converted(records: Sequence[Record], folder: Path) -> dict[str, list[str]]:
    """The topics of each record (by title) as `bib convert` tags them, from a CSL-JSON
    file of the records."""
    path = folder / "list.json"
    items = [{"id": r.id, "type": "paper-conference", "title": r.title, "abstract": r.abstract}
             for r in records]  # fmt: skip
    path.write_text(json.dumps(items), encoding="utf-8")
    options = engine.ConvertOptions(stages=engine.tag_stages())
    return {r.title: _topics(r) for r in engine.load([path], options)}
