"""Where the tagging stage's time goes: each part alone, as multiples of a plain word split.

Usage: PYTHONPATH=. python benchmarks/tags_profile.py [--n N] [--repeats R]

The seed abstracts replicated to N (default 2,000), the shipped vocabulary compiled
beforehand. Each part of `tag_stream` (every kind but key phrases) is run alone over all N,
on the inputs the stage gives it (made once, outside the timing), best of R runs in CPU
seconds of this process. The parts are what `bib.extract.tags._tag_batch` calls in turn;
`topic ranking` is `match_topics` less its `scan`. The word split
(`re.findall(r"\\w+", abstract)`) is timed in the same run: on a shared machine the
multiples hold where microseconds do not. The parts need not add up to the stage: it also
makes the tags and the records, and the garbage collector runs. The last three parts are
the stages `bib convert` runs before the tagging stage (`bib.convert.tag_stages`), each on
what the one before it gives: what a user of `bib convert` waits for besides the tags.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tags_speed import seed_abstracts  # noqa: E402

from bib.extract import tags, topics  # noqa: E402
from bib.extract.entities import match_entities  # noqa: E402
from bib.extract.methods import tag_methods  # noqa: E402
from bib.extract.titles import derive_titles  # noqa: E402
from bib.extract.urls import tag_urls  # noqa: E402
from bib.extract.vocabulary import shipped, word_view  # noqa: E402
from bib.record import Record  # noqa: E402

_WORDS = re.compile(r"\w+")


def best_seconds(run: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2_000, help="abstracts")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each part (best kept)")
    args = parser.parse_args(argv)
    seeds = seed_abstracts()
    texts = [seeds[i % len(seeds)] for i in range(args.n)]
    records = [Record(id=str(i), abstract=text) for i, text in enumerate(texts)]
    vocabulary = shipped()
    automaton = vocabulary.compiled.automaton
    words_automaton = vocabulary.tag_words
    views = [word_view(text) for text in texts]
    words = [list(words_automaton.iter(view)) for view in views]
    cues = tags._ALL_CUES
    claims = [tags._contributions(t, cues, w) for t, w in zip(texts, words, strict=True)]

    named = list(tag_methods(records))
    linked = list(tag_urls(named))

    def topic_automaton() -> None:
        for view in views:
            deque(automaton.iter_long(view + " "), 0)

    parts: dict[str, Callable[[], object]] = {
        "whole stage (tag_stream)": lambda: deque(tags.tag_stream(records), 0),
        "word view (word_view)": lambda: [word_view(text) for text in texts],
        "names and cue words pass": lambda: [list(words_automaton.iter(v)) for v in views],
        "contribution cues": lambda: [
            tags._contributions(t, cues, w) for t, w in zip(texts, words, strict=True)
        ],
        "topic automaton pass alone": topic_automaton,
        "topic scan (topics.scan)": lambda: [
            topics.scan(t, vocabulary, v) for t, v in zip(texts, views, strict=True)
        ],
        "topics (scan and ranking)": lambda: [
            tags._topic_tags(r, vocabulary, tags.DEFAULT_MAX_TOPICS, v, c, False)
            for r, v, c in zip(records, views, claims, strict=True)
        ],
        "datasets and models": lambda: [
            match_entities(t, vocabulary, names=w) for t, w in zip(texts, words, strict=True)
        ],
        "method, code, records": lambda: [
            tags._finish(r, [], c, tags.DEFAULT_KINDS) for r, c in zip(records, claims, strict=True)
        ],
        "bib convert: method names": lambda: deque(tag_methods(records), 0),
        "bib convert: links": lambda: deque(tag_urls(named), 0),
        "bib convert: derived titles": lambda: deque(derive_titles(linked), 0),
    }
    split = best_seconds(lambda: [_WORDS.findall(text) for text in texts], args.repeats)
    timed = {name: best_seconds(run, args.repeats) for name, run in parts.items()}
    ranking = timed["topics (scan and ranking)"] - timed["topic scan (topics.scan)"]
    per = 1e6 / args.n
    print(f"{args.n} abstracts, one core, CPU time, best of {args.repeats}")
    print(f"{'plain word split':30s} {split * per:7.1f} us   1.00 x the word split")
    for name, seconds in [*timed.items(), ("topic ranking (by difference)", ranking)]:
        print(f"{name:30s} {seconds * per:7.1f} us {seconds / split:6.2f} x the word split")


if __name__ == "__main__":
    main()
