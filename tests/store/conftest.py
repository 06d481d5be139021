"""A real library per test, on each backend (a SQLite file, and a fresh database on a real
PostgreSQL server), stocked through the store API (no readers needed).

`backend` is parametrized for every test that uses `library`, `store` or `cli`; a test marked
`sqlite_only` (file modes, PRAGMAs, the SQLite file format) runs on SQLite alone.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annotations import Store, open_store
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


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from postgres_server import Server  # noqa: E402

BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        marked = metafunc.definition.get_closest_marker
        chosen = BACKENDS
        if marked("sqlite_only"):
            chosen = ("sqlite",)
        elif marked("postgresql_only"):
            chosen = ("postgresql",)
        metafunc.parametrize("backend", chosen, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def pg_database(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh, empty database on the test server; its URL. Dropped afterwards."""
    import psycopg

    server: Server = request.getfixturevalue("postgres_server")
    name = f"bib_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield server.database(name)
    with psycopg.connect(server.url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def library(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    """Where the `cli` fixture's BIB_LIBRARY points: a file path, or a postgresql:// URL."""
    if backend == "postgresql":
        return request.getfixturevalue("pg_database")
    return tmp_path / "library.sqlite"


@pytest.fixture
def library_location(library: Any) -> Any:
    return library


RAW_QUERIES = {
    "sqlite": {"malformed": '"unbalanced', "either": "title:judge OR hypergraphs"},
    "postgresql": {"malformed": "judge & (", "either": "judge | hypergraphs"},
}
"""`search --fts` passes each backend's own syntax through (FTS5 MATCH, to_tsquery)."""


@pytest.fixture
def raw_query(backend: str) -> dict[str, str]:
    return RAW_QUERIES[backend]


@pytest.fixture
def store(library: Any) -> Iterator[Store]:
    with open_store(library) as opened:
        opened.upsert(PAPERS)
        yield opened


@pytest.fixture
def papers() -> tuple[Record, ...]:
    return PAPERS


@pytest.fixture(name="make_record")
def make_record_fixture():  # type: ignore[no-untyped-def]
    return make_record
