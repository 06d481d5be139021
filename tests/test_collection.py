"""Every folder of tests is collected: pytest silently skips folders that match its
`norecursedirs` (`build`, `dist`, `venv`, ...), which once hid tests/build's tests."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def test_no_folder_of_tests_is_one_pytest_skips(pytestconfig: pytest.Config) -> None:
    skipped = pytestconfig.getini("norecursedirs")
    folders = {path.parent for path in TESTS.rglob("test_*.py")}
    hidden = [
        str(folder.relative_to(TESTS))
        for folder in folders
        for part in folder.relative_to(TESTS).parts
        if any(fnmatch(part, pattern) for pattern in skipped)
    ]
    assert hidden == []
