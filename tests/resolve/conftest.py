"""Fixtures: the corpus server, and a session pointed at it with a cache in a temporary dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bib.resolve.session import Session, open_session
from tests.resolve import corpus, servers


@pytest.fixture(scope="session")
def papers() -> list[corpus.Paper]:
    return corpus.papers()


def server_fixture(
    papers: list[corpus.Paper], monkeypatch: pytest.MonkeyPatch
) -> Iterator[servers.State]:
    """The server, with every source's base URL pointing at it (as BIB_*_URL do for mirrors)."""
    running = servers.serve(papers)
    base, state = next(running)
    monkeypatch.setenv("BIB_OPENREVIEW_URL", f"{base}/openreview")
    monkeypatch.setenv("BIB_ARXIV_URL", f"{base}/arxiv")
    monkeypatch.setenv("BIB_SEMANTICSCHOLAR_URL", f"{base}/s2")
    monkeypatch.delenv("SEMANTIC_SCHOLAR_API_KEY", raising=False)
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
