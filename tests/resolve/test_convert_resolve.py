"""`bib convert --resolve` against the corpus server, and with no network."""

from __future__ import annotations

from pathlib import Path

import pybtex.database
import pytest
from click.testing import CliRunner

import bib.resolve.session as session_module
from bib.cli import main
from bib.resolve.http import Http
from bib.resolve.session import open_session
from bib.resolve.stage import resolve_records
from tests.resolve import corpus
from tests.resolve.conftest import fast
from tests.resolve.servers import State

SEED = str(corpus.SEEDS / "000_465737449dbd50b8.txt")


@pytest.fixture(autouse=True)
def no_waits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIB_CACHE_DIR", str(tmp_path / "cache"))
    real = session_module.Http

    def quick(*args: object, **kwargs: object) -> Http:
        http = real(*args, **kwargs)  # type: ignore[arg-type]
        http.sleep = lambda seconds: None
        return http

    monkeypatch.setattr(session_module, "Http", quick)


def convert(*args: str) -> object:
    return CliRunner().invoke(main, ["convert", SEED, *args], catch_exceptions=False)


def test_convert_resolve_writes_real_titles_authors_and_provenance(
    server: State, tmp_path: Path, papers: list[corpus.Paper]
) -> None:
    out = tmp_path / "refs.bib"
    result = convert("-o", str(out), "--resolve")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    entries = pybtex.database.parse_file(str(out)).entries.values()
    titles = {p.title for p in papers}
    resolved = [e for e in entries if "Resolved from openreview" in e.fields.get("note", "")]
    assert resolved
    assert all(e.fields["title"].strip("{}") in titles and e.persons["author"] for e in resolved)


def test_convert_resolve_without_network_fails_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIB_OPENREVIEW_URL", "http://127.0.0.1:9")
    out = tmp_path / "refs.bib"
    result = convert("-o", str(out), "--resolve")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "bib: error: openreview: no connection" in result.stderr  # type: ignore[attr-defined]
    assert not out.exists()


def test_best_effort_writes_records_unresolved_without_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIB_OPENREVIEW_URL", "http://127.0.0.1:9")
    out = tmp_path / "refs.bib"
    result = convert("-o", str(out), "--resolve=best-effort")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    assert "written unresolved" in result.stderr  # type: ignore[attr-defined]
    assert "Resolved from" not in out.read_text(encoding="utf-8")


def test_convert_resolve_asks_the_services_as_bib_resolve_does(
    server: State, tmp_path: Path
) -> None:
    """A regression: `convert --resolve` resolved one record at a time, so it lost the bulk
    requests and the ten-record arXiv searches that `bib resolve` makes."""
    records = corpus.seed_records()  # some of them are not in the venue's listing
    session = fast(open_session(online=True, cache_dir=tmp_path / "library-cache"))
    resolve_records(records, session.resolver)
    asked_by_resolve = sorted(server.requests)
    assert any(r.startswith("/arxiv/") for r in asked_by_resolve)
    server.requests.clear()
    out = str(tmp_path / "refs.bib")
    result = CliRunner().invoke(main, ["convert", str(corpus.SEEDS), "-o", out, "--resolve"])
    assert result.exit_code == 0, result.output
    assert sorted(server.requests) == asked_by_resolve
