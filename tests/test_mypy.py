"""mypy, configured in pyproject.toml (strict on bib/ and annotations/), finds no error."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_error() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it is in the `test` extra: pip install -e '.[test]')")
    done = subprocess.run(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
