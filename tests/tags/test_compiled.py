"""The compiled extractors give what their sources give (docs/decisions/compiled-extractors.md).

The oracle is the plain source of the same modules, run by a child process with
`BIB_PURE_PYTHON=1` (`compiled_oracle.py`); this process runs the compiled build. Both answer
`compiled_oracle.tagged`: every extractor stage, every tag kind, with and without `loose`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bib.extract
from bib.extract import topics
from tests.tags.compiled_oracle import tagged
from tests.tags.test_topics_reference import abstracts

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(__file__).with_name("compiled_oracle.py")

Oracle = Callable[[Sequence[tuple[str, str]]], list[str]]


@pytest.fixture(scope="module")
def sources(unavailable: Callable[[str], NoReturn]) -> Iterator[Oracle]:
    """`tagged`, answered by the plain sources in a child process."""
    if not bib.extract.BUILD.compiled:
        unavailable(f"the extractors are not compiled here: {bib.extract.BUILD.reason}")
    env = {**os.environ, "BIB_PURE_PYTHON": "1", "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, str(ORACLE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=ROOT,
    )
    assert child.stdin is not None and child.stdout is not None

    def ask(papers: Sequence[tuple[str, str]]) -> list[str]:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(list(papers)) + "\n")
        child.stdin.flush()
        return list(json.loads(child.stdout.readline()))

    yield ask
    child.stdin.close()
    child.wait(timeout=60)


def _real_papers() -> list[tuple[str, str]]:
    """Abstracts nobody here wrote: the seeds, the held-out and unseen abstracts, and the
    ICLR papers of the author-keyword benchmark with their titles."""
    papers = []
    for path in sorted((ROOT / "seeds").glob("*.txt")):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")[1:]
        papers += [("", p.strip()) for p in paragraphs if p.strip()]
    for name in ("heldout-abstracts.json", "unseen-abstracts.json"):
        found = json.loads((ROOT / "tests" / "tags" / name).read_text(encoding="utf-8"))
        papers += [("", a["abstract"]) for a in found["abstracts"]]
    iclr = json.loads((ROOT / "tests/data/author-keywords.json").read_text(encoding="utf-8"))
    papers += [(p.get("title", ""), p["abstract"]) for p in iclr["papers"]]
    return papers


def test_this_process_runs_the_compiled_extractors(sources: Oracle) -> None:
    assert Path(topics.__file__).suffix != ".py"


def test_the_oracle_runs_the_sources(sources: Oracle) -> None:
    script = "import bib.extract.topics as t; print(t.__file__)"
    env = {**os.environ, "BIB_PURE_PYTHON": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().endswith("topics.py")


def test_real_abstracts_get_the_tags_their_sources_give(sources: Oracle) -> None:
    papers = _real_papers()
    assert len(papers) > 700
    assert tagged(papers) == sources(papers)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=st.one_of(st.just(""), abstracts(most=4)), abstract=abstracts())
def test_generated_abstracts_get_the_tags_their_sources_give(
    sources: Oracle, title: str, abstract: str
) -> None:
    assert tagged([(title, abstract)]) == sources([(title, abstract)])
