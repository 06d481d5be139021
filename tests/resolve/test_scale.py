"""Bulk first, hosts side by side, known ids in batches, and a run that resumes from the cache."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import httpx
import pytest

from bib.record import evolve
from bib.resolve.cache import Cache
from bib.resolve.http import Http, SourceFault
from bib.resolve.session import open_session
from bib.resolve.sources import KnownIds, semanticscholar
from bib.resolve.sources.semanticscholar import SemanticScholar
from bib.resolve.stage import resolve_records
from tests.resolve import corpus
from tests.resolve.conftest import fast
from tests.resolve.servers import State


def test_requests_to_different_hosts_run_side_by_side(tmp_path: Path) -> None:
    """Host a answers only once host b has been asked: a layer that serialized hosts would
    never get there (the handler gives up after 5 s and the test fails)."""
    b_asked = threading.Event()

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host == "b.test":
            b_asked.set()
        elif not b_asked.wait(5):
            return httpx.Response(400, text="b was never asked while a waited")
        return httpx.Response(200, text="ok")

    http = Http(Cache(tmp_path), online=True, transport=httpx.MockTransport(answer))
    statuses: dict[str, int] = {}
    first = threading.Thread(
        target=lambda: statuses.update(a=http.request("GET", "http://a.test/x").status)
    )
    first.start()
    statuses["b"] = http.request("GET", "http://b.test/x").status
    first.join()
    assert statuses == {"a": 200, "b": 200}


def test_one_host_is_asked_one_request_at_a_time(tmp_path: Path) -> None:
    busy: list[int] = []
    inside = threading.Lock()

    def answer(request: httpx.Request) -> httpx.Response:
        if not inside.acquire(blocking=False):
            busy.append(1)
            return httpx.Response(200, text="overlap")
        try:
            threading.Event().wait(0.01)
            return httpx.Response(200, text="ok")
        finally:
            inside.release()

    http = Http(Cache(tmp_path), online=True, transport=httpx.MockTransport(answer))
    threads = [
        threading.Thread(target=http.request, args=("GET", f"http://a.test/{n}")) for n in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert busy == [] and http.network_requests == 4


def test_records_with_arxiv_ids_are_fetched_in_one_batch_request(
    server: State, tmp_path: Path
) -> None:
    records = [evolve(r, venue="") for r in corpus.seed_records()[40:50]]
    with_ids = [
        evolve(r, arxiv_id=p.arxiv_id)
        for r, p in zip(
            records, [p for p in server.papers if p.ident.startswith("ax")], strict=True
        )
    ]
    session = fast(open_session(online=True, cache_dir=tmp_path, sources=["semanticscholar"]))
    outcomes = resolve_records(with_ids, session.resolver)
    assert all(o.applied for o in outcomes)
    assert [r.split("?")[0] for r in server.requests] == ["POST /s2/graph/v1/paper/batch"]


def test_a_batch_over_500_ids_is_split(
    server: State, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(semanticscholar, "BATCH", 4)
    source = SemanticScholar(fast(open_session(online=True, cache_dir=tmp_path)).http)
    known = [KnownIds(arxiv_id=p.arxiv_id) for p in server.papers if p.on_arxiv][:10]
    found = source.fetch_known(known)
    assert all(found) and len(server.requests) == 3


def test_the_test_server_refuses_more_than_500_ids_as_the_api_does(server: State) -> None:
    body = json.dumps({"ids": [f"ARXIV:{n}" for n in range(501)]})
    url = f"{os.environ['BIB_SEMANTICSCHOLAR_URL']}/graph/v1/paper/batch"
    assert httpx.post(url, content=body).status_code == 400


def test_arxiv_searches_ten_records_a_request(server: State, tmp_path: Path) -> None:
    records = corpus.seed_records()[40:57]
    session = fast(open_session(online=True, cache_dir=tmp_path, sources=["arxiv"]))
    resolve_records(records, session.resolver)
    searches = [r for r in server.requests if r.startswith("/arxiv/")]
    assert len(searches) == 2


def test_an_interrupted_run_resumes_from_the_cache(server: State, tmp_path: Path) -> None:
    records = corpus.seed_records()
    whole = fast(open_session(online=True, cache_dir=tmp_path / "whole"))
    expected = [o.record for o in resolve_records(records, whole.resolver)]
    needed = len(server.requests)
    server.requests.clear()
    server.faults.down_after = needed // 2
    cut = fast(open_session(online=True, cache_dir=tmp_path / "resumed"))
    with pytest.raises(SourceFault):
        resolve_records(records, cut.resolver)
    answered = needed // 2
    server.faults.down_after, server.faults.down = None, False
    server.requests.clear()
    again = fast(open_session(online=True, cache_dir=tmp_path / "resumed"))
    assert [o.record for o in resolve_records(records, again.resolver)] == expected
    assert len(server.requests) == needed - answered
