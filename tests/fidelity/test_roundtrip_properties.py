"""Issue 18, point 10 (d): CSL -> BibLaTeX (and BibTeX) -> CSL keeps dates, names and the
CSL variables, whatever their values (hypothesis). The reference is the CSL item itself:
what comes back must be what went in."""

from __future__ import annotations

import calendar
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bib import convert as engine
from bib import writers

SUFFIX = {"biblatex": ".biblatex.bib", "bibtex": ".bib", "csl-json": ".json"}


def _through(item: dict[str, Any], fmt: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder, "in.json")
        source.write_text(json.dumps([item]), encoding="utf-8")
        middle = Path(folder, f"middle{SUFFIX[fmt]}")
        records = engine.run([source], engine.ConvertOptions(stages=())).records
        middle.write_text(writers.render(records, fmt), encoding="utf-8")
        back = engine.run([middle], engine.ConvertOptions(stages=())).records
        [out] = json.loads(writers.render(back, "csl-json"))
        return out


@st.composite
def dates(draw: st.DrawFn) -> list[int]:
    year = draw(st.integers(1000, 2100))
    month = draw(st.none() | st.integers(1, 12))
    if month is None:
        return [year]
    day = draw(st.none() | st.integers(1, calendar.monthrange(year, month)[1]))
    return [year, month] if day is None else [year, month, day]


date_parts = st.lists(dates(), min_size=1, max_size=2)

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÉÖÜÇŁØÅ"
_LOWER = "abcdefghijklmnopqrstuvwxyzäéöüçłøåß"
word = st.builds(lambda a, b: a + b, st.sampled_from(_UPPER), st.text(_LOWER, max_size=8))
part = st.lists(word, min_size=1, max_size=3).map(" ".join)
names = st.lists(
    st.fixed_dictionaries(
        {"family": part, "given": part},
        optional={"suffix": st.sampled_from(["Jr.", "Sr.", "III"])},
    ),
    min_size=1,
    max_size=4,
)
particle = st.sampled_from(["van", "von", "de la", "van der", "d'", "di", "ter"])
names_with_particles = st.lists(
    st.fixed_dictionaries(
        {"family": part, "given": part},
        optional={"dropping-particle": particle, "non-dropping-particle": particle},
    ),
    min_size=1,
    max_size=4,
)
_TEXT = _UPPER + _LOWER + "0123456789 .,:;()/'?!"
text = (
    st.text(_TEXT, min_size=1, max_size=40).map(lambda value: " ".join(value.split())).filter(bool)
)
TEXT_VARIABLES = (
    "volume",
    "page",
    "edition",
    "publisher-place",
    "genre",
    "medium",
    "status",
    "ISBN",
    "ISSN",
    "collection-number",
    "version",
    "dimensions",
    "archive_location",
)


@settings(max_examples=25)
@given(issued=date_parts, accessed=date_parts, original=date_parts)
def test_dates_come_back_whole_through_biblatex(issued, accessed, original):
    item = {
        "id": "k",
        "type": "book",
        "title": "T",
        "issued": {"date-parts": issued},
        "accessed": {"date-parts": accessed},
        "original-date": {"date-parts": original},
    }
    out = _through(item, "biblatex")
    assert {v: out.get(v) for v in ("issued", "accessed", "original-date")} == {
        v: item[v] for v in ("issued", "accessed", "original-date")
    }


@settings(max_examples=25)
@given(issued=date_parts)
def test_issued_comes_back_whole_through_bibtex(issued):
    out = _through(
        {"id": "k", "type": "book", "title": "T", "issued": {"date-parts": issued}}, "bibtex"
    )
    assert out["issued"] == {"date-parts": issued}


@settings(max_examples=25)
@given(authors=names, editors=names, translators=names)
def test_names_come_back_through_biblatex(authors, editors, translators):
    item = {
        "id": "k",
        "type": "book",
        "title": "T",
        "author": authors,
        "editor": editors,
        "translator": translators,
    }
    out = _through(item, "biblatex")
    assert (out["author"], out["editor"], out["translator"]) == (authors, editors, translators)


@settings(max_examples=25)
@given(values=st.fixed_dictionaries({name: text for name in TEXT_VARIABLES}))
def test_csl_variables_come_back_through_biblatex(values):
    item = {"id": "k", "type": "book", "title": "T", **values}
    out = _through(item, "biblatex")
    assert {name: out.get(name) for name in values} == values


@settings(max_examples=25)
@given(authors=names_with_particles, editors=names_with_particles)
def test_particles_of_both_kinds_come_back_through_bibtex_biblatex_and_csl(authors, editors):
    """Issue 18, point 7: a dropping particle is written after the given name (`Fontaine,
    Jean de la`) and a non-dropping one before the family name (`van Gogh, Vincent`), so
    each comes back as the kind it was."""
    item = {"id": "k", "type": "book", "title": "T", "author": authors, "editor": editors}
    for fmt in ("bibtex", "biblatex", "csl-json"):
        out = _through(item, fmt)
        assert (out["author"], out["editor"]) == (authors, editors), fmt


def test_two_apostrophes_in_a_csl_variable_come_back_as_two_apostrophes():
    """Regression (found by hypothesis): `''` was written as it is, which TeX prints, and
    bib read back, as a closing double quote."""
    item = {"id": "k", "type": "book", "title": "T", "archive_location": "a''b", "version": "''"}
    out = _through(item, "biblatex")
    assert (out["archive_location"], out["version"]) == ("a''b", "''")
