"""Reading back a `.bib` that bib wrote gives the record text that was written."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bib.latex import to_text
from bib.readers import bibtex
from bib.record import Record
from bib.writers import render

# Record text: LaTeX specials, braces, markdown, math, links and the commands record text
# understands, with and without TeX ligatures (`--`, `''`, `!``).
SPECIALS = list("{}\\$%&#_^~*`[]()<>|@,=\"! .:/\n-'")
SNIPPETS = [
    "**bold**",
    "*em*",
    "_em_",
    "`code`",
    "$x^2$",
    "$6\\times$",
    "\\(a+b\\)",
    "\\textbf{",
    "\\emph{x}",
    "\\url{https://x.org/a_b}",
    " [site](https://x.org)",  # a word glued to link text is braced differently
    "<https://x.org>",
    "\\input{",
    "\\%",
    "\\&",
    "\\'e",
    "USMoE",
    "Ünïcödé",
    "a--b",
    "``q''",
]
texts = st.lists(
    st.one_of(
        st.sampled_from(SPECIALS),
        st.sampled_from(SNIPPETS),
        st.text(st.characters(codec="utf-8"), max_size=4),
    ),
    max_size=20,
).map("".join)
# The `.bib` keeps a ligature as written and reading it gives the character TeX prints (the
# same as CSL-JSON shows): the file changes once, in those characters only.
TYPESET = "\u2013\u2014\u201c\u201d\u00a1\u00bf"  # what `--`, `---`, ``, '', !`, ?` print
no_ligatures = texts.filter(lambda text: not any(ch in to_text(text) for ch in TYPESET))


def record(title: str, abstract: str) -> Record:
    return Record(id="a", key="first2026", title=title, abstract=abstract, note=abstract, year=2026)


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
@given(title=no_ligatures, abstract=no_ligatures)
def test_own_bib_read_and_written_again_is_the_same_file(title, abstract, dialect):
    first = render([record(title, abstract)], dialect)
    again = render(list(bibtex.read(first.encode("utf-8"), "r.bib")), dialect)
    assert again == first


@given(title=texts, abstract=texts)
@example(title="", abstract="$`code`$")  # a backtick in math was read as a text quote
def test_own_bib_read_back_gives_the_csl_json_of_the_record(title, abstract):
    direct = json.loads(render([record(title, abstract)], "csl-json"))
    text = render([record(title, abstract)], "bibtex")
    via_bib = json.loads(render(list(bibtex.read(text.encode("utf-8"), "r.bib")), "csl-json"))
    fields = ("title", "abstract", "note")
    assert [item.get(f) for item in via_bib for f in fields] == [
        item.get(f) for item in direct for f in fields
    ]


def test_tex_ligatures_read_back_as_the_characters_tex_prints():
    text = render([record("One--two ``quoted''", "")], "bibtex")
    [read] = bibtex.read(text.encode("utf-8"), "r.bib")
    assert read.title == "One\u2013two \u201cquoted\u201d"


def test_own_key_field_is_not_read_as_an_extra_field():
    text = render(
        [Record(id="a", key="webworld2026", title="WebWorld: Agents", year=2026)], "bibtex"
    )
    [read] = bibtex.read(text.encode("utf-8"), "r.bib")
    assert ("key = {WebWorld}" in text, dict(read.fields)) == (True, {})
