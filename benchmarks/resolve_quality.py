"""Resolve quality on the look-alike corpus, requests per record, and the time a 3,000-paper
list takes at the services' published rate limits.

Usage: PYTHONPATH=. python benchmarks/resolve_quality.py [--records 3000] [--json]

Quality. The 57 seed abstracts (real ICML 2026 abstracts) are resolved with every source
(OpenReview, arXiv, Semantic Scholar; OpenAlex, Crossref, DBLP as enrichers) against the
strict local servers of tests/resolve over the corpus of tests/resolve/corpus.py: 40 papers
in the venue listing, 10 only on arXiv with a reworded abstract, 7 nowhere, three look-alikes
per paper (same title and opening from another year, same topic, near-identical title),
and the look-alikes' published versions in every enricher.
- precision = correct applied matches / applied matches; recall = correct applied matches /
  records whose paper is in some source;
- enrichment: the arXiv-only records again without a venue (as a BibTeX or CSL input gives
  them), so the enrichers are asked: DOIs and venues right / wrong / missing.

Scale. `--records` synthetic paper-list records (six sentences drawn from the seed
abstracts' sentences; the same shares of listed / arXiv-only / nowhere papers) against one
server per source (so each source is its own host, as in real use). From its request counts:
- one after another: the sum over sources of requests x the source's published interval;
- hosts side by side (what `bib` does): the bulk requests first (listing pages, batch
  fetches), then the busiest per-paper host's requests x its interval.
Intervals: OpenReview 1 s (no published limit), arXiv 3 s (its API terms), Semantic Scholar
1 s with a key, 3 s without (100 requests / 5 min shared pool), OpenAlex and Crossref 0.1 s,
DBLP 1 s. That hosts are really asked side by side is a test
(tests/resolve/test_scale.py), not a timing here: on a shared machine the local scoring
time would swamp any scaled-down replay of the waits.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bib.record import Record, evolve
from bib.resolve.session import Session, open_session
from bib.resolve.sources import arxiv, crossref, dblp, openalex, openreview, semanticscholar
from bib.resolve.stage import Outcome, resolve_records
from tests.resolve import corpus, servers
from tests.resolve.conftest import SOURCE_URLS

INTERVALS = {
    "openreview": openreview.INTERVAL,
    "arxiv": arxiv.INTERVAL,
    "s2": semanticscholar.INTERVAL_KEYED,
    "openalex": openalex.INTERVAL,
    "crossref": crossref.INTERVAL,
    "dblp": dblp.INTERVAL,
}
BULK = ("listing", "batch")


@dataclass
class Served:
    state: servers.State

    def requests(self) -> list[str]:
        return self.state.requests


@contextmanager
def served(papers: list[corpus.Paper], *, separate: bool) -> Iterator[Served]:
    """The test server(s), every BIB_*_URL pointing at them; one server per source when
    `separate` (each source a host of its own, so hosts can be asked side by side)."""
    with ExitStack() as stack:
        state = servers.State(papers)
        base = ""
        for variable, path in SOURCE_URLS.items():
            if separate or not base:
                running = servers.serve(papers, state)
                stack.callback(running.close)
                base, _ = next(running)
            os.environ[variable] = f"{base}/{path}"
        os.environ.pop("SEMANTIC_SCHOLAR_API_KEY", None)
        os.environ.pop("OPENALEX_API_KEY", None)
        yield Served(state)


def kind(request: str) -> str:
    """The source a request went to, or 'listing' / 'batch' for the bulk requests."""
    if "content.venueid" in request:
        return "listing"
    if request.startswith("POST"):
        return "batch"
    return request.split("/")[1]


def resolved(records: list[Record], cache: Path) -> list[Outcome]:
    session: Session = open_session(online=True, cache_dir=cache)
    session.http.sleep = lambda seconds: None
    try:
        return resolve_records(records, session.resolver)
    finally:
        session.close()


def truth_of(papers: list[corpus.Paper]) -> dict[str, int | None]:
    return {p.ident: p.truth for p in papers} | {p.arxiv_id: p.truth for p in papers}


def quality(outcomes: list[Outcome], papers: list[corpus.Paper]) -> dict[str, Any]:
    truth = truth_of(papers)
    correct = wrong = 0
    for i, outcome in enumerate(outcomes):
        best = outcome.decision.best
        if outcome.applied and best is not None:
            if truth[best.candidate.source_id.removeprefix("s2")] == i:
                correct += 1
            else:
                wrong += 1
    findable = sum(1 for i in range(len(outcomes)) if corpus.place(i) < 50)
    return {
        "precision": correct / (correct + wrong) if correct + wrong else 1.0,
        "recall": correct / findable if findable else 1.0,
        "wrong_matches": wrong,
        "verdicts": dict(Counter(str(o.decision.verdict) for o in outcomes)),
    }


def enrichment(outcomes: list[Outcome]) -> dict[str, int]:
    right = wrong = missing = 0
    for i, outcome in enumerate(outcomes, 40):
        expected = corpus.final_version(i)
        got = (outcome.record.venue, outcome.record.doi)
        if expected is None:
            wrong += got != ("", "")
        elif got == (expected.venue, expected.doi):
            right += 1
        elif got == ("", ""):
            missing += 1
        else:
            wrong += 1
    return {"right": right, "wrong": wrong, "missing": missing}


def minutes(counts: Counter[str], s2_interval: float) -> dict[str, float]:
    intervals = {**INTERVALS, "s2": s2_interval, "listing": 1.0, "batch": s2_interval}
    per_host = {k: n * intervals[k] for k, n in counts.items()}
    bulk = sum(per_host.get(k, 0.0) for k in BULK)
    paper = [v for k, v in per_host.items() if k not in BULK]
    return {
        "one_after_another": round(sum(per_host.values()) / 60, 1),
        "hosts_side_by_side": round((bulk + max(paper, default=0.0)) / 60, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, Any] = {}

    papers = corpus.papers()
    seeds = corpus.seed_records()
    with served(papers, separate=False) as server, tempfile.TemporaryDirectory() as cache:
        outcomes = resolved(seeds, Path(cache))
        counts = Counter(kind(r) for r in server.requests())
    result["corpus"] = {
        "records": len(seeds),
        **quality(outcomes, papers),
        "requests": dict(counts),
        "requests_per_record": round(sum(counts.values()) / len(seeds), 3),
    }
    bare = [evolve(r, venue="") for r in seeds[40:50]]
    with served(papers, separate=False) as server, tempfile.TemporaryDirectory() as cache:
        result["enrichment"] = enrichment(resolved(bare, Path(cache)))

    records = corpus.synthetic_records(args.records)
    scale_papers = corpus.papers(records)
    with served(scale_papers, separate=True) as server, tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        outcomes = resolved(records, Path(cache))
        local = time.perf_counter() - started
        counts = Counter(kind(r) for r in server.requests())
    result["scale"] = {
        "records": len(records),
        **quality(outcomes, scale_papers),
        "requests": dict(counts),
        "requests_per_record": round(sum(counts.values()) / len(records), 3),
        "local_run_seconds": round(local, 1),
        "minutes_with_s2_key": minutes(counts, semanticscholar.INTERVAL_KEYED),
        "minutes_without_s2_key": minutes(counts, semanticscholar.INTERVAL_SHARED),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for part, values in result.items():
        print(part)
        for name, value in values.items():
            print(f"  {name:34} {value}")


if __name__ == "__main__":
    main()
