"""Fixtures for the toolchain tests: run the real `bib convert`, then the real TeX, BibTeX,
biber, pandoc and pdftotext on what it wrote.

Conversions and compilations are session-scoped and shared between pytest-xdist workers
(a lock file guards each build, the first worker builds, the others read its result), so the
suite compiles one document per toolchain, however many tests inspect it.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "seeds"
DATA = ROOT / "tests" / "data"
STRESS = DATA / "stress.txt"
HOSTILE = DATA / "hostile"

CONVERT_TIMEOUT = 300
"""Seconds any one `bib convert` may take (the 10 MB and 100,000-entry inputs included)."""
TOOL_TIMEOUT = 180
"""Seconds any one run of pdflatex, bibtex, biber, pandoc or pdftotext may take."""

LATEX_TOOLS = ("pdflatex", "bibtex", "pdftotext")
BIBER_TOOLS = ("pdflatex", "biber", "pdftotext")


# --- tools (`require` and `unavailable` come from bib.testing) -----------------------


@pytest.fixture(scope="session")
def latex_tools(require: Callable[..., None]) -> None:
    require(*LATEX_TOOLS)


@pytest.fixture(scope="session")
def biber_tools(require: Callable[..., None]) -> None:
    require(*BIBER_TOOLS)


PANDOC_MINIMUM = (2, 11)
"""pandoc 2.11 brought --citeproc and CSL-JSON as an output format."""


@pytest.fixture(scope="session")
def pandoc_tool(require: Callable[..., None], unavailable: Callable[[str], None]) -> None:
    require("pandoc")
    first = subprocess.run(
        ["pandoc", "--version"], capture_output=True, text=True, timeout=60
    ).stdout.split("\n")[0]
    found = tuple(int(n) for n in re.findall(r"\d+", first)[:2])
    if found < PANDOC_MINIMUM:
        unavailable(f"pandoc >= 2.11 needed for --citeproc and csljson; found {first!r}")


# --- running things ---------------------------------------------------------------------


def run(
    argv: Sequence[str | Path],
    cwd: Path,
    *,
    timeout: float = TOOL_TIMEOUT,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run a program; return its exit status and output as plain data (JSON-storable)."""
    argv = [str(a) for a in argv]
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"argv": argv, "rc": None, "stdout": "", "stderr": "TIMEOUT"}
    return {"argv": argv, "rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


def run_bib(*args: str | Path, cwd: Path, timeout: float = CONVERT_TIMEOUT) -> dict[str, Any]:
    """`python -m bib ARGS` as a real process, like `bib_process`, but usable at session scope."""
    env = {**os.environ, "BIB_LIBRARY": str(cwd / "library.sqlite"), "NO_COLOR": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return run([sys.executable, "-m", "bib", *args], cwd, timeout=timeout, env=env)


# --- builds shared between xdist workers ------------------------------------------------


@dataclass(frozen=True)
class Build:
    """A directory of build products and the JSON summary its builder returned."""

    dir: Path
    data: dict[str, Any]

    def path(self, name: str) -> Path:
        return self.dir / name

    def text(self, name: str) -> str:
        return (self.dir / name).read_text(encoding="utf-8", errors="replace")


class Builds:
    """Build once per test run, whichever xdist worker asks first; others wait and reuse."""

    def __init__(self, root: Path):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def get(self, name: str, builder: Callable[[Path], dict[str, Any]]) -> Build:
        target = self.root / name
        summary = target / "build.json"
        with open(self.root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not summary.exists():
                target.mkdir(parents=True, exist_ok=True)
                data = builder(target)
                summary.write_text(json.dumps(data), encoding="utf-8")
        return Build(target, json.loads(summary.read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by every worker of this run
    return Builds(base / "toolchain-builds")


# --- converting the corpus --------------------------------------------------------------

FORMATS = {
    # name: (file name, extra `bib convert` arguments)
    "bibtex": ("refs.bib", ("-f", "bibtex")),
    "bibtex-ascii": ("refs-ascii.bib", ("-f", "bibtex", "--ascii")),
    "biblatex": ("refs-biblatex.bib", ("-f", "biblatex")),
    "csl-json": ("refs.json", ("-f", "csl-json")),
}


def convert_all(inputs: Sequence[Path], out: Path) -> dict[str, Any]:
    """`bib convert INPUTS -f FORMAT -o FILE` for every format, from one directory."""
    results = {}
    for name, (filename, extra) in FORMATS.items():
        results[name] = run_bib("convert", *inputs, *extra, "-o", out / filename, cwd=out)
        results[name]["file"] = filename
    return results


@dataclass(frozen=True)
class Converted:
    build: Build

    def result(self, fmt: str) -> dict[str, Any]:
        return self.build.data[fmt]

    def path(self, fmt: str) -> Path:
        return self.build.path(FORMATS[fmt][0])

    def csl(self) -> list[dict[str, Any]]:
        result = self.result("csl-json")
        assert result["rc"] == 0, result["stderr"]
        return json.loads(self.path("csl-json").read_text(encoding="utf-8"))


CORPUS_INPUTS = (*sorted(SEEDS.glob("*.txt")), STRESS)


@pytest.fixture(scope="session")
def corpus(builds: Builds) -> Converted:
    """The seeds and the stress list, converted once into every format."""
    return Converted(builds.get("corpus", lambda out: convert_all(CORPUS_INPUTS, out)))


@pytest.fixture(scope="session")
def corpus_items(corpus: Converted) -> list[dict[str, Any]]:
    for fmt in FORMATS:
        result = corpus.result(fmt)
        assert result["rc"] == 0, f"bib convert -f {fmt} failed: {result['stderr']}"
    return corpus.csl()


# --- LaTeX documents --------------------------------------------------------------------

NATBIB_PREAMBLE = r"""\usepackage[numbers]{natbib}
\usepackage{url}
\makeatletter
% Print every entry's citation key as a label "[key]" so pdftotext can find it.
\let\bibtest@lbibitem\@lbibitem
\def\@lbibitem[#1]#2{\bibtest@lbibitem[#1]{#2}\texttt{[\detokenize{#2}]}\space}
\makeatother
"""

BIBLATEX_PREAMBLE = r"""\usepackage[backend=biber,style=draft]{biblatex}
@RESOURCES@
% The draft style labels entries with their keys; print them as "[key]", and print the
% abstract too, so that what biber passes to LaTeX is typeset and checked.
\DeclareFieldFormat{entrykey}{\texttt{[#1]}}
\renewbibmacro*{finentry}{\setunit{\addperiod\space}\printfield{abstract}\finentry}
"""

DOCUMENT = r"""\documentclass{article}
\usepackage{cmap}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
@PREAMBLE@
@PLACEHOLDERS@
\tracinglostchars=1
\pagestyle{empty}% no page numbers inside entries that cross a page
\sloppy% no text pushed past the margin, where pdftotext would not see it
\begin{document}
\nocite{*}
@BIBLIOGRAPHY@
\end{document}
"""


@cache
def latex_unicode() -> frozenset[int]:
    """Code points pdflatex's UTF-8 input can typeset in T1/TS1 (per the installed .dfu files)."""
    names = ["t1enc.dfu", "ts1enc.dfu", "ot1enc.dfu", "omsenc.dfu"]
    proc = subprocess.run(["kpsewhich", *names], capture_output=True, text=True, timeout=60)
    points: set[int] = set(range(0x20, 0x7F))
    for path in proc.stdout.split():
        text = Path(path).read_text(encoding="latin-1")
        points.update(
            int(hex_, 16) for hex_ in re.findall(r"\\DeclareUnicodeCharacter\{([0-9A-F]+)\}", text)
        )
    return frozenset(points)


def unsupported(chars: Iterable[str]) -> list[str]:
    """Characters pdflatex has no glyph for (CJK, emoji, Greek, Hebrew, ...)."""
    known = latex_unicode()
    return sorted({c for c in chars if ord(c) > 0x7F and ord(c) not in known})


def placeholder(char: str) -> str:
    return f"[U+{ord(char):04X}]"


def placeholders(chars: Iterable[str]) -> str:
    r"""Declare a visible placeholder `[U+XXXX]` for each character pdflatex cannot typeset.

    A document that cites CJK or emoji titles must supply fonts for them (XeLaTeX, CJKutf8);
    with plain pdflatex the test document stands in the placeholder instead, so the PDF shows
    that each character reached LaTeX intact, in place, rather than silently lost or split.
    """
    return "\n".join(
        rf"\DeclareUnicodeCharacter{{{ord(c):04X}}}{{\texttt{{{placeholder(c)}}}\allowbreak}}"
        for c in unsupported(chars)
    )


def compile_document(
    out: Path,
    bib_files: Sequence[Path],
    backend: str,
    *,
    declare_unicode: bool = True,
    shell_escape: bool = False,
) -> dict[str, Any]:
    """Write doc.tex citing all entries of BIB_FILES; run pdflatex, BACKEND, pdflatex x2, pdftotext.

    Returns every step's exit status and output. pdflatex runs in nonstop mode so that one
    error does not hide the rest; the tests read the log.
    """
    chars: set[str] = set()
    names = []
    for bib in bib_files:
        local = out / bib.name
        if bib.resolve() != local.resolve():
            local.write_bytes(bib.read_bytes())
        chars.update(local.read_text(encoding="utf-8", errors="replace"))
        names.append(local.name)
    if backend == "bibtex":
        preamble = NATBIB_PREAMBLE
        bibliography = (
            "\\bibliographystyle{plainnat}\n\\bibliography{"
            + ",".join(n.removesuffix(".bib") for n in names)
            + "}"
        )
    else:
        resources = "\n".join(f"\\addbibresource{{{n}}}" for n in names)
        preamble = BIBLATEX_PREAMBLE.replace("@RESOURCES@", resources)
        bibliography = "\\printbibliography"
    document = (
        DOCUMENT.replace("@PREAMBLE@", preamble)
        .replace("@PLACEHOLDERS@", placeholders(chars) if declare_unicode else "")
        .replace("@BIBLIOGRAPHY@", bibliography)
    )
    (out / "doc.tex").write_text(document, encoding="utf-8")
    latex = [
        "pdflatex",
        "-interaction=nonstopmode",
        "-shell-escape" if shell_escape else "-no-shell-escape",
        "doc.tex",
    ]
    steps = {"pdflatex-1": run(latex, out)}
    steps["backend"] = run(["bibtex", "doc"] if backend == "bibtex" else ["biber", "doc"], out)
    # biblatex with \nocite{*} asks for one more run after biber; BibTeX needs two.
    steps["pdflatex-2"] = run(latex, out)
    steps["pdflatex-3"] = run(latex, out)
    steps["pdftotext"] = run(["pdftotext", "-raw", "-enc", "UTF-8", "doc.pdf", "doc.txt"], out)
    return {
        "backend": backend,
        "steps": steps,
        "declare_unicode": declare_unicode,
        "unsupported": unsupported(chars) if declare_unicode else [],
    }


@dataclass(frozen=True)
class Compiled:
    """A compiled document and accessors for what the checks read."""

    build: Build

    @property
    def backend(self) -> str:
        return self.build.data["backend"]

    def step(self, name: str) -> dict[str, Any]:
        return self.build.data["steps"][name]

    @property
    def log(self) -> str:
        return self.build.text("doc.log")

    @property
    def blg(self) -> str:
        return self.build.text("doc.blg")

    @property
    def bbl(self) -> str:
        return self.build.text("doc.bbl")

    @property
    def pdf_text(self) -> str:
        return self.build.text("doc.txt")

    @property
    def declares_unicode(self) -> bool:
        return self.build.data["declare_unicode"]

    @property
    def unsupported(self) -> list[str]:
        return self.build.data["unsupported"]

    def bbl_keys(self) -> list[str]:
        """Entry keys in the .bbl, in order, duplicates kept (one per typeset entry)."""
        if self.backend == "bibtex":
            group = r"\{(?:[^{}]|\{[^{}]*\})*\}"  # natbib labels nest: {\natexlab{a}}
            pattern = rf"\\bibitem(?:\[(?:[^\[\]{{}}]|{group})*\])?\s*\{{([^}}]*)\}}"
            return re.findall(pattern, self.bbl)
        return re.findall(r"^\s*\\entry\{([^}]*)\}", self.bbl, flags=re.MULTILINE)

    def log_errors(self) -> list[str]:
        return [line for line in self.log.splitlines() if line.startswith("!")]

    def log_problems(self) -> list[str]:
        """Errors, lost characters and unsettled references in the final pdflatex run."""
        patterns = (
            r"^!",
            r"Missing character",
            r"There were undefined references",
            r"Citation .* undefined",
            r"Please rerun LaTeX",
            r"Rerun to get",
            r"not set up for use with LaTeX",
        )
        return [
            line
            for line in self.log.splitlines()
            if any(re.search(pattern, line) for pattern in patterns)
        ]

    def blg_errors(self) -> list[str]:
        if self.backend == "bibtex":
            pattern = r"error message|^I was expecting|^I'm skipping|---line \d+ of|^Sorry"
        else:
            pattern = r"^\[\d+\] .*ERROR|^ERROR "
        return [line for line in self.blg.splitlines() if re.search(pattern, line)]

    def blg_warnings(self, authorless: Iterable[str] = ()) -> list[str]:
        """Warnings in the .blg, except BibTeX's `empty author` for records that have none.

        plainnat checks that an @inproceedings has an author and says so when it has not; for a
        paper list without `Authors:` lines that is the truth, not a defect of the entry.
        """
        if self.backend == "bibtex":
            expected = {f"Warning--empty author in {key}" for key in authorless}
            lines = [line for line in self.blg.splitlines() if line.startswith("Warning--")]
            return [line for line in lines if line not in expected]
        pattern = r"^\[\d+\] .*WARN|^WARN "
        return [line for line in self.blg.splitlines() if re.search(pattern, line)]


def compile_build(
    builds: Builds, name: str, bib_files: Sequence[Path], backend: str, **options: Any
) -> Compiled:
    return Compiled(
        builds.get(name, lambda out: compile_document(out, bib_files, backend, **options))
    )


# --- comparing text ---------------------------------------------------------------------


def skeleton(text: str, *, fold: bool = True) -> str:
    """Letters and digits only, NFKC-normalized (ligatures, superscripts), case-folded by default.

    pdftotext breaks lines, hyphenates, turns quotes and dashes into typographic ones and puts
    spaces around math; the skeleton is what survives all that and still names the words.
    """
    text = unicodedata.normalize("NFKC", text)
    kept = "".join(c for c in text if c.isalnum())
    return kept.casefold() if fold else kept


def squeeze(text: str) -> str:
    """Text without whitespace and hyphens, NFKC-normalized: for literals such as `50%`, `a_b`.

    Hyphens go because TeX hyphenates words at line ends and pdftotext may keep or drop them.
    """
    return "".join(unicodedata.normalize("NFKC", text).split()).replace("-", "")


def with_placeholders(text: str, chars: Iterable[str]) -> str:
    table = {ord(c): placeholder(c) for c in chars}
    return text.translate(table)


ACRONYM = re.compile(r"[^\W_]+")


def acronyms(title: str) -> list[str]:
    """Words with a capital after their first letter (USMoE, FairJudge, iOS) keep their case."""
    return [
        word
        for word in ACRONYM.findall(title)
        if any(c.isupper() for c in word[1:]) and word.isascii()
    ]


@pytest.fixture(scope="session")
def tc() -> ModuleType:
    """This module's helpers (run_bib, compile_build, skeleton, ...) for the test modules,
    which cannot import a conftest by name under --import-mode=importlib."""
    return sys.modules[__name__]
