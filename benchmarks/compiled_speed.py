"""The compiled extractors against their sources, in the same run (one core, CPU time).

Usage: python benchmarks/compiled_speed.py [--n 4000] [--rounds 3]

Each round runs two child processes one after the other, the installed build (compiled when
`bib --version` says so) and the sources (`BIB_PURE_PYTHON=1`), each timing on the same N
seed abstracts (best of three passes, `time.process_time`):
- the whole tagging stage (`tag_stream`, default kinds), as `tags_speed.py` times it;
- `bib convert`'s stages (`tag_stages` with the kinds it writes);
- key phrases (`keyphrases` with the topic automaton);
- a plain word split, the machine's pace in that process.
Rounds alternate the two builds so that a machine whose speed drifts favours neither; the
ratios are per round, compiled over sources.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ("stage", "convert", "keyphrases", "split")


def measure(n: int) -> dict[str, object]:
    """This process's rates, in abstracts/s, and which build it ran."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from tags_speed import _WORDS, best_rate, run_stages, seed_abstracts

    import bib.extract
    from bib.convert import tag_stages
    from bib.extract.keyphrases import keyphrases
    from bib.extract.tags import tag_stream
    from bib.extract.vocabulary import shipped
    from bib.record import Record
    from bib.writers import DEFAULT_TAG_KINDS

    seeds = seed_abstracts()
    abstracts = [seeds[i % len(seeds)] for i in range(n)]
    records = [Record(id=str(i), abstract=text) for i, text in enumerate(abstracts)]
    vocabulary = shipped()
    topics = vocabulary.compiled
    stages = tag_stages(kinds=DEFAULT_TAG_KINDS)
    stage = best_rate(lambda b: deque(tag_stream(b, vocabulary=vocabulary), 0), [records])
    return {
        "build": bib.extract.BUILD.reason,
        "stage": stage * n,
        "convert": best_rate(lambda b: run_stages(stages, b), [records]) * n,
        "keyphrases": best_rate(lambda text: keyphrases(text, topics), abstracts),
        "split": best_rate(_WORDS.findall, abstracts),
    }


def child(n: int, pure: bool) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "BIB_PURE_PYTHON"}
    if pure:
        env["BIB_PURE_PYTHON"] = "1"
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--n", str(n)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(out.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4000, help="abstracts (seeds replicated)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.n)))
        return
    for number in range(args.rounds):
        order = (False, True) if number % 2 == 0 else (True, False)
        found = {pure: child(args.n, pure) for pure in order}
        compiled, pure = found[False], found[True]
        print(f"round {number + 1}: installed build: {compiled['build']}")
        for figure in FIGURES:
            a, b = float(compiled[figure]), float(pure[figure])  # type: ignore[arg-type]
            print(f"  {figure:11} installed {a:9,.0f}/s  sources {b:9,.0f}/s  ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
