"""Tagging speed on one core, beside YAKE measured in the same run.

Usage: PYTHONPATH=. python benchmarks/tags_speed.py [--quick] [--n N] [--yake-n N]

It times the build that is installed (compiled with mypyc, or pure Python: the first line
says which, as `bib --version` does); `benchmarks/compiled_speed.py` times both in one run.

The 57 seed abstracts are replicated to N abstracts (default 20,000; --quick: 2,000).
Three figures, each the best of three runs in this one process (one core), timed in CPU
seconds of this process (`time.process_time`) so that other jobs on a shared machine do
not count against it:
- topic matching (`match_topics`) with the full shipped vocabulary, compiled beforehand
  (compiling once per run is part of the design; its time is reported separately, with
  the time to read it back from the cache that later runs use);
- the whole tagging stage (`tag_stream`, as the pipeline runs it: topics, method, datasets,
  models, code, contribution);
- what `bib convert` runs by default (`bib.convert.tag_stages` with the kinds it writes,
  topic, method, dataset and model: the method names, the links, the derived titles, then
  `tag_stream`; key phrases are not among them, `--tags keyphrase` asks for them);
- key phrases (`keyphrases`, the `keyphrase` kind alone, with the topic automaton that
  leaves vocabulary phrases to the topic tags), and the stage with them;
- a plain word split (`re.findall(r"\\w+", abstract)`) over the same abstracts: the
  reference the key phrases are measured against, since any key-phrase extractor reads
  every word at least once; its rate moves with the machine's load as the tagger's does,
  so the ratio holds where absolute rates do not;
- YAKE (top 10 keyphrases) on a smaller sample, because it is about 100 times slower;
- the design alternative: the same keys as one regular expression (an alternation, longest
  first) over the same prepared text, scanning only, on the YAKE sample.
The ratios are abstracts/s of topic matching over abstracts/s of YAKE and of the regex.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bib.extract  # noqa: E402
from bib.convert import tag_stages  # noqa: E402
from bib.extract.keyphrases import keyphrases  # noqa: E402
from bib.extract.tags import DEFAULT_KINDS, tag_stream  # noqa: E402
from bib.extract.topics import match_topics  # noqa: E402
from bib.extract.vocabulary import Vocabulary, cached_compile, compile_topics, shipped  # noqa: E402
from bib.record import Record, TagKind  # noqa: E402
from bib.writers import DEFAULT_TAG_KINDS  # noqa: E402

SEEDS = ROOT / "seeds"
_WORDS = re.compile(r"\w+")


def seed_abstracts() -> list[str]:
    out = []
    for path in sorted(SEEDS.glob("*.txt")):
        paragraphs = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")]
        out += [p for p in paragraphs[1:] if p]
    return out


def best_rate(run, items: list, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for item in items:
            run(item)
        best = min(best, time.process_time() - started)
    return len(items) / best


def run_stages(
    stages: list[Callable[[Iterable[Record]], Iterable[Record]]], batch: list[Record]
) -> None:
    """Records through `stages` as `bib convert` drives them, each dropped as it comes."""
    flow: Iterable[Record] = batch
    for run in stages:
        flow = run(flow)
    deque(flow, 0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 abstracts, 20 for YAKE")
    parser.add_argument("--n", type=int, default=None, help="abstracts for the tagger")
    parser.add_argument("--yake-n", type=int, default=None, help="abstracts for YAKE")
    args = parser.parse_args(argv)
    n = args.n or (2_000 if args.quick else 20_000)
    yake_n = args.yake_n or (20 if args.quick else 200)
    seeds = seed_abstracts()
    abstracts = [seeds[i % len(seeds)] for i in range(n)]
    average = sum(map(len, abstracts)) / len(abstracts)

    vocabulary = shipped()
    started = time.perf_counter()
    compiled = compile_topics(vocabulary)
    compile_ms = 1000 * (time.perf_counter() - started)
    cached_compile(Vocabulary(topics=dict(vocabulary.topics)))  # written to the cache if not there
    started = time.perf_counter()
    cached_compile(Vocabulary(topics=dict(vocabulary.topics)))
    cached_ms = 1000 * (time.perf_counter() - started)
    ascii_share = sum(text.isascii() for text in seeds) / len(seeds)
    vocabulary.compiled  # noqa: B018 -- build the cached automata before timing
    phrases = compiled.phrases

    topics = best_rate(lambda text: match_topics(text, vocabulary), abstracts)
    records = [Record(id=str(i), abstract=text) for i, text in enumerate(abstracts)]
    # each tagged record dropped as it comes, as a streaming pipeline does (a list of 20,000
    # would time the garbage collector walking it)
    whole = best_rate(lambda batch: deque(tag_stream(batch, vocabulary=vocabulary), 0), [records])
    stage = whole * len(records)
    stages = tag_stages(kinds=DEFAULT_TAG_KINDS)
    convert = best_rate(lambda batch: run_stages(stages, batch), [records]) * len(records)
    compiled_topics = vocabulary.compiled
    phrases_rate = best_rate(lambda text: keyphrases(text, compiled_topics), abstracts)
    split_rate = best_rate(_WORDS.findall, abstracts)
    every = {*DEFAULT_KINDS, TagKind.KEYPHRASE}
    whole_with = best_rate(
        lambda batch: deque(tag_stream(batch, vocabulary=vocabulary, kinds=every), 0), [records]
    )
    stage_with = whole_with * len(records)

    from bib.extract.vocabulary import SCAN_BYTES_LOWER

    keys = sorted(compiled.automaton.keys(), key=len, reverse=True)
    one_regex = re.compile(" (" + "|".join(re.escape(k[1:]) for k in keys) + ")(?= )")

    def regex_scan(text: str) -> list[str]:
        padded = b" " + text.encode("ascii", "replace") + b" "
        return one_regex.findall(padded.translate(SCAN_BYTES_LOWER).decode())

    regex_rate = best_rate(regex_scan, abstracts[:yake_n], repeats=1)

    import yake

    extractor = yake.KeywordExtractor(lan="en", n=3, top=10)
    yake_rate = best_rate(extractor.extract_keywords, abstracts[:yake_n], repeats=1)

    print(
        f"{n} abstracts (seeds replicated, {average:.0f} characters on average, "
        f"{ascii_share:.0%} pure ASCII), one core, CPU time"
    )
    print(f"extractors: {bib.extract.BUILD.reason} (benchmarks/compiled_speed.py: both builds)")
    print(
        f"vocabulary: {len(vocabulary.topics)} topics, {phrases} surface forms, "
        f"compiled in {compile_ms:.0f} ms, read from the cache in {cached_ms:.1f} ms"
    )
    print(f"topic matching:      {topics:10,.0f} abstracts/s")
    written = ",".join(k.value for k in DEFAULT_TAG_KINDS)
    print(f"whole tagging stage: {stage:10,.0f} abstracts/s")
    print(f"bib convert's stages:{convert:10,.0f} abstracts/s "
          f"(methods, links, titles, tags of {written})")  # fmt: skip
    print(f"key phrases:         {phrases_rate:10,.0f} abstracts/s")
    print(f"plain word split:    {split_rate:10,.0f} abstracts/s "
          f"(key phrases take {split_rate / phrases_rate:.1f}x its time, "
          f"bib convert's stages {split_rate / convert:.1f}x)")  # fmt: skip
    print(f"stage + key phrases: {stage_with:10,.0f} abstracts/s")
    print(f"YAKE top-10 ({yake_n}):    {yake_rate:10,.1f} abstracts/s")
    print(f"one regex, scan only: {regex_rate:10,.1f} abstracts/s")
    print(f"topic matching / YAKE: {topics / yake_rate:,.0f}x; tagging stage / YAKE: "
          f"{stage / yake_rate:,.0f}x; key phrases / YAKE: {phrases_rate / yake_rate:,.0f}x; "
          f"topic matching / one regex: {topics / regex_rate:,.0f}x")  # fmt: skip


if __name__ == "__main__":
    main()
