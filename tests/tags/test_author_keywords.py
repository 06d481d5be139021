"""The author-keyword labels (tests/data/author-keywords.json): keywords that authors gave
their own papers on OpenReview, which nobody on this project wrote. The benchmark
(`benchmarks/tags_author_keywords.py`, run by `benchmarks/tags_quality.py`) reads them
from a fresh clone; here the tagger's recall of them is held against YAKE's on the same
papers, in the same run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABELS = ROOT / "tests" / "data" / "author-keywords.json"


def test_the_labels_are_at_least_300_real_papers_with_their_source() -> None:
    document = json.loads(LABELS.read_text(encoding="utf-8"))
    papers = document["papers"]
    assert len(papers) >= 300
    assert len({p["id"] for p in papers}) == len(papers)
    assert all(p["abstract"] and p["keywords"] and p["title"] for p in papers)
    assert "openreview" in json.dumps(document["source"]).lower()


def test_bib_recalls_more_author_keywords_than_yake_top_10_with_fewer_tags() -> None:
    pytest.importorskip("yake")
    sys.path.insert(0, str(ROOT))
    from benchmarks import tags_author_keywords as benchmark

    _, papers = benchmark.load(LABELS)
    figures = benchmark.figures(papers)
    ours, yake = figures["bib"]["exact"], figures["yake_top10"]["exact"]
    assert ours["tags_per_paper"] <= yake["tags_per_paper"]
    assert ours["recall"] >= 1.5 * yake["recall"]
