"""setup.py installs pure Python, never a failed or half-compiled install, when the
extractors cannot be compiled (docs/decisions/compiled-extractors.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREE = ("setup.py", "pyproject.toml", "README.md", "LICENSE", "bib", "schema", "annotations")


def _source_tree(tmp_path: Path) -> Path:
    """The files a build reads, without anything an earlier build left."""
    left_by_builds = shutil.ignore_patterns("*.so", "_compiled.json", "__pycache__")
    for name in TREE:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, tmp_path / name, ignore=left_by_builds)
        else:
            shutil.copy2(path, tmp_path / name)
    return tmp_path


def _build_in_place(tree: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "BIB_PURE_PYTHON"} | environ
    return subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _left(tree: Path) -> list[Path]:
    return sorted([*tree.rglob("*.so"), *tree.rglob("_compiled.json")])


@pytest.mark.slow
def test_a_build_whose_c_compiler_fails_leaves_a_pure_python_tree(tmp_path: Path) -> None:
    tree = _source_tree(tmp_path)
    built = _build_in_place(tree, CC="/bin/false")
    assert built.returncode == 0, built.stderr
    assert "bib build: the C compiler failed" in built.stderr
    assert "installing pure Python" in built.stderr
    assert _left(tree) == []


def test_bib_pure_python_builds_nothing(tmp_path: Path) -> None:
    tree = _source_tree(tmp_path)
    built = _build_in_place(tree, BIB_PURE_PYTHON="1")
    assert built.returncode == 0, built.stderr
    assert "BIB_PURE_PYTHON is set: installing pure Python" in built.stderr
    assert _left(tree) == []


@pytest.mark.slow
def test_a_build_whose_sources_do_not_type_check_leaves_a_pure_python_tree(
    tmp_path: Path,
) -> None:
    tree = _source_tree(tmp_path)
    with (tree / "bib" / "extract" / "urls.py").open("a", encoding="utf-8") as source:
        source.write('\nNOT_AN_INT: int = "text"\n')
    built = _build_in_place(tree)
    assert built.returncode == 0, built.stderr
    assert "bib build: mypyc could not compile the extractors" in built.stderr
    assert _left(tree) == []
