"""`bib tags` and the tagging options of `bib convert`, through the real CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bib import convert as engine

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "seeds"
ANSI = re.compile(r"\x1b\[")


def seed_json(cli, *args: str) -> list[dict]:
    result = cli("tags", SEEDS, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_has_one_object_per_record_with_the_agreed_keys(cli) -> None:
    records = seed_json(cli)
    assert len(records) == 57
    for record in records:
        assert set(record) == {"key", "id", "title", "tags"}
        for tag in record["tags"]:
            assert set(tag) == {"kind", "value", "label", "evidence"}


def test_json_evidence_spans_index_the_abstract(cli) -> None:
    abstracts = {r.id: r.abstract for r in engine.load([SEEDS])}
    for record in seed_json(cli, "--kind", "dataset", "--kind", "model"):
        for tag in record["tags"]:
            for start, end in tag["evidence"]:
                assert abstracts[record["id"]][start:end], tag
    (epicache,) = [r for r in seed_json(cli) if r["key"].startswith("epicache")]
    longmem = next(t for t in epicache["tags"] if t["value"] == "LongMemEval")
    start, end = longmem["evidence"][0]
    assert abstracts[epicache["id"]][start:end] == "LongMemEval"


def test_kind_option_keeps_only_that_kind(cli) -> None:
    kinds = {t["kind"] for r in seed_json(cli, "--kind", "model") for t in r["tags"]}
    assert kinds == {"model"}


def test_max_topics_option_limits_topics_per_record(cli) -> None:
    for record in seed_json(cli, "--max-topics", "1", "--kind", "topic"):
        assert len(record["tags"]) <= 1


def test_default_output_lists_each_record_with_its_tags(cli) -> None:
    result = cli("tags", SEEDS)
    assert result.exit_code == 0
    assert "epicache2026  EpiCache" in result.stdout
    assert "  dataset:      LongMemEval, Realtalk, LoCoMo" in result.stdout


def test_explain_without_colour_marks_evidence_with_brackets(cli) -> None:
    result = cli("tags", SEEDS, "--explain", "--kind", "dataset")
    assert result.exit_code == 0
    assert "[[LongMemEval]]" in result.stdout
    assert not ANSI.search(result.stdout)


def test_explain_does_not_combine_with_json(cli) -> None:
    result = cli("tags", SEEDS, "--explain", "--json")
    assert result.exit_code == 2
    assert "bib: error: --explain" in result.stderr


def test_stats_prints_a_table_with_bars(cli) -> None:
    result = cli("tags", SEEDS, "--stats")
    assert result.exit_code == 0
    assert "Tags over 57 records" in result.stdout
    assert "\u2588" in result.stdout and not ANSI.search(result.stdout)


def test_stats_json_counts_records_per_tag(cli) -> None:
    result = cli("tags", SEEDS, "--stats", "--json")
    payload = json.loads(result.stdout)
    assert payload["records"] == 57
    code = next(t for t in payload["tags"] if t["kind"] == "code")
    records = seed_json(cli, "--kind", "code")
    assert code["records"] == sum(1 for r in records if r["tags"])
    assert all(1 <= t["records"] <= 57 for t in payload["tags"])


def test_bad_vocabulary_file_is_one_error_line_and_exit_2(cli, tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    topics = [{"slug": f"t{i}", "label": f"T{i}"} for i in range(3)]
    topics.append({"slug": "t3", "label": "T3", "synonyms": [1]})
    path.write_text(json.dumps({"topics": topics}), encoding="utf-8")
    result = cli("tags", SEEDS, "--vocab", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"bib: error: {path}: topics[3].synonyms[0]: ")
    assert result.stdout == ""


def test_user_vocabulary_adds_a_topic_to_the_tags(cli, tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    topic = {"slug": "episodic-memory", "label": "Episodic memory", "parent": "agent-memory"}
    topic["synonyms"] = ["episodic KV compression", "episodes"]
    path.write_text(json.dumps({"topics": [topic]}), encoding="utf-8")
    (epicache,) = [
        r for r in seed_json(cli, "--vocab", str(path)) if r["key"].startswith("epicache")
    ]
    assert "episodic-memory" in [t["value"] for t in epicache["tags"]]


def test_convert_writes_selected_tag_kinds_as_keywords(cli, tmp_path: Path) -> None:
    out = tmp_path / "refs.json"
    result = cli("convert", SEEDS, "-o", out, "--tags", "dataset")
    assert result.exit_code == 0, result.output
    items = {item["id"]: item for item in json.loads(out.read_text(encoding="utf-8"))}
    epicache = next(v for k, v in items.items() if k.startswith("epicache"))
    assert epicache["keyword"] == "LongMemEval, Realtalk, LoCoMo"


def test_convert_max_topics_zero_writes_no_topic_keywords(cli, tmp_path: Path) -> None:
    out = tmp_path / "refs.json"
    cli("convert", SEEDS, "-o", out, "--tags", "topic", "--max-topics", "0")
    items = json.loads(out.read_text(encoding="utf-8"))
    assert all("keyword" not in item for item in items)


def test_convert_vocab_option_reaches_the_keywords(cli, tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    topic = {"slug": "episodic-memory", "label": "Episodic memory", "parent": "agent-memory"}
    topic["synonyms"] = ["episodic KV compression", "episodes"]
    path.write_text(json.dumps({"topics": [topic]}), encoding="utf-8")
    out = tmp_path / "refs.bib"
    result = cli("convert", SEEDS, "-o", out, "--tags", "topic", "--vocab", path)
    assert result.exit_code == 0, result.output
    assert "episodic-memory" in out.read_text(encoding="utf-8")


def test_tags_runs_as_a_real_process(bib_process) -> None:
    result = bib_process("tags", SEEDS / "000_465737449dbd50b8.txt", "--kind", "method")
    assert result.returncode == 0, result.stderr
    assert "method:" in result.stdout and "FairJudge" in result.stdout
