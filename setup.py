"""Build bib, with the extractors that run once per abstract compiled by mypyc where the
machine can (docs/decisions/compiled-extractors.md).

The compiled modules (`bib.native.COMPILED`) are the same sources, compiled: nothing else in
the tree differs. When mypyc cannot type-check them, the C compiler is missing or fails, or
`BIB_PURE_PYTHON=1` is set, bib installs as pure Python and runs the same code, slower; the
build never fails for want of a compiler. A successful build writes `bib/_compiled.json`,
which `bib.native` checks before it lets the compiled modules run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}
"""The setup.py commands that build extensions (PEP 517 metadata calls need no compiling)."""


def load_native() -> ModuleType:
    """`bib/native.py` by path: importing `bib` would need its dependencies."""
    spec = importlib.util.spec_from_file_location("bib_native_at_build", ROOT / "bib" / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


native = load_native()


def say(message: str) -> None:
    print(f"bib build: {message}", file=sys.stderr)


def compiled_extensions() -> list[Extension]:
    if os.environ.get(native.PURE_VARIABLE, "") not in ("", "0"):
        say(f"{native.PURE_VARIABLE} is set: installing pure Python")
        return []
    if not BUILDING & set(sys.argv[1:]):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        say("mypyc is not installed: installing pure Python")
        return []
    paths = [str(native.source(name, ROOT).relative_to(ROOT)) for name in native.COMPILED]
    # the build environment has none of bib's dependencies: their types are not needed to
    # compile these modules, and the project's own mypy run checks them
    flags = ["--ignore-missing-imports", "--follow-imports=silent"]
    try:
        return mypycify([*flags, *paths], group_name=native.GROUP, opt_level="3")
    except (Exception, SystemExit) as error:  # mypy reports type errors by exiting
        say(f"mypyc could not compile the extractors ({error!r}): installing pure Python")
        return []


class BuildExtOrPure(build_ext):
    """Compile the extractors and write the manifest; when compiling fails, leave nothing
    compiled behind, so that the install is pure Python rather than a failed install."""

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as error:  # the C compiler missing or failing, in any of its forms
            say(f"the C compiler failed ({error}): installing pure Python")
            self.remove_outputs()
            return
        self.write_manifest()

    def remove_outputs(self) -> None:
        for output in self.get_outputs():
            Path(output).unlink(missing_ok=True)
        self.extensions = []

    def write_manifest(self) -> None:
        text = json.dumps(native.manifest(native.COMPILED, ROOT), indent=2, sort_keys=True)
        targets = [Path(self.build_lib) / "bib" / native.MANIFEST.name]
        if self.inplace or getattr(self, "editable_mode", False):
            targets.append(ROOT / "bib" / native.MANIFEST.name)
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text + "\n", encoding="utf-8")


setup(ext_modules=compiled_extensions(), cmdclass={"build_ext": BuildExtOrPure})
