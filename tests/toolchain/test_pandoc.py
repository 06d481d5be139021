"""pandoc and our outputs: citeproc renders our CSL-JSON, and pandoc's own reading of our
`.bib` files agrees with our CSL-JSON on title, year and container title."""

from __future__ import annotations

import json
import re
import subprocess
from functools import cache
from types import ModuleType
from typing import Any

import pytest
from pylatexenc.latex2text import LatexNodes2Text

from bib.record import Record
from bib.writers import render

pytestmark = pytest.mark.toolchain

CSL_MARKUP = re.compile(r"</?(?:i|b|sup|sub|span)(?:\s[^>]*)?>")
"""The rich-text tags CSL processors (pandoc included) put into or read from CSL-JSON strings."""

NOCITE_ALL = "---\nnocite: '@*'\n---\n"


def plain(tc: ModuleType, text: str) -> str:
    return tc.skeleton(CSL_MARKUP.sub("", text))


@cache
def macro_text(macro: str) -> str:
    return LatexNodes2Text(math_mode="text").latex_to_text(macro).strip()


def math_as_text(text: str) -> str:
    """pandoc writes math from a .bib into CSL-JSON as TeX (`\\alpha`), we write the letter. Known
    macros become their Unicode text; unknown ones (`C:\\Temp`) stay as they are."""
    return re.sub(r"\\[A-Za-z]+", lambda m: macro_text(m.group()) or m.group(), text)


def year(item: dict[str, Any]) -> int | None:
    parts = item.get("issued", {}).get("date-parts") or [[None]]
    return parts[0][0]


@pytest.fixture(scope="session")
def rendered(pandoc_tool: None, tc: ModuleType, builds: Any, corpus: Any, corpus_items: list):
    """`pandoc --citeproc --bibliography refs.json -t plain` on a document citing everything."""

    def build(out: Any) -> dict[str, Any]:
        (out / "doc.md").write_text(NOCITE_ALL, encoding="utf-8")
        bibliography = corpus.path("csl-json")
        argv = ["pandoc", "doc.md", "--citeproc", "--bibliography", bibliography, "-t", "plain"]
        return tc.run([*argv, "-o", "doc.txt"], out)

    return builds.get("pandoc-citeproc", build)


def test_citeproc_runs_without_warnings(rendered: Any) -> None:
    assert rendered.data["rc"] == 0, rendered.data["stderr"]
    assert rendered.data["stderr"] == ""


def test_citeproc_renders_one_reference_per_record(rendered: Any, corpus_items: list) -> None:
    paragraphs = [p for p in rendered.text("doc.txt").split("\n\n") if p.strip()]
    assert len(paragraphs) == len(corpus_items)


def test_citeproc_renders_title_year_and_container_of_every_record(
    tc: ModuleType, rendered: Any, corpus_items: list
) -> None:
    paragraphs = [plain(tc, p) for p in rendered.text("doc.txt").split("\n\n") if p.strip()]
    wrong = []
    for item in corpus_items:
        title = plain(tc, item["title"])
        found = [p for p in paragraphs if title in p]
        expected = (str(year(item)), plain(tc, item["container-title"]))
        if not any(all(part in p for part in expected) for p in found):
            wrong.append(item["id"])
    assert wrong == []


@pytest.fixture(scope="session", params=[("bibtex", "bibtex"), ("biblatex", "biblatex")])
def pandoc_read(
    request: pytest.FixtureRequest,
    pandoc_tool: None,
    tc: ModuleType,
    builds: Any,
    corpus: Any,
    corpus_items: list,
) -> tuple[str, dict[str, Any]]:
    """pandoc's own reading of our `.bib` (`pandoc refs.bib -f FORMAT -t csljson`), by key."""
    fmt, reader = request.param

    def build(out: Any) -> dict[str, Any]:
        return tc.run(["pandoc", corpus.path(fmt), "-f", reader, "-t", "csljson"], out)

    result = builds.get(f"pandoc-read-{fmt}", build).data
    assert result["rc"] == 0, result["stderr"]
    return fmt, {item["id"]: item for item in json.loads(result["stdout"])}


def test_pandoc_reads_every_entry_of_our_bib(pandoc_read: tuple, corpus_items: list) -> None:
    _, read = pandoc_read
    assert sorted(read) == sorted(item["id"] for item in corpus_items)


@pytest.mark.parametrize("field", ["title", "container-title"])
def test_pandoc_reading_of_bib_agrees_with_our_csl_json(
    tc: ModuleType, pandoc_read: tuple, corpus_items: list, field: str
) -> None:
    _, read = pandoc_read
    differ = {
        item["id"]: (item.get(field), read.get(item["id"], {}).get(field))
        for item in corpus_items
        if plain(tc, item.get(field, ""))
        != plain(tc, math_as_text(read.get(item["id"], {}).get(field, "")))
    }
    assert differ == {}


def test_pandoc_reading_of_bib_agrees_with_our_csl_json_on_year(
    pandoc_read: tuple, corpus_items: list
) -> None:
    _, read = pandoc_read
    differ = {
        item["id"]: (year(item), year(read.get(item["id"], {})))
        for item in corpus_items
        if year(item) != year(read.get(item["id"], {}))
    }
    assert differ == {}


def test_pandoc_reads_two_apostrophes_in_a_plain_field_as_two_apostrophes(
    pandoc_tool: None, tmp_path: Any
) -> None:
    """Regression: a CSL value `''` was written as it is, which TeX and pandoc read as a
    closing double quote. pandoc is the independent reader here (it turns apostrophes
    typographic, U+2019)."""
    record = Record(id="a", key="k2026", title="T", publisher="a''b", year=2026)
    (tmp_path / "refs.bib").write_text(render([record], "biblatex"), encoding="utf-8")
    out = subprocess.run(
        ["pandoc", "refs.bib", "-f", "biblatex", "-t", "csljson"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(out.stdout)[0]["publisher"] in ("a''b", "a\u2019\u2019b")
