"""Fixtures for reader tests: write an input file and read it back as Records."""

from __future__ import annotations

import json
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


SEEDS = Path(__file__).resolve().parents[2] / "seeds"
FIXTURES = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def seed_records() -> dict[str, Record]:
    """Every seed record, by `file:line`, as the readers produce it."""
    return {
        f"{path.name}:{record.source.line}": record
        for path in sorted(SEEDS.glob("*.txt"))
        for record in read(path)
    }


@pytest.fixture(scope="session")
def expected_methods() -> list[dict[str, str | None]]:
    return json.loads((FIXTURES / "methods_expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def expected_urls() -> list[dict[str, object]]:
    return json.loads((FIXTURES / "urls_expected.json").read_text(encoding="utf-8"))
