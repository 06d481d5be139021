"""Issue 18 point 3: LaTeX in real bibliographies decodes without losing text.

Each defect found converting TeX Live's bibliographies is a test named after it. The
references: what the macros print in LaTeX (the LaTeX kernel and `ltlogos`/`hologo` for
the logos, `textcomp` for the symbols, url.sty for `\\path`), natbib's `\\cite` family, and
pdflatex itself for what we write (compiled under T1/utf8, the default set-up).
"""

from __future__ import annotations

import subprocess
import unicodedata

from hypothesis import given
from hypothesis import strategies as st
from pylatexenc.latex2text import LatexNodes2Text

from bib import convert as engine
from bib.latex import decode, escape, to_latex
from bib.latex.tables import _ACCENTS
from bib.readers.bibtex import to_unicode
from bib.writers import bibtex, csljson


def _record(tmp_path, text):
    path = tmp_path / "refs.bib"
    path.write_text(text, encoding="utf-8")
    [record] = engine.run([path], engine.ConvertOptions(stages=())).records
    return record


def _csl(tmp_path, text):
    return csljson.item(_record(tmp_path, text))


def test_tex_latex_bibtex_amslatex_metafont_are_deleted(tmp_path):
    title = "\\TeX\\ and \\LaTeX, \\BibTeX, \\AmSLaTeX, \\METAFONT"
    item = _csl(tmp_path, f"@book{{a, title = {{{title}}}}}\n")
    assert item["title"] == "TeX and LaTeX, BibTeX, AMS-LaTeX, METAFONT"


def test_copyright_section_paragraph_and_hyphen_are_deleted(tmp_path):
    note = "\\copyright\\ 1990, \\S 3, \\P 4, a\\hyphen b"
    item = _csl(tmp_path, f"@book{{a, title = {{T}}, note = {{{note}}}}}\n")
    assert item["note"] == "© 1990, §3, ¶4, a-b"


def test_mbox_is_deleted(tmp_path):
    item = _csl(tmp_path, "@book{a, title = {T}, publisher = {\\mbox{New York} Press}}\n")
    assert item["publisher"] == "New York Press"


def test_a_title_that_is_only_mtex_is_dropped(tmp_path):
    item = _csl(tmp_path, "@book{a, title = {{\\MTeX}}}\n")
    assert item["title"] == "MTeX"


def test_unknown_macros_are_kept_as_their_name_never_deleted(tmp_path):
    item = _csl(tmp_path, "@book{a, title = {The \\XyMTeX{} package and \\foo}}\n")
    assert item["title"] == "The XyMTeX package and foo"


def test_accents_with_a_space_or_a_brace_argument_decode(tmp_path):
    title = "Erd\\H os, \\c c, \\'{e}, \\\"\\i, \\ss{}e, \\v {s}"
    item = _csl(tmp_path, f"@book{{a, title = {{{title}}}}}\n")
    assert item["title"] == "Erdős, ç, é, ï, ße, š"


def test_cite_in_a_note_becomes_textless_cit_textgreater(tmp_path):
    record = _record(tmp_path, "@book{a, title = {T}, note = {See \\cite{knuth84,lamport}.}}\n")
    assert csljson.item(record)["note"] == "See [@knuth84; @lamport]."
    assert bibtex.entry(record)["note"] == "See \\cite{knuth84,lamport}."


def test_path_addresses_of_tugboat_bibliographies_print_their_text(tmp_path):
    item = _csl(tmp_path, "@book{a, title = {T}, note = {E-mail \\path|ab@cd.org|}}\n")
    assert item["note"] == "E-mail ab@cd.org"


def test_font_switches_and_sort_keys_print_nothing(tmp_path):
    item = _csl(tmp_path, "@book{a, title = {{\\noopsort{a}}{\\em The} {\\acro{TUG}} Book}}\n")
    assert item["title"] == "The TUG Book"


def test_a_letter_with_a_combining_macron_is_written_as_an_accent_macro(tmp_path):
    record = _record(tmp_path, "@book{a, title = {T}, author = {{\\={P}}ot, Anna}}\n")
    assert bibtex.entry(record)["author"] == "{\\={P}}ot, Anna"
    assert bibtex.entry(record, ascii=True)["author"] == "{\\={P}}ot, Anna"


def test_combining_accents_without_a_precomposed_letter_compile_with_pdflatex(tmp_path, require):
    require("pdflatex")
    values = [escape("P\u0304ot"), escape("x\u0301\u0323"), to_latex("\u0131\u0304 \u1e0b\u0323")]
    assert all(value.isascii() for value in values)
    document = (
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}"
        "\\begin{document}" + " ".join(values) + "\\end{document}\n"
    )
    (tmp_path / "doc.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]


def test_an_accent_on_a_letter_that_carries_a_mark_is_put_on_the_letter_once():
    """Regression: pylatexenc put an accent on every code point of its argument, so
    `\\`{\\c{O}}` (O with a cedilla, then a grave) came back with a second grave on the
    cedilla."""
    assert unicodedata.normalize("NFC", decode("\\`{\\c{O}}")) == unicodedata.normalize(
        "NFC", "O\u0327\u0300"
    )


@given(st.text(alphabet=st.characters(whitelist_categories=("Lu", "Ll")), min_size=1, max_size=6))
def test_an_accent_on_unmarked_letters_reads_as_pylatexenc_reads_it(letters):
    """Oracle: pylatexenc's default decoder, which marks each code point; letters without
    marks are one code point each, so both must agree."""
    plain = LatexNodes2Text()
    for command in _ACCENTS:
        latex = "\\" + command + "{" + letters + "}"
        assert decode(latex) == plain.latex_to_text(latex).strip(), latex


def test_a_brace_group_between_two_apostrophes_keeps_them_apart():
    """TeX prints `'{}'` as two apostrophes and `''` as a closing double quote."""
    assert to_unicode("a'{}'b") == "a''b"
    assert to_unicode("a''{}b") == "a\u201db"
