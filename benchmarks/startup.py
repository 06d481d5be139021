"""How long commands take to start, as ratios to `python -c "import click"` in the same run.

Every command is run as a whole process (what a user waits for), alternating with the
reference so that drift of the machine's speed hits both alike; the figure quoted is the
median of the per-pair ratios. The light commands run against a small library made first.

    python benchmarks/startup.py
    python benchmarks/startup.py --runs 30 --json startup.json
"""

from __future__ import annotations

import argparse
import json
import os
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="pairs per command (default 15)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "BIB_LIBRARY": f"{folder}/lib.sqlite", "NO_COLOR": "1"}
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
        figures: dict[str, dict[str, float]] = {}
        print(
            f"{'command':<16} {'median s':>9} {'click s':>9} {'ratio':>6}"
            f"  target <= {TARGET_RATIO}x"
        )
        for name, argv in _commands(key).items():
            _elapsed(argv, env)  # warm the file cache and the bytecode
            ratios, own, reference = [], [], []
            for _ in range(args.runs):
                mine, theirs = _elapsed(argv, env), _elapsed(REFERENCE, env)
                own.append(mine)
                reference.append(theirs)
                ratios.append(mine / theirs)
            figures[name] = {
                "median_s": statistics.median(own),
                "reference_s": statistics.median(reference),
                "ratio": statistics.median(ratios),
            }
            row = figures[name]
            print(
                f"{name:<16} {row['median_s']:>9.3f} {row['reference_s']:>9.3f}"
                f" {row['ratio']:>5.2f}x"
            )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
