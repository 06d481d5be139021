"""Fixtures shared by every test area: the CLI, the seeds, hypothesis profiles, toolchains."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, settings

from bib.cli import main

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
DATA = Path(__file__).resolve().parent / "data"

settings.register_profile(
    "ci", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_configure(config: pytest.Config) -> None:
    """Compiled vocabularies go to a cache of the test run's own, not the user's (the
    subprocesses that tests start inherit it)."""
    import tempfile

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


def require_tools(*names: str) -> None:
    """Skip when an external tool is missing, or fail when CI demands every toolchain."""
    missing = [name for name in names if shutil.which(name) is None]
    if missing:
        tool_unavailable(f"not on PATH: {', '.join(missing)} (install them or see .ci/run)")


# Area conftests and tests reach these through fixtures: `from conftest import ...` is not
# reliable under --import-mode=importlib.
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


@pytest.fixture
def library_location(tmp_path: Path) -> Path | str:
    """The library `cli` and `bib_process` use (an area may override it, e.g. with a URL)."""
    return tmp_path / "library.sqlite"


@pytest.fixture
def cli(library_location: Path | str, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run `bib` in-process with a private library and no colour."""
    monkeypatch.setenv("BIB_LIBRARY", str(library_location))
    monkeypatch.setenv("NO_COLOR", "1")
    runner = CliRunner()

    def run(*args: str, input: str | bytes | None = None) -> Result:
        return runner.invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)

    return run


@pytest.fixture
def bib_process(
    tmp_path: Path, library_location: Path | str
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run `bib` as a real process, as a user's shell would."""
    env = {**os.environ, "BIB_LIBRARY": str(library_location), "NO_COLOR": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))

    def run(*args: str, input: str | None = None, cwd: Path | None = None):
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
