"""What deciding generic topics by the list costs (bib.extract.generic), on one core.

Usage: PYTHONPATH=. python benchmarks/generic_cost.py [--n N] [--repeat R]

The same records (a synthetic paper list of N abstracts, `convert.paper_list`; default
5,000) go through the stages and the encoding `bib convert` runs, in this one process, two
ways, alternately, R times (default 3): the tagger with the vocabulary's `generic` flags
alone (no list stage), and the tagger marking loose topics with `GenericTopics` after it
(what `bib convert` runs). Times are CPU seconds of this process (`time.process_time`);
the ratio of the two, in the same run, is the cost. The run's own decision, and how many
records it would finish again, are printed too (that second pass is not timed here).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from convert import paper_list  # noqa: E402 (the benchmark's own synthetic list)

from bib import convert as engine  # noqa: E402
from bib import readers  # noqa: E402
from bib.extract import tags as tagging  # noqa: E402
from bib.extract import vocabulary as vocab  # noqa: E402
from bib.extract.generic import GenericTopics  # noqa: E402
from bib.writers import WriteOptions  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "list.txt"
        paper_list(args.n, path)
        records = list(readers.read(path))
    vocabulary = vocab.load(())
    kinds = tagging.DEFAULT_KINDS
    per_record = [s for s in engine.DEFAULT_STAGES if s is not tagging.tag_stream]
    flags = [*per_record, tagging.stage(vocabulary, tagging.DEFAULT_MAX_TOPICS, kinds)]
    loose = [*per_record, tagging.stage(vocabulary, tagging.DEFAULT_MAX_TOPICS, kinds, True)]
    listing = GenericTopics(vocabulary, tagging.DEFAULT_MAX_TOPICS)
    encode = engine.encoder(["bibtex", "csl-json"], WriteOptions())

    def timed(stages: list[engine.Stage], stage: GenericTopics | None) -> float:
        start = time.process_time()
        for _ in engine._prepare(engine._extract(records, stages), encode, False, stage):
            pass
        return time.process_time() - start

    ratios = []
    for _ in range(args.repeat):
        alone, listed = timed(flags, None), timed(loose, listing)
        ratios.append(listed / alone)
        print(f"flags alone {alone:.2f} s   loose + list stage {listed:.2f} s   "
              f"ratio {listed / alone:.3f}")  # fmt: skip
    tagged = list(engine._extract(records, loose))
    decided = listing.decide_all(tagged)
    changed = decided ^ listing.prior
    again = sum(1 for r in tagged if changed & set(listing.observe(r).loose))
    median = sorted(ratios)[len(ratios) // 2]
    print(f"median ratio {median:.3f}; generic: {sorted(decided)}")
    print(f"flags: {sorted(listing.prior)}; finished again: {again} of {len(records)}")


if __name__ == "__main__":
    main()
