"""Which build of the extractors runs (`bib.native`): the compiled modules only when each
matches the source beside it, else every one from its source."""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest

import bib.extract
from bib import native

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("pkg.one", "pkg.two")


def _tree(tmp_path: Path, *, compiled: bool = True, manifest: bool = True) -> Path:
    """A package of two modules as an install leaves it: sources, compiled files beside
    them (empty here: `build` only looks for them), and the manifest."""
    (tmp_path / "pkg").mkdir()
    for name in NAMES:
        source = native.source(name, tmp_path)
        source.write_text(f"NAME = {name!r}\n", encoding="utf-8")
        if compiled:
            suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
            source.with_name(source.stem + suffix).write_bytes(b"")
    if manifest:
        text = json.dumps(native.manifest(NAMES, tmp_path))
        (tmp_path / "manifest.json").write_text(text, encoding="utf-8")
    return tmp_path


def _build(root: Path, **environ: str) -> native.Build:
    return native.build(NAMES, root, root / "manifest.json", environ)


def test_modules_compiled_from_the_sources_beside_them_run_compiled(tmp_path: Path) -> None:
    assert _build(_tree(tmp_path)).compiled


def test_a_module_edited_after_compiling_makes_every_module_run_from_source(
    tmp_path: Path,
) -> None:
    root = _tree(tmp_path)
    with native.source("pkg.two", root).open("a", encoding="utf-8") as source:
        source.write("EDITED = True\n")
    chosen = _build(root)
    assert not chosen.compiled
    assert "pkg.two changed since it was compiled" in chosen.reason


def test_an_install_without_a_manifest_runs_from_source(tmp_path: Path) -> None:
    chosen = _build(_tree(tmp_path, manifest=False))
    assert (chosen.compiled, chosen.reason) == (False, "pure Python (installed without compiling)")


def test_a_manifest_without_compiled_modules_runs_from_source(tmp_path: Path) -> None:
    chosen = _build(_tree(tmp_path, compiled=False))
    assert not chosen.compiled
    assert "pkg.one is not compiled for this Python" in chosen.reason


@pytest.mark.parametrize("text", ["{not json", '{"modules": ["pkg.one"]}', "[]"])
def test_an_unreadable_manifest_runs_from_source(tmp_path: Path, text: str) -> None:
    root = _tree(tmp_path)
    (root / "manifest.json").write_text(text, encoding="utf-8")
    assert _build(root) == native.Build(False, "pure Python (manifest.json cannot be read)")


def test_bib_pure_python_runs_from_source_whatever_is_compiled(tmp_path: Path) -> None:
    chosen = _build(_tree(tmp_path), BIB_PURE_PYTHON="1")
    assert (chosen.compiled, chosen.reason) == (False, "pure Python (BIB_PURE_PYTHON is set)")


def test_bib_pure_python_zero_does_not_ask_for_the_sources(tmp_path: Path) -> None:
    assert _build(_tree(tmp_path), BIB_PURE_PYTHON="0").compiled


def test_every_compiled_module_is_under_the_package_that_chooses_the_build() -> None:
    # bib/extract/__init__.py runs `native.choose()` before any of its modules is imported
    assert all(name.startswith("bib.extract.") for name in native.COMPILED)
    assert native.GROUP.startswith("bib.extract.")
    assert all(native.source(name).exists() for name in native.COMPILED)


def test_the_version_says_which_build_of_the_extractors_runs(
    cli: Callable[..., object],
) -> None:
    result = cli("--version")
    lines = result.output.splitlines()  # type: ignore[attr-defined]
    assert lines[0].startswith("bib, version ")
    assert lines[1] == f"extractors: {native.build().reason}"


def _installed_copy(tmp_path: Path, unavailable: Callable[[str], NoReturn]) -> Path:
    """This install's `bib` package (compiled modules, manifest and all) copied elsewhere,
    so that a test may edit a source without touching the install."""
    if not bib.extract.BUILD.compiled:
        unavailable(f"the extractors are not compiled here: {bib.extract.BUILD.reason}")
    shutil.copytree(native.ROOT / "bib", tmp_path / "bib", ignore=shutil.ignore_patterns("data"))
    shutil.copytree(native.ROOT / "bib" / "data", tmp_path / "bib" / "data")
    return tmp_path


def _imported_from(root: Path, **environ: str) -> dict[str, str]:
    """Where each compiled module is imported from, in a fresh interpreter, with `root`
    first on the path."""
    script = (
        "import importlib, json, bib.extract, bib.native as n; "
        "print(json.dumps({m: importlib.import_module(m).__file__ for m in n.COMPILED}))"
    )
    inherited = {k: v for k, v in os.environ.items() if k != "BIB_PURE_PYTHON"}
    env = {**inherited, "PYTHONPATH": str(root), **environ}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


@pytest.mark.slow
def test_a_copy_of_a_compiled_install_imports_the_compiled_modules(
    tmp_path: Path, unavailable: Callable[[str], NoReturn]
) -> None:
    root = _installed_copy(tmp_path, unavailable)
    files = _imported_from(root)
    assert all(Path(f).suffix == ".so" and Path(f).is_relative_to(root) for f in files.values())


@pytest.mark.slow
def test_a_source_edited_after_the_build_runs_every_module_from_source(
    tmp_path: Path, unavailable: Callable[[str], NoReturn]
) -> None:
    root = _installed_copy(tmp_path, unavailable)
    with native.source("bib.extract.urls", root).open("a", encoding="utf-8") as source:
        source.write("\nEDITED_AFTER_THE_BUILD = True\n")
    files = _imported_from(root)
    assert all(Path(f).suffix == ".py" for f in files.values()), files


@pytest.mark.slow
def test_bib_pure_python_imports_every_compiled_module_from_source(
    tmp_path: Path, unavailable: Callable[[str], NoReturn]
) -> None:
    root = _installed_copy(tmp_path, unavailable)
    files = _imported_from(root, BIB_PURE_PYTHON="1")
    assert all(Path(f).suffix == ".py" for f in files.values()), files
