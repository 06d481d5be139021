"""The topic hierarchy: most specific tags, ancestors on request, and a topic's subtree
matched by `bib list --tag`, `bib search` and the Zotero tags.

The library cases run the real `bib` commands on a real SQLite library file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from annotations import open_store
from bib.cli import main
from bib.extract import hierarchy
from bib.extract.tags import tag_records
from bib.extract.vocabulary import extend, shipped
from bib.record import Record, Tag, TagKind
from bib.zotero.mapping import Options, Paper, tags

GRPO = (
    "We train language models with Group Relative Policy Optimization (GRPO) on "
    "verifiable math rewards and study how GRPO shapes the policy."
)


def _topics(record: Record) -> list[str]:
    return [t.value for t in record.tags if t.kind is TagKind.TOPIC]


def test_ancestors_follow_every_parent(vocabulary) -> None:
    above = vocabulary.ancestors("hallucination-in-vlms")
    assert {"hallucination", "vision-language-models", "multimodal-learning"} <= set(above)


def test_a_topic_implied_only_by_a_more_specific_one_is_not_tagged(vocabulary) -> None:
    text = "We compress the key-value cache of long prompts. KV cache eviction keeps memory low."
    (record,) = tag_records([Record(id="a", abstract=text)], vocabulary=vocabulary)
    assert "kv-cache" in _topics(record)
    assert "efficient-inference" not in _topics(record)


def test_with_parents_adds_each_ancestor_once_after_the_topics(vocabulary) -> None:
    (record,) = tag_records([Record(id="a", abstract=GRPO)], vocabulary=vocabulary)
    topics = _topics(hierarchy.with_parents(record, vocabulary))
    assert topics[: len(_topics(record))] == _topics(record)
    assert {"rlvr", "reinforcement-learning", "llm-reinforcement-learning"} <= set(topics)
    assert len(topics) == len(set(topics))


def test_with_parents_leaves_out_the_generic_umbrellas(vocabulary) -> None:
    (record,) = tag_records([Record(id="a", abstract=GRPO)], vocabulary=vocabulary)
    topics = _topics(hierarchy.with_parents(record, vocabulary))
    assert "machine-learning" not in topics and "deep-learning" not in topics


def test_an_ancestors_evidence_is_the_words_of_the_topics_below_it(vocabulary) -> None:
    record = Record(id="a", abstract=GRPO, tags=(Tag(TagKind.TOPIC, "grpo", "GRPO", ((6, 9),)),))
    (rlvr,) = [t for t in hierarchy.ancestor_tags(record, vocabulary) if t.value == "rlvr"]
    assert rlvr.evidence == ((6, 9),)


def test_a_topic_is_named_by_slug_label_or_synonym(vocabulary) -> None:
    assert hierarchy.resolve("reinforcement-learning", vocabulary) == "reinforcement-learning"
    assert hierarchy.resolve("Reinforcement Learning", vocabulary) == "reinforcement-learning"
    assert hierarchy.resolve("content moderation", vocabulary) == "content-moderation"
    assert hierarchy.resolve("no such topic at all", vocabulary) is None


def test_user_topic_with_several_parents_is_below_each(vocabulary) -> None:
    topic = {"slug": "rl-jailbreaks", "label": "RL jailbreaks", "parents": ["jailbreaks", "rlvr"]}
    extended = extend(vocabulary, {"topics": [topic]}, "mine.json")
    assert "rl-jailbreaks" in hierarchy.subtree("ai-safety", extended)
    assert "rl-jailbreaks" in hierarchy.subtree("reinforcement-learning", extended)


def test_with_parents_option_writes_ancestors_as_keywords(tmp_path: Path) -> None:
    source = tmp_path / "list.txt"
    source.write_text("ICML 2026\n\n" + GRPO + "\n", encoding="utf-8")
    runner = CliRunner()
    plain = runner.invoke(main, ["tags", str(source), "--json", "--kind", "topic"])
    full = runner.invoke(main, ["tags", str(source), "--json", "--kind", "topic", "--with-parents"])
    before = {t["value"] for t in json.loads(plain.stdout)[0]["tags"]}
    after = {t["value"] for t in json.loads(full.stdout)[0]["tags"]}
    assert "reinforcement-learning" not in before and "reinforcement-learning" in after


def test_config_setting_turns_with_parents_on(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[tags]\nwith_parents = true\n", encoding="utf-8")
    monkeypatch.setenv("BIB_CONFIG", str(config))
    source = tmp_path / "list.txt"
    source.write_text("ICML 2026\n\n" + GRPO + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["tags", str(source), "--json", "--kind", "topic"])
    assert "reinforcement-learning" in {t["value"] for t in json.loads(result.stdout)[0]["tags"]}


def test_bad_config_setting_is_one_error_line(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[tags]\nwith_parents = 'yes'\n", encoding="utf-8")
    monkeypatch.setenv("BIB_CONFIG", str(config))
    source = tmp_path / "list.txt"
    source.write_text("ICML 2026\n\n" + GRPO + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["tags", str(source)])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"bib: error: {config}: tags.with_parents must be true or false"
    ]


@pytest.fixture
def library(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "library.sqlite"
    monkeypatch.setenv("BIB_LIBRARY", str(path))
    monkeypatch.setenv("NO_COLOR", "1")
    records = [
        Record(
            id="a",
            key="grpo2026",
            title="Group policies",
            abstract=GRPO,
            tags=(Tag(TagKind.TOPIC, "grpo", "Group Relative Policy Optimization"),),
        ),
        Record(
            id="b",
            key="moe2026",
            title="Experts",
            abstract="Sparse mixture of experts.",
            tags=(Tag(TagKind.TOPIC, "mixture-of-experts", "Mixture of experts"),),
        ),
    ]
    with open_store(path) as store:
        store.upsert(records)
    return path


def _keys(*args: str) -> list[str]:
    result = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
    return sorted(entry["key"] for entry in json.loads(result.stdout))


def test_list_tag_matches_the_topics_below_it(library: Path) -> None:
    assert _keys("list", "--tag", "reinforcement-learning") == ["grpo2026"]
    assert _keys("list", "--tag", "grpo") == ["grpo2026"]
    assert _keys("list", "--tag", "transformers") == []


def test_list_tag_names_a_topic_by_its_label(library: Path) -> None:
    assert _keys("list", "--tag", "Reinforcement learning") == ["grpo2026"]


def test_search_for_a_topic_finds_the_papers_tagged_below_it(library: Path) -> None:
    assert _keys("search", "policy gradient methods") == []
    assert _keys("search", "reinforcement", "learning") == ["grpo2026"]


def test_zotero_tags_carry_the_ancestors_as_automatic_tags() -> None:
    record = Record(id="a", key="k", tags=(Tag(TagKind.TOPIC, "grpo", "GRPO"),))
    found = {t["tag"]: t["type"] for t in tags(Paper(record=record), Options())}
    assert found["grpo"] == 1
    assert found["reinforcement-learning"] == 1
    assert "machine-learning" not in found


def test_shipped_ancestors_stop_at_the_root() -> None:
    assert shipped().ancestors("machine-learning") == ()
