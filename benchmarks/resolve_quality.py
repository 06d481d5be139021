"""Resolve quality on the look-alike corpus, requests per record, and the time a 3,000-paper
list takes at the services' published rate limits.

Usage: PYTHONPATH=. python benchmarks/resolve_quality.py [--json]

The 57 seed abstracts (real ICML 2026 abstracts) are resolved against the local test server
of tests/resolve (OpenReview, arXiv and Semantic Scholar shapes) over the corpus of
tests/resolve/corpus.py: 40 papers in the venue listing, 10 only on arXiv with a reworded
abstract, 7 nowhere, and three look-alikes per paper (same title and opening from another
year, same topic, near-identical title).

- precision = correct applied matches / applied matches (a wrong match is any applied
  match to a paper other than the record's own);
- recall = correct applied matches / records whose paper is in some source;
- requests per record = network requests / records, by source;
- time for 3,000 records: the per-paper requests scaled from this run (bulk listing pages
  counted as ceil(3000 / 1000) per venue), each source at its published interval (arXiv
  1 request / 3 s; Semantic Scholar 1 / s with a key, about 1 / 3 s in the shared pool;
  OpenReview no published limit, 1 / s here), requests made one after the other.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bib.resolve.session import open_session
from bib.resolve.sources import arxiv, openreview, semanticscholar
from bib.resolve.stage import resolve_records
from tests.resolve import corpus, servers

PAPERS = 3000


def source_of(path: str) -> str:
    return urlsplit(path).path.split("/")[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    papers = corpus.papers()
    running = servers.serve(papers)
    base, state = next(running)
    os.environ.update(
        BIB_OPENREVIEW_URL=f"{base}/openreview",
        BIB_ARXIV_URL=f"{base}/arxiv",
        BIB_SEMANTICSCHOLAR_URL=f"{base}/s2",
    )
    os.environ.pop("SEMANTIC_SCHOLAR_API_KEY", None)
    records = corpus.seed_records()
    with tempfile.TemporaryDirectory() as cache:
        session = open_session(online=True, cache_dir=Path(cache))
        session.http.sleep = lambda seconds: None
        outcomes = resolve_records(records, session.resolver)
        session.close()
    running.close()
    by_id = {p.ident: p for p in papers} | {p.arxiv_id: p for p in papers}
    findable = set(corpus.ON_OPENREVIEW) | set(corpus.ON_ARXIV_ONLY)
    correct = wrong = 0
    for i, outcome in enumerate(outcomes):
        best = outcome.decision.best
        if not outcome.applied or best is None:
            continue
        truth = by_id[best.candidate.source_id.removeprefix("s2")].truth
        correct, wrong = (correct + 1, wrong) if truth == i else (correct, wrong + 1)
    verdicts = Counter(str(o.decision.verdict) for o in outcomes)
    requests = Counter(source_of(r) for r in state.requests)
    listing = sum(1 for r in state.requests if "content.venueid" in r)
    per_paper = {k: v - (listing if k == "openreview" else 0) for k, v in requests.items()}
    scale = PAPERS / len(records)
    intervals = {
        "openreview": openreview.INTERVAL,
        "arxiv": arxiv.INTERVAL,
        "s2": semanticscholar.INTERVAL_KEYED,
    }
    at_scale = {k: per_paper.get(k, 0) * scale for k in intervals}
    at_scale["openreview"] += math.ceil(PAPERS / openreview.PAGE)
    keyed = sum(at_scale[k] * intervals[k] for k in intervals)
    shared = keyed + at_scale["s2"] * (semanticscholar.INTERVAL_SHARED - 1.0)
    result = {
        "records": len(records),
        "verdicts": dict(verdicts),
        "precision": correct / (correct + wrong) if correct + wrong else 1.0,
        "recall": correct / len(findable),
        "wrong_matches": wrong,
        "requests": dict(requests),
        "requests_per_record": sum(requests.values()) / len(records),
        "requests_for_3000": {k: round(v) for k, v in at_scale.items()},
        "minutes_for_3000_with_s2_key": round(keyed / 60, 1),
        "minutes_for_3000_shared_s2_pool": round(shared / 60, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, value in result.items():
        print(f"{name:34} {value}")


if __name__ == "__main__":
    main()
