"""Issue 18 in the library: TeX Live's own `.bib` files put into the library with `bib add`
and exported with `bib export` compile with pdflatex + bibtex (natbib, plainnat) with no
error or warning that the original files do not give, as `bib convert`'s output does
(test_texlive_compile.py, whose file choice and comparison this reuses).

The reference is the same toolchain run on the original files.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_texlive_compile import (
    PATH_STY_STAND_IN,
    _disjoint,
    _errors,
    _from_the_original,
    _missing_preamble_inputs,
    _ours_only,
    _texlive_files,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def compiled(require, unavailable, tc, tmp_path_factory, monkeypatch_module) -> dict[str, Any]:
    require("pdflatex", "bibtex", "kpsewhich")
    files, types = _disjoint(_texlive_files())
    if not files:
        unavailable("TeX Live's .bib files are not installed (texlive-bibtex-extra)")
    root = tmp_path_factory.mktemp("texlive-library")
    monkeypatch_module.setenv("BIB_LIBRARY", str(root / "library.sqlite"))
    monkeypatch_module.setenv("NO_COLOR", "1")
    from click.testing import CliRunner

    from bib.cli import main

    runner = CliRunner()
    added = [
        path
        for path in files
        if runner.invoke(main, ["add", str(path)], catch_exceptions=False).exit_code == 0
    ]
    exported = root / "library.bib"
    result = runner.invoke(main, ["export", "-f", "bibtex", "-o", str(exported)])
    assert result.exit_code == 0, result.stderr
    runs = {}
    missing = _missing_preamble_inputs()
    for name, bibs in (("orig-bibtex", added), ("ours-bibtex", [exported])):
        out = root / name
        out.mkdir()
        for sty in missing:
            (out / sty).write_text(PATH_STY_STAND_IN, encoding="ascii")
        tc.compile_document(out, bibs, "bibtex")
        runs[name] = out
    return {"runs": runs, "types": types, "files": added}


@pytest.fixture(scope="module")
def monkeypatch_module():  # type: ignore[no-untyped-def]
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_library_export_gives_no_bibtex_warning_the_original_does_not(compiled):
    assert compiled["files"], "no TeX Live file was added"
    assert _ours_only(compiled, "bibtex") == []


def test_library_export_compiles_without_errors_the_original_does_not_give(compiled):
    runs = compiled["runs"]
    original = runs["orig-bibtex"] / "doc.bbl"
    original_bbl = original.read_text(errors="replace") if original.exists() else ""
    theirs = set(_errors((runs["orig-bibtex"] / "doc.log").read_text(errors="replace")))
    log = (runs["ours-bibtex"] / "doc.log").read_text(errors="replace")
    problems = [
        error
        for error in _errors(log)
        if error not in theirs and not _from_the_original(error[0], original_bbl)
    ]
    assert problems == []
    if (runs["orig-bibtex"] / "doc.pdf").exists():
        assert (runs["ours-bibtex"] / "doc.pdf").exists()
