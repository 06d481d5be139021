"""`bib resolve`, `bib add arxiv:ID` and `bib show` against the corpus server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import bib.cli.resolve as cli_resolve
from bib.cli import main
from bib.resolve.session import Session
from tests.resolve import corpus
from tests.resolve.conftest import fast
from tests.resolve.servers import State

SEED = str(corpus.SEEDS / "000_465737449dbd50b8.txt")


@pytest.fixture()
def bib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("BIB_LIBRARY", str(tmp_path / "library.sqlite"))
    monkeypatch.setenv("BIB_CACHE_DIR", str(tmp_path / "cache"))
    opened = cli_resolve.open_session

    def quick(**options: Any) -> Session:
        return fast(opened(**options))

    monkeypatch.setattr(cli_resolve, "open_session", quick)
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(main, list(args), catch_exceptions=False)

    return run


def test_resolve_fills_title_and_authors_and_show_names_the_source(
    bib: Any, server: State, papers: list[corpus.Paper]
) -> None:
    assert bib("add", SEED).exit_code == 0
    result = bib("resolve", "--json")
    assert result.exit_code == 0, result.output
    decisions = json.loads(result.stdout)
    first = decisions[0]
    assert first["verdict"] == "resolved" and first["applied"]
    paper = next(p for p in papers if p.ident == first["candidates"][0]["id"])
    shown = bib("show", first["key"])
    assert shown.stdout.startswith(f"{first['key']}: {paper.title}\n")
    assert f"authors:  {'; '.join(paper.authors)}" in shown.stdout
    assert f"resolved: Resolved from openreview {paper.ident}" in shown.stdout


def test_dry_run_stores_nothing(bib: Any, server: State) -> None:
    bib("add", SEED)
    decisions = json.loads(bib("resolve", "--dry-run", "--json").stdout)
    assert not any(d["applied"] for d in decisions)
    assert "(derived title)" in bib("show", decisions[0]["key"]).stdout


def test_a_second_run_resolves_nothing_again(bib: Any, server: State) -> None:
    bib("add", SEED)
    bib("resolve")
    before = len(server.requests)
    assert json.loads(bib("resolve", "--json").stdout) == [
        d for d in json.loads(bib("resolve", "--json").stdout) if d["verdict"] != "resolved"
    ]
    assert len(server.requests) == before


def test_offline_without_a_cache_is_one_line_and_exit_1(bib: Any, server: State) -> None:
    bib("add", SEED)
    result = bib("resolve", "--offline")
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("bib: error: openreview: not in the cache")
    assert server.requests == []


def test_add_arxiv_id_fetches_the_paper(
    bib: Any, server: State, papers: list[corpus.Paper]
) -> None:
    paper = next(p for p in papers if p.ident == "ax040")
    result = bib("add", f"arxiv:{paper.arxiv_id}", "--json")
    assert result.exit_code == 0, result.output
    key = json.loads(result.stdout)["new"][0]
    shown = bib("show", key, "--json")
    assert json.loads(shown.stdout)["title"] == paper.title


def test_add_openreview_url_fetches_the_paper(
    bib: Any, server: State, papers: list[corpus.Paper]
) -> None:
    result = bib("add", "https://openreview.net/forum?id=or001", "--json")
    key = json.loads(result.stdout)["new"][0]
    paper = next(p for p in papers if p.ident == "or001")
    assert json.loads(bib("show", key, "--json").stdout)["title"] == paper.title


def test_add_an_unknown_identifier_form_is_bad_input(bib: Any, server: State) -> None:
    result = bib("add", "arxiv:not-an-id")
    assert result.exit_code == 2
    assert "not an arxiv:ID" in result.stderr
