"""Fixtures for the Zotero sync tests: a live test server, a seeded library, a sync runner.

Every test that uses a library runs on both store backends: a SQLite file and a fresh
database on a real PostgreSQL server (tests/postgres_server.py), as the store tests do; a
test marked `sqlite_only` (the library file itself, a terminal) runs on SQLite alone.
"""

from __future__ import annotations

import importlib.util
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SEEDS = ROOT / "seeds"
if not SEEDS.is_dir():
    SEEDS = Path("/work/shared/seeds")


def _load_server_module() -> Any:
    name = "bib_tests_zotero_server"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "server.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


server_module = _load_server_module()


def seed_records() -> list[Any]:
    """The seed paper lists as Records with citation keys, as `bib add` stores them."""
    from bib import convert as engine

    return engine.load(sorted(SEEDS.glob("*.txt")))


@pytest.fixture
def zotero_server() -> Iterator[Any]:
    server = server_module.ZoteroTestServer().start()
    yield server
    server.stop()


sys.path.insert(0, str(HERE.parent))
from postgres_server import Server  # noqa: E402

BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "library_path" in metafunc.fixturenames:
        sqlite_only = metafunc.definition.get_closest_marker("sqlite_only")
        chosen = ("sqlite",) if sqlite_only else BACKENDS
        metafunc.parametrize("backend", chosen, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def library_path(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    """A SQLite file, or the URL of a fresh PostgreSQL database (dropped afterwards)."""
    if backend == "sqlite":
        yield tmp_path / "library.sqlite"
        return
    import psycopg

    server: Server = request.getfixturevalue("postgres_server")
    name = f"bib_zotero_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    yield server.database(name)
    with psycopg.connect(server.url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def library_location(library_path: Any) -> Any:
    """`cli` and `bib_process` use the library of the test."""
    return library_path


@pytest.fixture
def seeded_library(library_path: Any) -> Any:
    """The seeds in a real library file, with two notes, a rating, a status and a tag."""
    from annotations import Status, open_store

    records = seed_records()
    with open_store(library_path) as store:
        store.upsert(records)
        keys = sorted(store.pinned_keys().values())
        store.add_note(keys[0], "Read **section 3** again; compare with <b>MoE</b> & co.")
        store.add_note(keys[0], "- routing is a linear program\n- see $O(n)$ bound")
        store.add_note(keys[1], "Nice ablations.")
        store.rate(keys[0], 4)
        store.set_status(keys[0], Status.READING)
        store.tag(keys[1], ["to-discuss"], [])
    return library_path


@pytest.fixture
def env(zotero_server: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {
        "ZOTERO_API_KEY": zotero_server.api_key,
        "ZOTERO_LIBRARY_ID": str(zotero_server.user_id),
        "ZOTERO_LIBRARY_TYPE": "user",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


@pytest.fixture
def run_sync(zotero_server: Any, env: dict[str, str]) -> Callable[..., Any]:
    """Run one sync in-process against the test server; returns the Report."""
    from annotations import open_store
    from annotations.sync_state import SyncState
    from bib.zotero import library, sync
    from bib.zotero.client import RetryPolicy, ZoteroClient, load_credentials

    def run(
        path: Path, *, timeout: float = 5.0, policy: RetryPolicy | None = None, **options: Any
    ) -> Any:
        credentials = load_credentials()
        client = ZoteroClient(
            credentials,
            endpoint=zotero_server.url,
            timeout=timeout,
            policy=policy or RetryPolicy(attempts=10, base=0.01, cap=0.1, total=60),
        )
        name = sync.library_id(zotero_server.url, "user", credentials.library_id)
        try:
            with open_store(path) as store:
                papers = library.papers(store)
                state = SyncState(store, name)
                return sync.sync(papers, client, state, sync.SyncOptions(**options))
        finally:
            client.close()

    return run
