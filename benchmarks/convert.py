"""Benchmark `bib convert`: synthetic paper lists of N abstracts -> BibTeX and CSL-JSON.

Abstracts are built from the seed sentences (each with its own coined method name, so
keys and titles are exercised). Each N and output runs `bib convert` in a fresh process
so that peak memory (ru_maxrss) belongs to that run alone; another process times each
stage apart. The same run parses the BibTeX we wrote with bibtexparser 1.4 and pybtex (on
a sample: they are far slower) and prints the ratios.

    python benchmarks/convert.py                 # N = 1k, 10k, 100k
    python benchmarks/convert.py --quick         # N = 1k only
    python benchmarks/convert.py --sizes 30000   # any N
    python benchmarks/convert.py --repeat 3      # the fastest of 3 runs of each
    python benchmarks/convert.py --bib refs.bib  # .bib input beside pybtex, bibtexparser, pandoc
    python benchmarks/convert.py --texlive 20000 # the same on TeX Live's .bib files, 20,000 entries
    python benchmarks/convert.py --texlive 20000 --reference ../main   # and main's bib convert
    python benchmarks/convert.py --jobs 1 2 --sizes 20000 100000   # the --jobs sweep
    python benchmarks/convert.py --jobs 1 2 --sizes 20000 --jobs-texlive   # on TeX Live's .bib
    python benchmarks/convert.py --bib-memory 10000 50000 100000   # peak RSS by .bib size

Every single-process figure is taken with `--jobs 1` (the default uses every core, and the
CPU time of one process would then leave out its workers'). The `--jobs` sweep gives each
run's wall time, the CPU time of the main process and of its workers, and the speed-up over
`--jobs 1` in the same sweep, beside the bound the main process's share sets (its CPU time
is work the workers cannot take over).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


MODES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bibtex": ((".bib",), ()),
    "csl-json": ((".json",), ()),
    "both": ((".bib", ".json"), ()),
    "methods": ((".bib",), ("--tags", "method")),
    "methods-json": ((".json",), ("--tags", "method")),
}
"""End-to-end runs of `bib convert`, each in its own process: the outputs it writes and
further options (`methods`, `methods-json`: keywords from method names alone, so no topic,
dataset or model matching: what conversion costs without the tags it does not write)."""


def child(mode: str, path: Path) -> dict[str, float]:
    """Runs in its own process: `bib convert` as the command line runs it (reading, merging,
    extraction, keys, tags, writing through temp files), CPU-timed, with the peak RSS."""
    from bib.cli import main

    suffixes, options = MODES[mode]
    outputs = [f"-o{path.with_name(path.stem + '-' + mode + suffix)}" for suffix in suffixes]
    start = time.process_time()
    wall = time.perf_counter()
    main.main(["convert", str(path), *outputs, "--jobs", "1", *options], standalone_mode=False)
    cpu = time.process_time() - start
    wall = time.perf_counter() - wall
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"cpu": cpu, "wall": wall, "rss_mib": rss_kib / 1024}


PHASES = ["start-up", "read", "stages", "keys", "write"]
"""Phases of the main process in the `--jobs` sweep: up to the first record read (imports,
options, vocabulary), reading and merging (with a list read ahead in workers: all of their
work too), the stages of what was not extracted ahead, keys, writing."""


def jobs_child(jobs: int, path: Path) -> dict[str, object]:
    """Runs in its own process: `bib convert -o .bib --jobs N`, its wall time, the CPU time
    of this (main) process and of its workers (reaped when each pool closes), the main
    process's CPU time by phase (`PHASES`) and while no worker runs (`alone`)."""
    from bib import convert, merge, parallel
    from bib.cli import main

    marks: dict[str, float] = {}
    pooled = [0.0]  # main CPU while a pool of workers runs

    def marking(name: str, function):  # type: ignore[no-untyped-def]
        def marked(*args, **kwargs):  # type: ignore[no-untyped-def]
            marks.setdefault(name, time.process_time())
            return function(*args, **kwargs)

        return marked

    def pooling(function):  # type: ignore[no-untyped-def]
        def pooled_map(*args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.process_time()
            yield from function(*args, **kwargs)
            pooled[0] += time.process_time() - start

        return pooled_map

    groups = merge.groups

    def grouping(items):  # type: ignore[no-untyped-def]
        marks.setdefault("read", time.process_time())
        found = groups(items)
        marks.setdefault("stages", time.process_time())
        return found

    merge.groups = grouping
    merge.possible_duplicates = marking("keys", merge.possible_duplicates)
    convert.write = marking("write", convert.write)
    parallel.ordered_map = pooling(parallel.ordered_map)
    out = path.with_name(f"{path.stem}-jobs{jobs}.bib")
    out.unlink(missing_ok=True)  # an existing output would be read for stable keys
    wall = time.perf_counter()
    main.main(["convert", str(path), "-o", str(out), "--jobs", str(jobs)], standalone_mode=False)
    wall = time.perf_counter() - wall
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    main_cpu = own.ru_utime + own.ru_stime
    ends = [marks.get(name, 0.0) for name in PHASES[1:]] + [time.process_time()]
    starts = [0.0, *ends[:-1]]
    return {
        "wall": wall,
        "main_cpu": main_cpu,
        "alone": main_cpu - pooled[0],
        "workers_cpu": workers.ru_utime + workers.ru_stime,
        "rss_mib": own.ru_maxrss / 1024,
        "workers_mib": workers.ru_maxrss / 1024,
        "phases": {n: end - start for n, start, end in zip(PHASES, starts, ends, strict=True)},
        "digest": int.from_bytes(hashlib.sha256(out.read_bytes()).digest()[:6], "big"),
    }


def jobs_sweep(sizes: list[int], jobs: list[int], repeat: int, texlive: bool = False) -> None:
    """`--jobs` against `--jobs 1` in the same run, each the fastest wall time of `repeat`.

    `Amdahl` is the speed-up on `cores` processors that the CPU times allow (docs/convert.md):
    a run takes at least the main process's CPU time while no worker runs (`alone`: start-up,
    keys, writing, and whatever reading comes before the workers) plus all other CPU time,
    the workers' and the main process's beside them, shared by the cores. `--jobs 1`'s CPU
    time over that. On a loaded machine the wall speed-up measures the load as much as `bib`.
    `texlive`: the input is N entries of TeX Live's `.bib` files (`texlive_bib`), not a list."""
    cores = len(os.sched_getaffinity(0))
    what = "TEXLIVE.bib" if texlive else "LIST"
    print(f"--jobs sweep: `bib convert {what} -o x.bib --jobs N`, {cores} usable cores, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"{'N':>8} {'jobs':>4} {'wall s':>7} {'main CPU':>9} {'alone':>6} {'workers':>8} "
          f"{'main MiB':>9} {'worker MiB':>11} {'speed-up':>8} {'Amdahl':>7} "
          f"{'same':>5}")  # fmt: skip
    phases: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / (f"jobs{n}.bib" if texlive else f"jobs{n}.txt")
            if texlive:
                texlive_bib(n, path, for_pandoc=False)
            else:
                paper_list(n, path)
            single: dict[str, Any] = {}
            for count in jobs:
                runs = [run_child("jobs", str(path), str(count)) for _ in range(repeat)]
                best = min(runs, key=lambda run: run["wall"])
                single = single or best
                shared = best["main_cpu"] - best["alone"] + best["workers_cpu"]
                amdahl = single["main_cpu"] / (best["alone"] + shared / min(cores, count))
                print(
                    f"{n:>8} {count:>4} {best['wall']:>7.1f} {best['main_cpu']:>9.2f} "
                    f"{best['alone']:>6.2f} {best['workers_cpu']:>8.2f} {best['rss_mib']:>9.1f} "
                    f"{best['workers_mib']:>11.1f} {single['wall'] / best['wall']:>7.2f}x "
                    f"{amdahl:>6.2f}x {'yes' if best['digest'] == single['digest'] else 'NO':>5}"
                )
                phases.append(f"{n:>8} {count:>4} " + " ".join(
                    f"{best['phases'][name]:>9.2f}" for name in PHASES
                ))  # fmt: skip
    print("(alone: main CPU while no worker runs; speed-up: --jobs 1's wall time over this "
          "one's; Amdahl: --jobs 1's CPU time over alone + the rest of all CPU / cores;\n"
          " same: output byte-identical to --jobs 1's)")  # fmt: skip
    print("\nMain process CPU seconds by phase:")
    print(f"{'N':>8} {'jobs':>4} " + " ".join(f"{name:>9}" for name in PHASES))
    print("\n".join(phases))


def stages(path: Path) -> dict[str, float]:
    """Runs in its own process: each stage over all records in turn, CPU-timed apart, with
    the garbage collection settings of `bib convert`."""
    from bib import keys, merge, readers, writers
    from bib.convert import BATCH_GC_THRESHOLD
    from bib.extract.methods import tag_methods
    from bib.extract.tags import tag_stream
    from bib.extract.titles import derive_titles
    from bib.extract.urls import tag_urls
    from bib.extract.vocabulary import shipped

    shipped()  # compiled once per run, as `bib convert` does before reading
    gc.freeze()
    gc.set_threshold(BATCH_GC_THRESHOLD, *gc.get_threshold()[1:])
    times: dict[str, float] = {}

    def timed(name: str, step):  # type: ignore[no-untyped-def]
        start = time.process_time()
        out = step()
        times[name] = time.process_time() - start
        return out

    records = timed("read", lambda: list(readers.read(path)))
    records = timed("merge", lambda: merge.merge(records)[0])
    for name, stage in (("methods", tag_methods), ("urls", tag_urls), ("titles", derive_titles),
                        ("tags", tag_stream)):  # fmt: skip
        records = timed(name, lambda stage=stage, records=records: list(stage(records)))
    records = timed("keys", lambda: sorted(keys.assign(records), key=lambda r: r.key))
    for fmt in ("bibtex", "csl-json"):
        timed(fmt, lambda fmt=fmt: sum(map(len, writers.stream(records, fmt))))
    return times


def sample_bib(bib_path: Path, count: int) -> str:
    text = bib_path.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"^@", text, re.MULTILINE)]
    return text[: starts[count]] if len(starts) > count else text


_ENTRY_KEY = re.compile(r"^([ \t]*@[ \t]*([A-Za-z]+)[ \t]*[{(][ \t]*)([^,\s]+)", re.MULTILINE)
_CROSSREF = re.compile(r"(\bcrossref\s*=\s*[{\"])([^}\"]+)", re.IGNORECASE)
_NOT_ENTRIES = frozenset({"string", "preamble", "comment"})


def texlive_bib(n: int, path: Path, for_pandoc: bool = True) -> int:
    """A real-looking `.bib` of `n` entries: TeX Live's UTF-8 bibliographies one after the
    other, again and again, each copy's keys (and crossrefs) renamed so that every key is new;
    `for_pandoc`: only the files pandoc reads. Returns the entries written (fewer when TeX
    Live's .bib files are not installed)."""
    root = subprocess.run(
        ["kpsewhich", "-var-value", "TEXMFDIST"], capture_output=True, text=True, check=False
    ).stdout.strip()
    texts = []
    for bib in sorted(Path(root, "bibtex", "bib").rglob("*.bib")) if root else []:
        try:
            text = bib.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # jurabib's Latin-1 test file
        if for_pandoc and _pandoc_refuses(bib):
            continue  # pandoc must read the whole file for the comparison
        texts.append(text)
    written, copy = 0, 0
    with path.open("w", encoding="utf-8") as out:
        while texts and written < n:
            for text in texts:

                def rename(m: re.Match[str], copy: int = copy) -> str:
                    if m.group(2).lower() in _NOT_ENTRIES or not copy:
                        return m.group()
                    return f"{m.group(1)}{m.group(3)}-r{copy}"

                renamed = _ENTRY_KEY.sub(rename, text)
                if copy:
                    renamed = _CROSSREF.sub(lambda m, c=copy: f"{m[1]}{m[2]}-r{c}", renamed)
                starts = [
                    m.start()
                    for m in _ENTRY_KEY.finditer(renamed)
                    if m.group(2).lower() not in _NOT_ENTRIES
                ]
                if written + len(starts) > n:
                    renamed = renamed[: starts[n - written]]
                    starts = starts[: n - written]
                out.write(renamed + "\n")
                written += len(starts)
                if written >= n:
                    break
            copy += 1
    return written


def _pandoc_refuses(path: Path) -> bool:
    import shutil

    if shutil.which("pandoc") is None:
        return False
    done = subprocess.run(
        ["pandoc", "-f", "bibtex", "-t", "csljson", str(path)], capture_output=True
    )
    return done.returncode != 0


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


def bib_child(mode: str, path: Path) -> dict[str, float]:
    """Runs in its own process: one reader of a `.bib` over the whole file, CPU-timed, with
    the peak RSS and the entries it found."""
    start = time.process_time()
    if mode == "bib-convert":
        from bib.cli import main

        out = path.with_name(path.stem + "-bench.json")
        out.unlink(missing_ok=True)  # an existing output would be read for stable keys
        main.main(["convert", str(path), "-o", str(out), "--jobs", "1"], standalone_mode=False)
        count = len(json.loads(out.read_text(encoding="utf-8")))
    elif mode == "bib-read":  # reading alone: the .bib to Records, no merging, tags, writing
        from bib.readers.bibtex import read

        count = sum(1 for _ in read(path.read_bytes(), str(path)))
    elif mode == "bib-parse":
        from bib.readers.bibtex_syntax import parse

        count = len(parse(path.read_text(encoding="utf-8"), str(path)).entries)
    elif mode == "pybtex":
        import pybtex.errors
        from pybtex.database import parse_file

        pybtex.errors.set_strict_mode(False)
        count = len(parse_file(str(path), "bibtex").entries)
    else:
        import bibtexparser
        from bibtexparser.bibdatabase import UndefinedString

        text = sample_bib(path, SAMPLE)
        for _ in range(100):  # bibtexparser 1.4 stops at an undefined @string: define it
            start = time.process_time()
            try:
                count = len(bibtexparser.loads(text).entries)
                break
            except UndefinedString as undefined:
                text = f"@string{{{undefined.args[0]} = {{{undefined.args[0]}}}}}\n" + text
    cpu = time.process_time() - start
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"cpu": cpu, "rss_mib": rss_kib / 1024, "entries": count}


def pandoc_run(path: Path) -> dict[str, float] | None:
    """pandoc reading the `.bib` and writing CSL-JSON (its CPU and peak RSS), when installed."""
    import shutil

    if shutil.which("pandoc") is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        ["pandoc", "-f", "bibtex", "-t", "csljson", str(path)], capture_output=True, check=True
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"cpu": cpu, "rss_mib": after.ru_maxrss / 1024, "entries": len(json.loads(done.stdout))}


def bib_input(path: Path, repeat: int, reference: Path | None = None) -> None:
    """The `.bib` mode: every reader on the same file in this run, as ratios to bib's;
    `reference`: also `bib convert` of another checkout (the code before a change)."""
    runs: dict[str, dict[str, float]] = {}
    if reference is not None:
        for mode, name in (("bib-convert", "reference"), ("bib-read", "reference-read")):
            found = [run_child(mode, str(path), root=reference) for _ in range(repeat)]
            runs[name] = min(found, key=lambda run: run["cpu"])
    for mode in ("bib-convert", "bib-read", "bib-parse", "pybtex", "bibtexparser"):
        try:
            found = [run_child(mode, str(path)) for _ in range(repeat)]
        except subprocess.CalledProcessError as failed:  # bibtexparser 1.4 on some files
            print(f"{mode} failed: {failed.stderr.strip().splitlines()[-1:]}")
            continue
        runs[mode] = min(found, key=lambda run: run["cpu"])
    pandoc = pandoc_run(path)
    if pandoc is not None:
        runs["pandoc"] = pandoc
    ours = runs["bib-convert"]["entries"] / runs["bib-convert"]["cpu"]
    print(f"{path}: entries/s of CPU time and peak memory, each reader in its own process")
    reading = runs["bib-read"]["entries"] / runs["bib-read"]["cpu"]
    print(f"{'reader':>14} {'entries':>8} {'entries/s':>10} {'peak MiB':>9} {'bib convert x':>14} "
          f"{'bib read x':>11}")  # fmt: skip
    for mode, stats in runs.items():
        rate = stats["entries"] / stats["cpu"]
        print(f"{mode:>14} {stats['entries']:>8.0f} {rate:>10.0f} {stats['rss_mib']:>9.1f} "
              f"{ours / rate:>14.2f} {reading / rate:>11.2f}")  # fmt: skip
    if reference is not None:
        print(f"(reference: bib convert from {reference})")
    print(
        f"(bibtexparser 1.4 on the first {SAMPLE} entries; bibtexparser 2 cannot be installed "
        "beside pyzotero; bib-convert reads and writes CSL-JSON, as pandoc does; bib-read reads "
        "the .bib to Records (bib.readers.bibtex.read) and writes nothing, as pybtex's "
        "parse_file; bib-parse is the tokenizer alone)"
    )


def bib_memory(sizes: list[int]) -> None:
    """Peak memory of `bib convert FILE -o x.json` and of pybtex's `parse_file` on the same
    TeX Live `.bib` of each size, each in its own process, and the growth per entry."""
    print("Peak RSS (MiB) by .bib entries (TeX Live's files), each reader in its own process")
    print(f"{'entries':>8} {'bib convert':>12} {'pybtex':>8} {'bib/pybtex':>11} "
          f"{'bib KiB/entry':>14} {'pybtex KiB/entry':>17}")  # fmt: skip
    last: tuple[int, float, float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"texlive{n}.bib"
            texlive_bib(n, path, for_pandoc=False)
            ours = run_child("bib-convert", str(path))["rss_mib"]
            theirs = run_child("pybtex", str(path))["rss_mib"]
            growth = ("", "")
            if last is not None:
                growth = tuple(
                    f"{(now - then) * 1024 / (n - last[0]):.2f}"
                    for now, then in ((ours, last[1]), (theirs, last[2]))
                )  # type: ignore[assignment]
            print(f"{n:>8} {ours:>12.1f} {theirs:>8.1f} {ours / theirs:>10.2f}x "
                  f"{growth[0]:>14} {growth[1]:>17}")  # fmt: skip
            last = (n, ours, theirs)
    print("(KiB/entry: growth of the peak per extra entry since the previous size)")


def run_child(*args: str, root: Path = ROOT) -> dict[str, Any]:
    """One child run of this script on the `bib` in `root` (a checkout; this one's own)."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        capture_output=True, text=True, check=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )  # fmt: skip
    return json.loads(out.stdout)


def best_of(repeat: int, mode: str, path: str) -> dict[str, float]:
    """The run with the least CPU time of `repeat` (a shared machine only ever slows a run
    down), with the highest peak memory of them all."""
    runs = [run_child(mode, path) for _ in range(repeat)]
    best = min(runs, key=lambda run: run["cpu"])
    return best | {"rss_mib": max(run["rss_mib"] for run in runs)}


STAGES = ["read", "merge", "methods", "urls", "titles", "tags", "keys", "bibtex", "csl-json"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1k only")
    parser.add_argument("--sizes", type=int, nargs="+", help="N values (default 1k 10k 100k)")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each mode and N; the fastest is shown"
    )
    parser.add_argument("--bib", type=Path, help="time this .bib as input (beside other readers)")
    parser.add_argument(
        "--texlive", type=int, metavar="N", help="--bib on TeX Live's .bib files, N entries"
    )
    parser.add_argument(
        "--jobs", type=int, nargs="+", metavar="N", help="the --jobs sweep (default sizes 20k 100k)"
    )
    parser.add_argument(
        "--jobs-texlive", action="store_true", help="the --jobs sweep on TeX Live's .bib files"
    )
    parser.add_argument(
        "--bib-memory", type=int, nargs="+", metavar="N", help="peak RSS by .bib entries"
    )
    parser.add_argument(
        "--reference", type=Path, metavar="DIR",
        help="with --bib/--texlive: also bib convert from the checkout in DIR (before a change)",
    )  # fmt: skip
    parser.add_argument("--child", nargs="+", metavar="MODE PATH", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, path = args.child[0], Path(args.child[1])
        if mode == "jobs":
            print(json.dumps(jobs_child(int(args.child[2]), path)))
        elif mode in ("bib-convert", "bib-read", "bib-parse", "pybtex", "bibtexparser"):
            print(json.dumps(bib_child(mode, path)))
        else:
            print(json.dumps(stages(path) if mode == "stages" else child(mode, path)))
        return
    if args.bib_memory:
        bib_memory(args.bib_memory)
        return
    if args.jobs:
        jobs_sweep(args.sizes or [20_000, 100_000], args.jobs, args.repeat, args.jobs_texlive)
        return
    if args.bib:
        bib_input(args.bib.resolve(), args.repeat, args.reference)
        return
    if args.texlive:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"texlive{args.texlive}.bib"
            print(f"{texlive_bib(args.texlive, path)} entries from TeX Live's .bib files")
            bib_input(path, args.repeat, args.reference)
        return
    sizes = args.sizes or ([1_000] if args.quick else [1_000, 10_000, 100_000])
    ends: list[str] = []
    print("End to end (`bib convert`, one process per run; records/s of CPU time):")
    print(f"{'N':>8} {'mode':>12} {'records/s':>10} {'CPU s':>7} {'wall s':>7} {'peak MiB':>9} "
          f"{'KiB/rec':>8} {'x bibtexparser':>15} {'x pybtex':>9}")  # fmt: skip
    previous: dict[str, tuple[int, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"bench{n}.txt"
            paper_list(n, path)
            runs = {mode: best_of(args.repeat, mode, str(path)) for mode in MODES}
            refs = reference_rates(path.with_name(f"{path.stem}-bibtex.bib"))
            for mode, stats in runs.items():
                rate = n / stats["cpu"]
                # KiB/rec: peak growth per extra record since the previous N (flat memory: ~0)
                last = previous.get(mode)
                growth = (
                    (stats["rss_mib"] - last[1]) * 1024 / (n - last[0]) if last else float("nan")
                )
                previous[mode] = (n, stats["rss_mib"])
                print(
                    f"{n:>8} {mode:>12} {rate:>10.0f} {stats['cpu']:>7.2f} {stats['wall']:>7.1f} "
                    f"{stats['rss_mib']:>9.1f} {growth:>8.2f} "
                    f"{rate / refs['bibtexparser']:>15.1f} {rate / refs['pybtex']:>9.1f}"
                )
            times = run_child("stages", str(path))
            ends.append(f"{n:>8} " + " ".join(f"{n / times[s]:>9.0f}" for s in STAGES))
    print(f"(reference parsers timed on the first {SAMPLE} entries of our BibTeX output; "
          "x = our records/s divided by theirs; both = one run writing both files;\n"
          " methods, methods-json = .bib, .json with `--tags method`; "
          "KiB/rec = growth of the peak per extra record since the previous N)")  # fmt: skip
    print()
    print("Per stage (records/s of CPU time, each stage over all records in turn):")
    print(f"{'N':>8} " + " ".join(f"{s:>9}" for s in STAGES))
    print("\n".join(ends))


if __name__ == "__main__":
    main()
