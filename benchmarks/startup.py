"""How long commands take to start, as ratios to `python -c "import click"` in the same run.

Every command is run as a whole process (what a user waits for), alternating with the
reference so that drift of the machine's speed hits both alike; the figure quoted is the
median of the per-pair ratios. The light commands run against a small library made first.

    python benchmarks/startup.py
    python benchmarks/startup.py --runs 30 --json startup.json
    python benchmarks/startup.py --instructions   # valgrind's instruction counts instead

Bytecode caching is switched on for the runs (PYTHONDONTWRITEBYTECODE is removed from the
environment): an installed package has its .pyc files, and without them every run compiles
the modules from source, which is most of what a short command would then cost.
`--instructions` counts instructions under valgrind's callgrind, one run each: the count is
the same however busy the machine is, so the ratios can be taken on a loaded machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = [sys.executable, "-c", "import click"]
TARGET_RATIO = 2.0


def _elapsed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def _instructions(argv: list[str], env: dict[str, str]) -> int:
    """Instructions one run executes, counted by callgrind (same figure on a busy machine)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    found = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count for {argv}: {done.stderr[-500:]}")
    return int(found.group(1))


def _commands(key: str) -> dict[str, list[str]]:
    bib = [sys.executable, "-m", "bib"]
    return {
        "bib --help": [*bib, "--help"],
        "bib --version": [*bib, "--version"],
        "bib note add": [*bib, "note", "add", key, "benchmark note"],
        "bib status": [*bib, "status", key, "read"],
        "bib show": [*bib, "show", key],
        "bib list": [*bib, "list"],
    }


def _time_commands(
    commands: dict[str, list[str]], env: dict[str, str], runs: int
) -> dict[str, dict[str, float]]:
    """Median wall time of each command and of the reference, alternating, and their ratio."""
    figures: dict[str, dict[str, float]] = {}
    print(f"{'command':<16} {'median s':>9} {'click s':>9} {'ratio':>6}  target <= {TARGET_RATIO}x")
    for name, argv in commands.items():
        _elapsed(argv, env)  # warm the file cache and the bytecode
        ratios, own, reference = [], [], []
        for _ in range(runs):
            mine, theirs = _elapsed(argv, env), _elapsed(REFERENCE, env)
            own.append(mine)
            reference.append(theirs)
            ratios.append(mine / theirs)
        row = figures[name] = {
            "median_s": statistics.median(own),
            "reference_s": statistics.median(reference),
            "ratio": statistics.median(ratios),
        }
        print(
            f"{name:<16} {row['median_s']:>9.3f} {row['reference_s']:>9.3f} {row['ratio']:>5.2f}x"
        )
    return figures


def _count_instructions(
    commands: dict[str, list[str]], env: dict[str, str]
) -> dict[str, dict[str, float]]:
    """Instructions of each command (after a warm-up run) and their ratio to the reference's."""
    reference = _instructions(REFERENCE, env)
    figures: dict[str, dict[str, float]] = {}
    print(
        f"{'command':<16} {'instructions':>14} {'click':>14} {'ratio':>6}"
        f"  target <= {TARGET_RATIO}x"
    )
    for name, argv in commands.items():
        _elapsed(argv, env)  # write the bytecode
        count = _instructions(argv, env)
        row = figures[name] = {
            "instructions": count,
            "reference_instructions": reference,
            "ratio": count / reference,
        }
        print(f"{name:<16} {count:>14,} {reference:>14,} {row['ratio']:>5.2f}x")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="pairs per command (default 15)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions with valgrind instead"
    )
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind on PATH")

    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "BIB_LIBRARY": f"{folder}/lib.sqlite", "NO_COLOR": "1"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["BIB_CACHE_DIR"] = f"{folder}/cache"
        subprocess.run(
            [sys.executable, "-m", "bib", "add", str(ROOT / "seeds")], env=env, check=True,
            capture_output=True,
        )  # fmt: skip
        listed = subprocess.run(
            [sys.executable, "-m", "bib", "list", "--json"], env=env, check=True,
            capture_output=True, text=True,
        ).stdout  # fmt: skip
        key = json.loads(listed)[0]["key"]
        commands = _commands(key)
        if args.instructions:
            figures = _count_instructions(commands, env)
        else:
            figures = _time_commands(commands, env, args.runs)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
