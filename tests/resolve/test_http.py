"""The shared HTTP layer: offline by default, cache, Retry-After, bounded retries, faults."""

from __future__ import annotations

from pathlib import Path

import pytest

from bib.resolve.cache import Cache, request_key
from bib.resolve.candidate import Query
from bib.resolve.http import Http, Malformed, Offline, SourceFault, retry_after
from bib.resolve.session import open_session
from bib.resolve.sources.arxiv import Arxiv
from bib.resolve.sources.openreview import OpenReview
from tests.resolve import corpus
from tests.resolve.conftest import fast
from tests.resolve.servers import State

ABSTRACT = corpus.seed_records()[40].abstract


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after("7", 0.0) == 7.0
    assert retry_after("Thu, 01 Jan 1970 00:00:10 GMT", 0.0) == 10.0
    assert retry_after("soon", 0.0) is None


def test_nothing_goes_to_the_network_unless_asked(server: State, tmp_path: Path) -> None:
    session = open_session(online=False, cache_dir=tmp_path)
    with pytest.raises(Offline):
        session.sources[0].venue("ICML", 2026)
    assert server.requests == []


def test_a_second_run_is_answered_from_the_cache_offline(server: State, tmp_path: Path) -> None:
    online = fast(open_session(online=True, cache_dir=tmp_path))
    first = online.sources[1].search(Query(ABSTRACT))
    offline = open_session(online=False, cache_dir=tmp_path)
    assert offline.sources[1].search(Query(ABSTRACT)) == first
    assert len(server.requests) == 1


def test_a_corrupt_cache_entry_is_fetched_again(server: State, tmp_path: Path) -> None:
    session = fast(open_session(online=True, cache_dir=tmp_path))
    session.sources[0].venue("ICML", 2026)
    for path in tmp_path.rglob("*.json"):
        path.write_text("{not json", encoding="utf-8")
    assert session.sources[0].venue("ICML", 2026)
    assert len(server.requests) == 2


def test_an_expired_entry_is_not_used(tmp_path: Path) -> None:
    cache = Cache(tmp_path, ttl=10.0)
    key = request_key("GET", "http://x", {})
    cache.put(key, 200, "body")
    assert cache.get(key) is not None
    assert cache.get(key, now=1e12) is None


def test_429_waits_as_retry_after_says_and_reports_it(server: State, tmp_path: Path) -> None:
    server.faults.throttle, server.faults.retry_after = 2, "5"
    waits: list[float] = []
    said: list[str] = []
    http = Http(Cache(tmp_path), online=True, sleep=waits.append, report=said.append)
    assert OpenReview(http).venue("ICML", 2026)
    assert [w for w in waits if w >= 1] == [5.0, 5.0]
    assert said[0].startswith("bib: openreview: HTTP 429, retrying in 5 s (1/3)")


def test_retries_are_bounded(server: State, tmp_path: Path) -> None:
    server.faults.down = True
    http = Http(Cache(tmp_path), online=True, sleep=lambda s: None, report=lambda m: None)
    with pytest.raises(SourceFault, match="openreview: HTTP 503 after 4 attempts"):
        OpenReview(http).venue("ICML", 2026)
    assert len(server.requests) == 4


def test_no_network_is_one_fault_naming_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIB_ARXIV_URL", "http://127.0.0.1:9")
    http = Http(
        Cache(tmp_path), online=True, sleep=lambda s: None, report=lambda m: None, retries=1
    )
    with pytest.raises(SourceFault, match="arxiv: no connection"):
        Arxiv(http).fetch("2605.10000")


def test_a_malformed_answer_names_the_source(server: State, tmp_path: Path) -> None:
    server.faults.malformed = True
    http = Http(Cache(tmp_path), online=True, sleep=lambda s: None)
    with pytest.raises(Malformed, match="arxiv: the answer is not an Atom feed"):
        Arxiv(http).search(Query(ABSTRACT))


def test_requests_to_one_host_keep_its_interval(server: State, tmp_path: Path) -> None:
    clock = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock[0] += seconds

    http = Http(Cache(tmp_path), online=True, sleep=sleep, clock=lambda: clock[0])
    source = Arxiv(http)
    source.fetch("2605.10000")
    source.fetch("2605.10001")
    assert waits == [3.0]
