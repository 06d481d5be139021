"""Issue 18, point 4: a range of years written to classic BibTeX. It was `year = {1965}`
beside a `date` that BibTeX ignores, so every style printed the first year alone. The
reference is BibTeX itself: plainnat's `.bbl` of our output, and pybtex reading the field."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bib import convert as engine
from bib import writers

ITEMS = [
    {
        "id": "span",
        "type": "book",
        "title": "Collected Papers",
        "publisher": "P",
        "author": [{"family": "Doe", "given": "Jane"}],
        "issued": {"date-parts": [[1965], [1981]]},
    },
    {
        "id": "days",
        "type": "book",
        "title": "Days",
        "publisher": "P",
        "author": [{"family": "Roe", "given": "Rick"}],
        "issued": {"date-parts": [[2019, 6, 1], [2019, 6, 5]]},
    },
]


def _bibtex(tmp_path: Path) -> str:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(ITEMS), encoding="utf-8")
    records = engine.run([source], engine.ConvertOptions(stages=())).records
    return writers.render(records, "bibtex")


def test_bibtex_printed_only_the_first_year_of_a_year_range(tmp_path, require):
    require("bibtex")
    (tmp_path / "refs.bib").write_text(_bibtex(tmp_path), encoding="utf-8")
    (tmp_path / "doc.aux").write_text(
        "\\relax\n\\citation{span}\n\\citation{days}\n\\bibstyle{plainnat}\n\\bibdata{refs}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout
    bbl = " ".join((tmp_path / "doc.bbl").read_text(encoding="utf-8").split())
    # natbib's label and the entry's date: the span; a range within one year keeps its year
    assert "\\bibitem[Doe(1965--1981)]{span}" in bbl and "P, 1965--1981." in bbl, bbl
    assert "\\bibitem[Roe(2019)]{days}" in bbl and "P, June 2019." in bbl, bbl


def test_a_year_range_reads_back_from_bibtex_as_the_range(tmp_path):
    pybtex = pytest.importorskip("pybtex.database")
    text = _bibtex(tmp_path)
    fields = pybtex.parse_string(text, "bibtex").entries["span"].fields
    assert (fields["year"], "date" in fields) == ("1965--1981", False)
    back = tmp_path / "back.bib"
    back.write_text(text, encoding="utf-8")
    [item] = [
        i
        for i in json.loads(
            writers.render(engine.run([back], engine.ConvertOptions(stages=())).records, "csl-json")
        )
        if i["id"] == "span"
    ]
    assert item["issued"] == {"date-parts": [[1965], [1981]]}
