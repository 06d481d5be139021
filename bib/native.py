"""Which build of the extractors runs: the mypyc-compiled one, or the plain sources.

The extractors that run once per abstract (`COMPILED`) are compiled with mypyc when bib is
installed on a machine that can (see setup.py and docs/decisions/compiled-extractors.md). A
compiled module sits beside its source, and Python imports it first. So that it never runs
code other than what its source says, the compiled build is used only when a manifest
written at build time (`MANIFEST`) records, for every compiled module, the SHA-256 of exactly
the source beside it, and the module was compiled for this Python. Otherwise (a source edited
or checked out after the build, a build that failed, `BIB_PURE_PYTHON=1`) every one of them is
imported from its source: all or none, because compiled modules call each other directly,
not through their module objects.

Standard library only: setup.py loads this file by path, before bib's dependencies exist.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

COMPILED = (
    "bib.extract.entities",
    "bib.extract.generic",
    "bib.extract.keyphrases",
    "bib.extract.markup",
    "bib.extract.methods",
    "bib.extract.tags",
    "bib.extract.titles",
    "bib.extract.topics",
    "bib.extract.urls",
)
"""The compiled modules: all under `bib.extract`, whose `__init__` chooses the build before
any of them is imported. `bib.extract.vocabulary` is not among them: it runs once per run,
and mypyc does not keep `functools.cached_property` values on its classes."""

GROUP = "bib.extract._native"
"""mypyc's shared library of the compiled modules (`bib/extract/_native__mypyc*.so`)."""

ROOT = Path(__file__).resolve().parent.parent
"""The directory holding the `bib` package: the source tree, or site-packages."""

MANIFEST = ROOT / "bib" / "_compiled.json"

PURE_VARIABLE = "BIB_PURE_PYTHON"


@dataclass(frozen=True)
class Build:
    """Whether the compiled extractors run, and in words why (for `bib --version`)."""

    compiled: bool
    reason: str


def source(name: str, root: Path = ROOT) -> Path:
    """The source file of module `name` under `root`."""
    return root.joinpath(*name.split(".")).with_suffix(".py")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(names: Sequence[str] = COMPILED, root: Path = ROOT) -> dict[str, object]:
    """What setup.py writes beside the compiled modules: each source's SHA-256."""
    return {
        "python": sys.implementation.cache_tag,
        "modules": {name: digest(source(name, root)) for name in names},
    }


def _compiled_file(name: str, root: Path) -> Path | None:
    stem = source(name, root).with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = stem.with_name(stem.name + suffix)
        if candidate.exists():
            return candidate
    return None


def build(
    names: Sequence[str] = COMPILED,
    root: Path = ROOT,
    manifest_path: Path = MANIFEST,
    environ: Mapping[str, str] = os.environ,
) -> Build:
    """Decide the build: compiled only when every compiled module matches its source."""
    if environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return Build(False, f"pure Python ({PURE_VARIABLE} is set)")
    try:
        recorded = json.loads(manifest_path.read_text(encoding="utf-8"))["modules"]
    except FileNotFoundError:
        return Build(False, "pure Python (installed without compiling)")
    except (OSError, ValueError, KeyError, TypeError):
        recorded = None
    if not isinstance(recorded, dict):
        return Build(False, f"pure Python ({manifest_path.name} cannot be read)")
    for name in names:
        if _compiled_file(name, root) is None:
            return Build(False, f"pure Python ({name} is not compiled for this Python)")
        try:
            current = digest(source(name, root))
        except OSError:
            return Build(False, f"pure Python ({name}'s source cannot be read)")
        if recorded.get(name) != current:
            return Build(False, f"pure Python ({name} changed since it was compiled)")
    return Build(True, f"compiled with mypyc ({len(names)} modules)")


class SourceFinder:
    """A meta path finder that imports each of `names` from its source file, ahead of a
    compiled module beside it."""

    def __init__(self, names: Sequence[str], root: Path) -> None:
        self.names = frozenset(names)
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, source(fullname, self.root))


def choose(names: Sequence[str] = COMPILED, root: Path = ROOT) -> Build:
    """Decide the build and, unless it is the compiled one, make Python import the sources.
    Called once, by `bib.extract`'s `__init__`."""
    chosen = build(names, root)
    if not chosen.compiled and not any(isinstance(f, SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, SourceFinder(names, root))
    return chosen
