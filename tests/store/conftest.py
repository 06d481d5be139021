"""A real library file per test, stocked through the store API (no readers needed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from annotations import SQLiteStore, open_store
from bib.record import Author, Link, Record, Tag, TagKind


def make_record(
    rid: str,
    key: str,
    title: str,
    abstract: str = "",
    *,
    venue: str = "ICML",
    year: int = 2026,
    tags: tuple[tuple[TagKind, str], ...] = (),
    **extra: object,
) -> Record:
    return Record(
        id=rid,
        key=key,
        title=title,
        abstract=abstract,
        venue=venue,
        year=year,
        tags=tuple(Tag(kind, value) for kind, value in tags),
        **extra,  # type: ignore[arg-type]
    )


PAPERS = (
    make_record(
        "id-usmoe",
        "usmoe2026",
        "Unified Sparse Mixture of Experts",
        "We rethink sparse mixture of experts routing through linear programming.",
        tags=((TagKind.TOPIC, "mixture-of-experts"), (TagKind.METHOD, "USMoE")),
        authors=(Author("Nguyen", "Giang"), Author("Tran", "Minh")),
        links=(Link("https://example.org/usmoe"),),
    ),
    make_record(
        "id-judge",
        "judge2026",
        "Adaptive LLM-as-a-Judge",
        "Existing judge systems have limited adaptivity; we route tasks to experts.",
        tags=((TagKind.TOPIC, "evaluation"),),
    ),
    make_record(
        "id-graph",
        "graphs2025",
        "Message Passing on Hypergraphs",
        "Hypergraph neural networks for molecules.",
        venue="NeurIPS",
        year=2025,
        tags=((TagKind.TOPIC, "graph-learning"),),
    ),
)


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """The path the `cli` fixture uses as BIB_LIBRARY."""
    return tmp_path / "library.sqlite"


@pytest.fixture
def store(library: Path) -> Iterator[SQLiteStore]:
    with open_store(library) as opened:
        opened.upsert(PAPERS)
        yield opened


@pytest.fixture
def papers() -> tuple[Record, ...]:
    return PAPERS


@pytest.fixture(name="make_record")
def make_record_fixture():  # type: ignore[no-untyped-def]
    return make_record
