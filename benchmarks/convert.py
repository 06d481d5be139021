"""Benchmark `bib convert`: synthetic paper lists of N abstracts -> BibTeX and CSL-JSON.

Abstracts are built from the seed sentences (each with its own coined method name, so
keys and titles are exercised). Each N runs in a fresh process so that peak memory
(ru_maxrss) belongs to that N alone. The same run parses the BibTeX we wrote with
bibtexparser 1.4 and pybtex (on a sample: they are far slower) and prints the ratios.

    python benchmarks/convert.py            # N = 1k, 10k, 100k
    python benchmarks/convert.py --quick    # N = 1k only
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
SAMPLE = 2000
"""Entries the reference parsers read (bibtexparser 1.4 parses ~450/s)."""


def seed_sentences() -> list[str]:
    sentences: list[str] = []
    for path in sorted(SEEDS.glob("*.txt")):
        for paragraph in path.read_text(encoding="utf-8-sig").split("\n\n")[1:]:
            sentences += [s for s in re.split(r"(?<=[.!?])\s+", paragraph.strip()) if s]
    return sentences


def coined(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return f"Ben{letters.capitalize()}Net"


def paper_list(n: int, path: Path) -> None:
    sentences = seed_sentences()
    rng = random.Random(2026)
    with path.open("w", encoding="utf-8") as out:
        out.write("ICML 2026 Papers\n\n")
        for index in range(n):
            picked = rng.sample(sentences, 6)
            name = coined(index)
            picked.insert(2, f"We propose {name}, a framework for scalable sparse routing.")
            out.write(" ".join(picked) + "\n\n")


def child(n: int, path: Path) -> dict[str, float]:
    """Runs in its own process: the pipeline and both writers, timed by stage."""
    from bib import pipeline, writers

    times: dict[str, float] = {}
    wall = time.perf_counter()
    start = time.process_time()
    result = pipeline.run([path])
    times["pipeline"] = time.process_time() - start
    mark = time.process_time()
    bib_text = writers.render(result.records, "bibtex")
    times["bibtex"] = time.process_time() - mark
    mark = time.process_time()
    writers.render(result.records, "csl-json")
    times["csl-json"] = time.process_time() - mark
    times["total"] = time.process_time() - start
    times["wall"] = time.perf_counter() - wall
    path.with_suffix(".bib").write_text(bib_text, encoding="utf-8")
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"n": n, "records": len(result.records), "rss_mib": rss_kib / 1024, **times}


def sample_bib(bib_path: Path, count: int) -> str:
    text = bib_path.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"^@", text, re.MULTILINE)]
    return text[: starts[count]] if len(starts) > count else text


def reference_rates(bib_path: Path) -> dict[str, float]:
    import bibtexparser
    from pybtex.database import parse_string

    text = sample_bib(bib_path, SAMPLE)
    entries = text.count("\n@") + text.startswith("@")
    start = time.process_time()
    parsed = bibtexparser.loads(text)
    bibtexparser_rate = len(parsed.entries) / (time.process_time() - start)
    start = time.process_time()
    data = parse_string(text, "bibtex")
    pybtex_rate = len(data.entries) / (time.process_time() - start)
    assert len(parsed.entries) == len(data.entries) == entries
    return {"bibtexparser": bibtexparser_rate, "pybtex": pybtex_rate}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1k only")
    parser.add_argument("--child", nargs=2, metavar=("N", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(int(args.child[0]), Path(args.child[1]))))
        return
    sizes = [1_000] if args.quick else [1_000, 10_000, 100_000]
    columns = ["N", "records/s", "pipeline s", "bibtex s", "csl s", "wall s", "peak MiB",
               "KiB/rec", "x bibtexparser", "x pybtex"]  # fmt: skip
    widths = [8, 10, 10, 9, 7, 7, 9, 8, 15, 9]
    print(" ".join(f"{c:>{w}}" for c, w in zip(columns, widths, strict=True)))
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"bench{n}.txt"
            paper_list(n, path)
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(n), str(path)],
                capture_output=True, text=True, check=True,
                env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
            )  # fmt: skip
            stats = json.loads(out.stdout)
            rate = stats["records"] / stats["total"]
            refs = reference_rates(path.with_suffix(".bib"))
            print(
                f"{n:>8} {rate:>10.0f} {stats['pipeline']:>10.2f} {stats['bibtex']:>9.2f} "
                f"{stats['csl-json']:>7.2f} {stats['wall']:>7.1f} {stats['rss_mib']:>9.1f} "
                f"{stats['rss_mib'] * 1024 / n:>8.1f} "
                f"{rate / refs['bibtexparser']:>15.1f} {rate / refs['pybtex']:>9.1f}"
            )
    print(f"(CPU seconds of one process; reference parsers timed on the first {SAMPLE} entries "
          "of our BibTeX output; x = our records/s divided by theirs)")  # fmt: skip


if __name__ == "__main__":
    main()
