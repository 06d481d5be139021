"""Golden outputs of `bib convert`: a fixed set of inputs converted to every format, written
into one directory, so that a refactoring can prove it changed no byte (`diff -r`).

    python benchmarks/golden.py /tmp/golden-before      # before the change
    python benchmarks/golden.py /tmp/golden-after       # after it
    diff -r /tmp/golden-before /tmp/golden-after        # nothing: byte-identical

Inputs: the seeds (plain, `--ascii`, every tag kind), `tests/data/stress.txt`, every file of
`tests/data/hostile/`, a 10,000-record synthetic list (`convert.paper_list`), TeX Live's
`biblatex-examples.bib` and `xampl.bib`, and a CSL-JSON file written by `bib convert` from
the seeds. Each run writes BibTeX, BibLaTeX, CSL-JSON and RIS in one go and each format once
on its own (standard output), and keeps its standard error and exit status: a bad input's
error line is an output too. Every run is its own process, started in the output directory
with the inputs copied under `inputs/`, so no path in a message depends on where it ran.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from convert import paper_list  # noqa: E402 (the benchmark's own synthetic list)

FORMATS = {"bibtex": ".bib", "biblatex": ".biblatex.bib", "csl-json": ".json", "ris": ".ris"}
ALL_KINDS = "topic,method,dataset,model,code,contribution"
SYNTHETIC = 10_000


def texlive_bib(name: str) -> Path | None:
    """A `.bib` file shipped with TeX Live, when TeX Live is installed."""
    try:
        root = subprocess.run(
            ["kpsewhich", "-var-value", "TEXMFDIST"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    found = sorted(Path(root, "bibtex", "bib").rglob(name))
    return found[0] if found else None


def bib_convert(out: Path, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """`bib convert ARGS` in its own process, in `out`, with a fixed environment."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "NO_COLOR": "1",
        "HOME": str(out / "home"),
        "LC_ALL": "C.UTF-8",
    }
    return subprocess.run(
        [sys.executable, "-m", "bib", "convert", *args], cwd=out, env=env, capture_output=True
    )


def convert_case(out: Path, name: str, inputs: list[str], options: list[str]) -> None:
    """One input set: all four formats in one run into `NAME/`, then each format alone on
    standard output; each run's stderr and exit status beside its outputs."""
    case = out / name
    case.mkdir(parents=True)
    targets = [f"-o{name}/all{suffix}" for suffix in FORMATS.values()]
    keep(case / "all", bib_convert(out, [*inputs, *targets, *options]))
    for fmt in FORMATS:
        done = bib_convert(out, [*inputs, "-f", fmt, *options])
        (case / f"stdout.{fmt}").write_bytes(done.stdout)
        keep(case / fmt, done)


def keep(prefix: Path, done: subprocess.CompletedProcess[bytes]) -> None:
    prefix.with_name(prefix.name + ".stderr").write_bytes(done.stderr)
    prefix.with_name(prefix.name + ".status").write_text(f"{done.returncode}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="directory to create (must not exist)")
    parser.add_argument("--size", type=int, default=SYNTHETIC, help="records of the synthetic list")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    out.mkdir(parents=True)
    inputs = out / "inputs"
    inputs.mkdir()
    (out / "home").mkdir()
    shutil.copytree(ROOT / "seeds", inputs / "seeds")
    shutil.copy(ROOT / "tests" / "data" / "stress.txt", inputs / "stress.txt")
    shutil.copytree(ROOT / "tests" / "data" / "hostile", inputs / "hostile")
    paper_list(args.size, inputs / "synthetic.txt")
    for name in ("biblatex-examples.bib", "xampl.bib"):
        found = texlive_bib(name)
        if found is None:
            sys.exit(f"golden: TeX Live's {name} not found (kpsewhich)")
        shutil.copy(found, inputs / name)
    made = bib_convert(out, ["inputs/seeds", "-o", "inputs/seeds.json"])
    if made.returncode:
        sys.exit(f"golden: the CSL-JSON input failed: {made.stderr.decode()}")

    convert_case(out, "seeds", ["inputs/seeds"], [])
    convert_case(out, "seeds-ascii", ["inputs/seeds"], ["--ascii"])
    convert_case(out, "seeds-all-tags", ["inputs/seeds"], ["--tags", ALL_KINDS])
    convert_case(out, "stress", ["inputs/stress.txt"], [])
    convert_case(out, "stress-ascii", ["inputs/stress.txt"], ["--ascii"])
    for path in sorted((inputs / "hostile").iterdir()):
        convert_case(out, f"hostile-{path.stem}", [f"inputs/hostile/{path.name}"], [])
    convert_case(out, "synthetic", ["inputs/synthetic.txt"], [])
    convert_case(out, "synthetic-jobs1", ["inputs/synthetic.txt"], ["--jobs", "1"])
    convert_case(out, "biblatex-examples", ["inputs/biblatex-examples.bib"], [])
    convert_case(out, "biblatex-examples-ascii", ["inputs/biblatex-examples.bib"], ["--ascii"])
    convert_case(out, "xampl", ["inputs/xampl.bib"], [])
    convert_case(out, "csljson", ["inputs/seeds.json"], [])
    convert_case(out, "merged", ["inputs/seeds", "inputs/seeds.json", "inputs/stress.txt"], [])
    shutil.rmtree(out / "home")
    print(f"golden: outputs in {out}")


if __name__ == "__main__":
    main()
