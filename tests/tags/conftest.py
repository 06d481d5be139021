"""Fixtures for the tagging tests: the shipped vocabulary, user vocabulary files, records."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bib.extract.vocabulary import Vocabulary, shipped
from bib.record import Record


@pytest.fixture
def vocabulary() -> Vocabulary:
    return shipped()


@pytest.fixture
def vocab_file(tmp_path: Path) -> Callable[[object], Path]:
    """Write a user vocabulary document to a file and return its path."""

    def write(document: object, name: str = "vocab.json") -> Path:
        path = tmp_path / name
        text = document if isinstance(document, str) else json.dumps(document)
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def record() -> Callable[..., Record]:
    def make(abstract: str, **fields: object) -> Record:
        return Record(id=fields.pop("id", "r1"), abstract=abstract, **fields)  # type: ignore[arg-type]

    return make


FIXTURES = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def expected_methods() -> list[dict[str, str | None]]:
    return json.loads((FIXTURES / "methods_expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def expected_urls() -> list[dict[str, object]]:
    return json.loads((FIXTURES / "urls_expected.json").read_text(encoding="utf-8"))
