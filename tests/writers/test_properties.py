"""Hypothesis properties: no text can break an entry, inject one, or change what it says."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bib.latex import decode, to_text
from bib.record import Author, Record
from bib.writers import render
from bib.writers.bibtex import entry

LATEX_SPECIALS = list("{}\\$%&#_^~*`[]()<>|@,=\"' \n\t")
SNIPPETS = ["\\textbf{", "\\url{", "$\\times$", "**", "](http://x)", "\\input{", "\x00"]

texts = st.lists(
    st.one_of(
        st.sampled_from(LATEX_SPECIALS),
        st.sampled_from(SNIPPETS),
        st.characters(blacklist_categories=("Cs",)),
        st.text(max_size=5),
    ),
    max_size=30,
).map("".join)

# TeX ligatures print as typographic characters; pylatexenc decodes them that way too.
LIGATURES = [("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d")]


def printed(text: str) -> str:
    """What TeX prints for `text`, in NFC: a letter with a combining accent is written as the
    accent macro (`\\`{A}`), which reads back as the composed letter, canonically the same
    text (Unicode's canonical equivalence)."""
    for source, shown in LIGATURES:
        text = text.replace(source, shown)
    return unicodedata.normalize("NFC", text)


def records(title: str, abstract: str, family: str) -> list[Record]:
    first = Record(
        id="a",
        key="first2026",
        title=title,
        abstract=abstract,
        note=abstract,
        authors=(Author(family, "Ann"), Author(literal=family)),
        year=2026,
    )
    second = Record(id="b", key="second2026", title="Second", abstract="plain", year=2026)
    return [first, second]


@given(title=texts, abstract=texts, family=texts)
def test_any_text_parses_strictly_into_exactly_the_records_written(title, abstract, family, strict):
    for fmt in ("bibtex", "biblatex"):
        data = strict(render(records(title, abstract, family), fmt))
        assert list(data.entries) == ["first2026", "second2026"]
        assert data.entries["second2026"].fields["title"] == "Second"


@given(title=texts, abstract=texts)
def test_any_text_decodes_back_to_what_it_says(title, abstract, strict):
    data = strict(render(records(title, abstract, "X"), "bibtex"))
    fields = data.entries["first2026"].fields
    assert printed(decode(fields.get("title", ""))) == printed(to_text(title))
    assert printed(decode(fields.get("abstract", ""))) == printed(to_text(abstract))


def test_a_combining_accent_written_as_its_macro_decodes_to_the_same_text():
    data = render(records("A\u0300", "", "X"), "bibtex")
    assert "\\`{A}" in data
    assert printed(decode("{\\`{A}}")) == printed(to_text("A\u0300"))


@given(title=texts, abstract=texts)
def test_any_text_keeps_braces_balanced_in_every_value(title, abstract):
    for record in records(title, abstract, title):
        for name, value in entry(record).items():
            depth = 0
            for ch in value:
                depth += {"{": 1, "}": -1}.get(ch, 0)
                assert depth >= 0, (name, value)
            assert depth == 0, (name, value)


@given(title=texts, abstract=texts, family=texts)
def test_ascii_output_is_ascii_and_parses_strictly(title, abstract, family, strict):
    text = render(records(title, abstract, family), "bibtex", ascii=True)
    assert text.isascii()
    assert list(strict(text).entries) == ["first2026", "second2026"]


@given(title=texts, abstract=texts, family=texts)
def test_any_text_gives_valid_csl_json_saying_the_same(title, abstract, family):
    items = json.loads(render(records(title, abstract, family), "csl-json"))
    assert [i["id"] for i in items] == ["first2026", "second2026"]
    assert items[0].get("title", "") == to_text(title)
