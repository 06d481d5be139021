"""A pytest plugin with the fixtures every test area of bib shares (like `papis.testing`).

Load it with `pytest_plugins = ["bib.testing"]` in a top-level conftest (bib's own tests do);
a project that extends bib gets the same temporary library, CLI runner and seeds.

- `library_location`: the library the CLI fixtures use (a file in the test's tmp_path; an
  area overrides it, e.g. with a PostgreSQL URL).
- `cli`: `bib` run in this process (click's runner) with that library and no colour.
- `bib_process`: `bib` run as a real process, as a user's shell would.
- `seeds`: the seed paper lists shipped in the repository; `seed_records`: their records
  as read, by `file:line`.
- `require` / `unavailable`: skip a test that needs a missing system tool, or fail it when
  `BIB_REQUIRE_TOOLCHAINS=1` (CI demands every toolchain).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest
from click.testing import CliRunner, Result

from bib.record import Record

ROOT = Path(__file__).resolve().parent.parent
"""The source tree bib runs from (its seeds and tests sit beside the package)."""
SEEDS = ROOT / "seeds"


def pytest_configure(config: pytest.Config) -> None:
    """Compiled vocabularies go to a cache of the test run's own, not the user's (the
    subprocesses that tests start inherit it)."""
    os.environ["BIB_CACHE_DIR"] = tempfile.mkdtemp(prefix="bib-test-cache-")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ.pop("BIB_CACHE_DIR", ""), ignore_errors=True)


def toolchains_required() -> bool:
    return os.environ.get("BIB_REQUIRE_TOOLCHAINS") == "1"


def tool_unavailable(reason: str) -> NoReturn:
    """Skip, or fail when CI demands every toolchain."""
    if toolchains_required():
        pytest.fail(f"BIB_REQUIRE_TOOLCHAINS=1 but {reason}")
    pytest.skip(reason)


def texlive_bibs() -> list[Path]:
    """Every `.bib` file TeX Live ships (`TEXMFDIST/bibtex/bib`, texlive-bibtex-extra), in
    path order: the real bibliographies, written by others, that the corpus tests read. None
    when kpsewhich is absent."""
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return []
    root = subprocess.run(
        [kpsewhich, "-var-value", "TEXMFDIST"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return sorted(Path(root, "bibtex", "bib").rglob("*.bib")) if root else []


def require_tools(*names: str) -> None:
    """Skip when an external tool is missing, or fail when CI demands every toolchain."""
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        tool_unavailable(f"not on PATH: {', '.join(missing)} (install them or see .ci/run)")


@pytest.fixture(scope="session")
def require() -> Callable[..., None]:
    """`require("pdflatex", ...)`: `require_tools`."""
    return require_tools


@pytest.fixture(scope="session")
def unavailable() -> Callable[[str], NoReturn]:
    """`unavailable(reason)`: `tool_unavailable`."""
    return tool_unavailable


@pytest.fixture
def seeds() -> list[Path]:
    return sorted(SEEDS.glob("*.txt"))


@pytest.fixture(scope="session")
def seed_records() -> dict[str, Record]:
    """Every seed record, by `file:line`, as the readers produce it (nothing extracted)."""
    from bib.readers import read

    return {
        f"{path.name}:{record.source.line}": record
        for path in sorted(SEEDS.glob("*.txt"))
        for record in read(path)
        if record.source is not None
    }


@pytest.fixture
def library_location(tmp_path: Path) -> Path | str:
    """The library `cli` and `bib_process` use (an area may override it, e.g. with a URL)."""
    return tmp_path / "library.sqlite"


@pytest.fixture
def cli(library_location: Path | str, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run `bib` in-process with a private library and no colour."""
    from bib.cli import main

    monkeypatch.setenv("BIB_LIBRARY", str(library_location))
    monkeypatch.setenv("NO_COLOR", "1")
    runner = CliRunner()

    def run(*args: object, input: str | bytes | None = None) -> Result:
        return runner.invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)

    return run


@pytest.fixture
def bib_process(
    tmp_path: Path, library_location: Path | str
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run `bib` as a real process, as a user's shell would."""
    env = {**os.environ, "BIB_LIBRARY": str(library_location), "NO_COLOR": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))

    def run(
        *args: object, input: str | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bib", *map(str, args)],
            input=input,
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd or tmp_path,
            timeout=600,
        )

    return run
