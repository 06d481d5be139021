"""Defects found by compiling TeX Live's `.bib` files through our output (issue 18, point 10),
each named after what went wrong. References: biber (`biber --tool`), biblatex's manual
(`month` "must be an integer"; `issue` for designations such as "Spring")."""

from __future__ import annotations

import json
from pathlib import Path

from bib import convert as engine
from bib import writers
from bib.readers import names


def _convert(tmp_path: Path, text: str, fmt: str, name: str = "in.bib") -> str:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    return writers.render(engine.run([source], engine.ConvertOptions(stages=())).records, fmt)


def test_an_editor_with_braced_commas_was_written_with_textbraceleft():
    """The canonical name list kept the braces that protect a part: written back, they
    became `\\textbraceleft{}` and biber split the name on its commas."""
    authors = names.parse_names("{Beloit College, USA}, Paul and {World Health Organization}")
    assert [(a.family, a.given, a.literal) for a in authors] == [
        ("Beloit College, USA", "Paul", ""),
        ("", "", "World Health Organization"),
    ]


def test_a_month_that_is_no_month_made_biber_and_biblatex_warn(tmp_path):
    text = _convert(
        tmp_path,
        "@article{a, author={Doe, J}, title={T}, journal={J}, year={1990}, month={Summer}}\n"
        "@book{b, author={Doe, J}, title={T}, year={1990}, month={June--August}}\n",
        "biblatex",
    )
    assert "month = " not in text
    assert "issue = {Summer}" in text
    assert "addendum = {June" in text


def test_a_year_that_is_no_number_was_lost(tmp_path):
    bibtex = _convert(tmp_path, "@misc{a, title={T}, year={20xx}}\n", "bibtex")
    assert "year = {20xx}" in bibtex
    [item] = json.loads(_convert(tmp_path, "@misc{a, title={T}, year={20xx}}\n", "csl-json"))
    assert item["issued"] == {"literal": "20xx"}


def test_bibtex_lost_a_date_with_a_day(tmp_path):
    text = _convert(
        tmp_path, "@misc{a, title={T}, date={2019-06-01/2019-06-05}}\n", "bibtex", "in.bib"
    )
    assert "date = {2019-06-01/2019-06-05}" in text and "month = {June}" in text
