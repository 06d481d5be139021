"""Fixtures for reader tests: write an input file and read it back as Records."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bib.readers import read
from bib.record import Record


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    def make(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return make


@pytest.fixture
def records(write: Callable[..., Path]) -> Callable[..., list[Record]]:
    def load(name: str, content: str | bytes, **options: object) -> list[Record]:
        return list(read(write(name, content), **options))  # type: ignore[arg-type]

    return load
