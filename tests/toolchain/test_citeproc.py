"""citeproc-py, an independent CSL processor, renders every record of our CSL-JSON."""

from __future__ import annotations

import re
import warnings
from types import ModuleType
from typing import Any

import pytest
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON

STYLE = "harvard-cite-them-right"
"""The style citeproc-py bundles (0.6 to 0.11); no download needed."""

MARKUP = re.compile(r"</?(?:i|b|sup|sub|span)(?:\s[^>]*)?>")


@pytest.fixture(scope="module")
def bibliography(corpus_items: list[dict[str, Any]]) -> list[str]:
    with warnings.catch_warnings():
        # citeproc-py does not know the CSL 1.0.2 variables `citation-key` and `custom` and says
        # so; both are valid CSL-JSON (schema/csl-data.json), so this is not about our output.
        warnings.filterwarnings("ignore", message="The following arguments for Reference")
        source = CiteProcJSON(corpus_items)
    style = CitationStylesStyle(STYLE, validate=False)
    rendered = CitationStylesBibliography(style, source, formatter.plain)
    rendered.register(Citation([CitationItem(item["id"]) for item in corpus_items]))
    return [str(entry) for entry in rendered.bibliography()]


def test_citeproc_py_renders_one_entry_per_record(
    bibliography: list[str], corpus_items: list
) -> None:
    assert len(bibliography) == len(corpus_items)


def test_citeproc_py_renders_title_year_and_container_of_every_record(
    tc: ModuleType, bibliography: list[str], corpus_items: list
) -> None:
    entries = [tc.skeleton(MARKUP.sub("", entry)) for entry in bibliography]
    wrong = []
    for item in corpus_items:
        title = tc.skeleton(MARKUP.sub("", item["title"]))
        expected = (str(item["issued"]["date-parts"][0][0]), tc.skeleton(item["container-title"]))
        if not any(title in entry and all(e in entry for e in expected) for entry in entries):
            wrong.append(item["id"])
    assert wrong == []
