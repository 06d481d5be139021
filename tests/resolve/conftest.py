"""Fixtures: the corpus server, and a session pointed at it with a cache in a temporary dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bib.resolve.session import Session, open_session
from tests.resolve import corpus, servers


@pytest.fixture(scope="session")
def papers() -> list[corpus.Paper]:
    return corpus.papers()


SOURCE_URLS = {
    "BIB_OPENREVIEW_URL": "openreview",
    "BIB_ARXIV_URL": "arxiv",
    "BIB_SEMANTICSCHOLAR_URL": "s2",
    "BIB_OPENALEX_URL": "openalex",
    "BIB_CROSSREF_URL": "crossref",
    "BIB_DBLP_URL": "dblp",
}


def point_at(base: str, setenv: Callable[[str, str], None]) -> None:
    """Every source's base URL at the test server, as BIB_*_URL do for mirrors."""
    for variable, path in SOURCE_URLS.items():
        setenv(variable, f"{base}/{path}")


def server_fixture(
    papers: list[corpus.Paper], monkeypatch: pytest.MonkeyPatch
) -> Iterator[servers.State]:
    """The server, with every source's base URL pointing at it (as BIB_*_URL do for mirrors)."""
    running = servers.serve(papers)
    base, state = next(running)
    point_at(base, monkeypatch.setenv)
    monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
    monkeypatch.delenv("OPENALEX_API_KEY", raising=False)
    yield state
    running.close()


@pytest.fixture()
def server(papers: list[corpus.Paper], monkeypatch: pytest.MonkeyPatch) -> Iterator[servers.State]:
    yield from server_fixture(papers, monkeypatch)


def fast(session: Session) -> Session:
    """The session without its politeness waits: the test server has one host for all APIs."""
    session.http.sleep = lambda seconds: None
    return session


@pytest.fixture()
def session(server: servers.State, tmp_path: Path) -> Iterator[Session]:
    opened = fast(open_session(online=True, cache_dir=tmp_path / "cache"))
    yield opened
    opened.close()
