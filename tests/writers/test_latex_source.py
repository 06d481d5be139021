"""A `.bib` value nobody changed is written back as the input wrote it; a changed one is
encoded by the writer (`bib.latex.source`, docs/decisions/latex-source.md).

The oracle of "as written" is the tokenizer reading our output (the value between the
delimiters, or the `@string` references); the oracle of "encoded" is the same record written
with no LaTeX kept (`Record.latex = None`), which is what the writer did before.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib import convert as engine
from bib.readers import bibtex, bibtex_syntax
from bib.record import evolve
from bib.writers import render

PIECES = [
    "{NASA}",
    "\\emph{x}",
    "--",
    '\\"{o}',
    "ö",
    "\\'e",
    "{\\={P}}ot",
    "\\TeX{}",
    "~",
    "a",
    "B",
    " ",
    "\\&",
    "$x^2$",
    "{\\em y}",
]
values = (
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8)
    .map("".join)
    .filter(lambda v: v == v.strip() and any(p in v for p in ("a", "B", "ö", "NASA")))
)
"""LaTeX values that print something (one that prints nothing, `~`, is no value)."""
FIELDS = ("title", "journal", "publisher", "series", "volume", "editor", "abstract")


def _read(text: str):
    return list(bibtex.read(text.encode(), "x.bib"))


def _written(text: str) -> dict[str, bibtex_syntax.Field]:
    (entry,) = bibtex_syntax.parse(text, "out.bib").entries
    return {f.name: f for f in entry.fields}


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
@given(value=values)
def test_an_unchanged_value_is_written_as_the_input_wrote_it(dialect, value):
    body = ",\n".join(f"  {name} = {{{value}}}" for name in FIELDS)
    (record,) = _read(f"@article{{k,\n  author = {{{value}}},\n{body}\n}}\n")
    out = _written(render([record], dialect))
    renamed = {"journal": "journaltitle"} if dialect == "biblatex" else {}
    for name in ("author", *FIELDS):
        assert out[renamed.get(name, name)].value == value, name


@given(value=values, other=values)
def test_a_changed_value_is_encoded_by_the_writer(value, other):
    (record,) = _read(f"@article{{k, title = {{{value}}}, publisher = {{{value}}}}}\n")
    changed = evolve(record, title=record.title + " " + other, publisher="Other Press")
    ours = _written(render([changed], "bibtex"))
    encoded = _written(render([evolve(changed, latex=None)], "bibtex"))
    assert ours["title"].value == encoded["title"].value
    assert ours["publisher"].value == encoded["publisher"].value


def test_string_references_and_preambles_are_written_back():
    text = (
        '@preamble{"\\newcommand{\\noopsort}[1]{}"}\n'
        "@string{jacm = {Journal of the {ACM}}}\n"
        '@string{unused = "x"}\n'
        '@article{k, journal = jacm # " 12", month = jul, title = "T"}\n'
    )
    out = render(_read(text), "bibtex")
    assert out.startswith(
        "@preamble{{\\newcommand{\\noopsort}[1]{}}}\n@string{jacm = {Journal of the {ACM}}}\n\n"
    )
    fields = _written(out.split("\n\n", 1)[1])
    assert fields["journal"].raw == 'jacm # " 12"'
    assert fields["month"].raw == "jul"
    assert "unused" not in out


def test_a_value_read_as_a_macro_is_written_braced_once_it_changes():
    (record,) = _read('@string{acm = "ACM"}\n@book{k, publisher = acm, title = "T"}\n')
    assert _written(render([record], "bibtex"))["publisher"].raw == "acm"
    changed = evolve(record, publisher="ACM Press")
    assert _written(render([changed], "bibtex"))["publisher"].raw == ""


def test_two_inputs_defining_one_string_differently_are_written_expanded(tmp_path):
    a = tmp_path / "a.bib"
    b = tmp_path / "b.bib"
    a.write_text('@string{j = "Journal A"}\n@article{ka, journal = j, title = "A"}\n')
    b.write_text('@string{j = "Journal B"}\n@article{kb, journal = j, title = "B"}\n')
    told: list[str] = []
    out = tmp_path / "out.bib"
    engine.convert(
        [a, b],
        [engine.FileSink(out, "bibtex")],
        engine.ConvertOptions(stages=(), report=told.append),
    )
    text = out.read_text()
    assert "@string" not in text
    assert "journal = {Journal A}" in text and "journal = {Journal B}" in text
    assert any("@string 'j' is defined differently" in line for line in told)


def test_ascii_output_does_not_keep_non_ascii_latex():
    (record,) = _read("@misc{k, title = {Müller}}\n")
    assert _written(render([record], "bibtex", ascii=True))["title"].value == 'M{\\"u}ller'
