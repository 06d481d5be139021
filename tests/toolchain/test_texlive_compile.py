"""Issue 18, point 10 (c): the `.bib` and `.biblatex.bib` outputs of TeX Live's own `.bib`
files compile with pdflatex + bibtex (natbib, plainnat) and pdflatex + biber with no error or
warning caused by our output.

The reference is the same toolchain run on the original files: a warning of ours that the
original does not give is ours, unless it is one of the input's own problems that a BibTeX
fallback type reveals (`EXPECTED_FROM_INPUT`, each with why). Files are chosen so that no two
share a citation key (one document cites them all); the files left out are listed with why.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bib import convert as engine
from bib import writers

pytestmark = pytest.mark.slow

MAX_BYTES = 300_000
"""Files up to this size: a thousand entries, four compilations in about a minute on a quiet
machine (the corpus test reads the larger ones)."""
LEFT_OUT = {
    "jbtest.bib": "Latin-1, refused with one error line (tests/fidelity/test_corpus.py)",
    "archaeologie-bibancient.bib": "plainnat's labels overflow past `z` for its 30 yearless "
    "entries by one author (`\\natexlab{}}`), in the original as in ours",
    "texgraph.bib": "its journals are @strings defined in another file: BibTeX keeps an "
    "undefined one as an empty value plainnat does not report; bib warns and leaves it out, "
    "and plainnat reports the empty journal",
    "oberdiek-bundle.bib": "plainnat's labels overflow past `z`: 30 entries by Oberdiek, 2016",
}
NOT_BIBLIOGRAPHIES = frozenset(
    {"amsj.bib", "archaeologie-lstlocations.bib", "archaeologie-lstpublishers.bib"}
)
BIBTEX_TYPES = frozenset(
    "article book booklet conference inbook incollection inproceedings manual mastersthesis "  # noqa: SIM905
    "misc phdthesis proceedings techreport unpublished".split()
)
EXPECTED_FROM_INPUT = re.compile(
    r"^Warning--(empty \w+( and \w+)? in|can't use both author and editor fields in|"
    r"all relevant fields are empty in) (?P<key>\S+)$"
)
"""plainnat's checks of an entry's fields, which an original of a type BibTeX lacks (read as
`@misc`, unchecked) escapes and our BibTeX fallback type (`@mvbook` -> `@book`) meets: the
input lacks the field (a `@set` has none), or has both author and editor, as biblatex allows.
Allowed only for entries whose source type is not a BibTeX type."""

_ENTRY = re.compile(rb"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s]+)\s*,")


def _texlive_files() -> list[Path]:
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return []
    root = subprocess.run(
        [kpsewhich, "-var-value", "TEXMFDIST"], capture_output=True, text=True, check=False
    ).stdout.strip()
    found = sorted(Path(root, "bibtex", "bib").rglob("*.bib")) if root else []
    return [
        p
        for p in found
        if p.stat().st_size <= MAX_BYTES and p.name not in LEFT_OUT.keys() | NOT_BIBLIOGRAPHIES
    ]


def _entries(path: Path) -> list[tuple[str, str]]:
    """(citation key in lower case, source entry type) of every entry of a file, in order."""
    found = []
    for match in _ENTRY.finditer(path.read_bytes()):
        kind = match.group(1).decode().lower()
        if kind not in ("string", "preamble", "comment"):
            found.append((match.group(2).decode("utf-8", "replace").lower(), kind))
    return found


def _disjoint(paths: list[Path]) -> tuple[list[Path], dict[str, str]]:
    """The files, in order, that repeat no key and share none with an earlier one."""
    chosen: list[Path] = []
    types: dict[str, str] = {}
    for path in paths:
        entries = dict(_entries(path))
        if len(entries) != len(_entries(path)) or types.keys() & entries.keys():
            continue
        chosen.append(path)
        types |= entries
    return chosen, types


@pytest.fixture(scope="module")
def compiled(require, unavailable, tc, tmp_path_factory) -> dict[str, Any]:
    require("pdflatex", "bibtex", "biber", "kpsewhich")
    files = _texlive_files()
    if not files:
        unavailable("TeX Live's .bib files are not installed (texlive-bibtex-extra)")
    root = tmp_path_factory.mktemp("texlive")
    readable = []
    ours: dict[str, list[Path]] = {"bibtex": [], "biblatex": []}
    for index, path in enumerate(_disjoint(files)[0]):
        try:
            records = engine.run([path], engine.ConvertOptions(stages=())).records
        except Exception:
            continue
        readable.append(path)
        for fmt, name in (("bibtex", f"ours{index}.bib"), ("biblatex", f"ours{index}x.bib")):
            out = root / name
            out.write_text(writers.render(records, fmt), encoding="utf-8")
            ours[fmt].append(out)
    runs = {}
    for name, bibs, backend in (
        ("orig-bibtex", readable, "bibtex"),
        ("ours-bibtex", ours["bibtex"], "bibtex"),
        ("orig-biber", readable, "biber"),
        ("ours-biber", ours["biblatex"], "biber"),
    ):
        out = root / name
        out.mkdir()
        tc.compile_document(out, bibs, backend)
        runs[name] = out
    return {"runs": runs, "types": _disjoint(readable)[1], "files": readable}


def _warnings(out: Path, backend: str) -> set[str]:
    text = (out / "doc.blg").read_text(encoding="utf-8", errors="replace")
    if backend == "bibtex":
        lines = [line for line in text.splitlines() if line.startswith("Warning--")]
        lines += [
            line
            for line in text.splitlines()
            if re.search(r"^I was expecting|^I'm skipping|bad cross reference|^Sorry", line)
        ]
    else:
        lines = [
            re.sub(r"^\[\d+\] [\w.]+:\d+> ", "", line)
            for line in text.splitlines()
            if re.search(r"\b(WARN|ERROR) - ", line)
        ]
    return {_normal(line) for line in lines}


def _normal(line: str) -> str:
    """A warning without what differs between two runs of the same data: file names, line
    numbers, temp paths."""
    line = re.sub(r"/tmp/\S+", "TMP", line)
    # the same name, written Family-first by us: biber refuses it in both (too many commas)
    line = re.sub(r'Name ".*" has too many commas', "Name N has too many commas", line)
    line = re.sub(r"'?[\w.-]+\.bib'?", "FILE", line)
    return re.sub(r"line \d+", "line N", line)


def _ours_only(compiled: dict[str, Any], backend: str) -> list[str]:
    runs = compiled["runs"]
    new = _warnings(runs[f"ours-{backend}"], backend) - _warnings(runs[f"orig-{backend}"], backend)
    unexplained = []
    for line in sorted(new):
        match = EXPECTED_FROM_INPUT.match(line)
        source_type = compiled["types"].get(match.group("key").lower()) if match else None
        if match and source_type is not None and source_type not in BIBTEX_TYPES:
            continue
        unexplained.append(line)
    return unexplained


def test_bibtex_output_gives_no_warning_the_original_does_not(compiled):
    assert compiled["files"], "no TeX Live file was read"
    assert _ours_only(compiled, "bibtex") == []


def test_biblatex_output_gives_no_biber_warning_the_original_does_not(compiled):
    assert _ours_only(compiled, "biber") == []


UNICODE_ERROR = re.compile(r"! LaTeX Error: Unicode character .* \(U\+(?P<code>[0-9A-F]+)\)")


def _from_the_original(line: str, original_bbl: str) -> bool:
    """A character pdflatex cannot set that biber also wrote into the original's .bbl: biber
    decodes `{\\={P}}ot` (xampl.bib) to P and U+0304 for the original as for ours, so the
    error is biber's and the input's, not something our output added."""
    match = UNICODE_ERROR.match(line)
    return match is not None and chr(int(match.group("code"), 16)) in original_bbl


@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_pdflatex_compiles_our_output_without_errors(compiled, backend):
    log = (compiled["runs"][f"ours-{backend}"] / "doc.log").read_text(errors="replace")
    original = compiled["runs"][f"orig-{backend}"] / "doc.bbl"
    original_bbl = original.read_text(errors="replace") if original.exists() else ""
    problems = [
        line
        for line in log.splitlines()
        if (line.startswith("!") or "Missing character" in line or "not an integer" in line)
        and not _from_the_original(line, original_bbl)
    ]
    assert problems == []
    assert (compiled["runs"][f"ours-{backend}"] / "doc.pdf").exists()
