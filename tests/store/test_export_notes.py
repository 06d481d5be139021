"""Reading notes in exports: each note its own paragraph of BibTeX `annote` / BibLaTeX
`annotation`, its markdown rendered to LaTeX (emphasis, lists, links, code) rather than
flattened; CSL-JSON `note` keeps the markdown.

The references are independent: pybtex reads the fields, pandoc turns them into text, and
pdflatex with biber (biblatex's `reading` style) or BibTeX (`chicago-annote.bst`) typesets
them, as an annotated bibliography does.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pybtex.database import parse_string

from annotations.store import Store
from bib.latex.markdown import notes_to_latex

RICH_NOTE = """Compare with *Switch* and **GShard**; see [the code](https://example.org/a_b).

- routing as an `lp_solve` problem
- 50% less compute & memory

1. one
2. two
"""


@pytest.fixture
def noted(store: Store) -> Store:
    store.add_note("usmoe2026", RICH_NOTE)
    store.add_note("usmoe2026", "Second note: *reread* section 3.")
    return store


def fields_of(text: str, key: str) -> dict[str, str]:
    entries = parse_string(text, "bibtex").entries
    return {name.lower(): value for name, value in entries[key].fields.items()}


def test_each_note_is_its_own_paragraph_in_annote(cli, noted: Store) -> None:
    annote = fields_of(cli("export", "-f", "bibtex").stdout, "usmoe2026")["annote"]
    first, second = annote.split("\\par Second note")
    assert "GShard" in first and "reread" in second


def test_notes_are_not_run_together_in_biblatex_annotation(cli, noted: Store) -> None:
    annotation = fields_of(cli("export", "-f", "biblatex").stdout, "usmoe2026")["annotation"]
    assert "\\par Second note: \\emph{reread} section 3." in annotation


def test_markdown_emphasis_links_code_and_lists_become_latex(cli, noted: Store) -> None:
    annote = fields_of(cli("export").stdout, "usmoe2026")["annote"]
    assert "\\emph{Switch}" in annote and "\\textbf{GShard}" in annote
    assert "the code (\\url{https://example.org/a_b})" in annote
    assert "\\texttt{lp\\_solve}" in annote
    assert "\\begin{itemize}\\item routing" in annote
    assert "\\begin{enumerate}\\item one\\item two\\end{enumerate}" in annote
    assert "*" not in annote and "50\\% less compute \\& memory" in annote


def test_csl_json_note_keeps_the_markdown(cli, noted: Store) -> None:
    items = json.loads(cli("export", "-f", "csl-json").stdout)
    note = next(i for i in items if i["id"] == "usmoe2026")["note"]
    assert "*Switch*" in note and "- routing as an `lp_solve` problem" in note


def test_an_imported_annote_and_our_notes_are_separate_paragraphs(
    cli, store: Store, make_record
) -> None:
    record = make_record("id-jabref", "jabref2020", "From JabRef", fields=(("annote", "50% off"),))
    store.upsert([record])
    store.add_note("jabref2020", "Mine, *emphasised*")
    annote = fields_of(cli("export").stdout, "jabref2020")["annote"]
    assert annote == "50\\% off\\par Mine, \\emph{emphasised}"


def test_pandoc_reads_the_rendered_notes_as_their_words(
    cli, noted: Store, tmp_path: Path, require: Callable[..., None]
) -> None:
    require("pandoc")
    out = tmp_path / "refs.bib"
    cli("export", "-f", "biblatex", "-o", out)
    done = subprocess.run(
        ["pandoc", "-f", "biblatex", "-t", "csljson", str(out)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    item = next(i for i in json.loads(done.stdout) if i["id"] == "usmoe2026")
    text = item["annote"]
    for words in ("Switch", "GShard", "lp_solve", "50% less compute & memory", "reread"):
        assert words in text
    assert "\\" not in text and "*" not in text


def compile_annotated(tmp_path: Path, tool: str) -> str:
    """Typeset the export as an annotated bibliography; the PDF's text."""
    if tool == "biber":
        preamble = "\\usepackage[backend=biber,style=reading]{biblatex}\\addbibresource{refs.bib}"
        bibliography = "\\printbibliography"
    else:
        preamble = "\\usepackage{chicago}"
        bibliography = "\\bibliographystyle{chicago-annote}\\bibliography{refs}"
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}"
        f"\\usepackage{{url}}{preamble}\\begin{{document}}\\nocite{{*}}{bibliography}"
        "\\end{document}\n"
    )
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc"]
    for step in (latex, [tool, "doc"], latex, latex):
        done = subprocess.run(step, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "doc.log").read_text(encoding="latin-1")
    assert "\n!" not in log
    subprocess.run(["pdftotext", "-enc", "UTF-8", "doc.pdf", "doc.txt"], cwd=tmp_path, check=True)
    return (tmp_path / "doc.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(("fmt", "tool"), [("biblatex", "biber"), ("bibtex", "bibtex")])
def test_rendered_notes_typeset_in_an_annotated_bibliography(
    cli, noted: Store, tmp_path: Path, fmt: str, tool: str, require: Callable[..., None]
) -> None:
    require("pdflatex", tool, "pdftotext")
    cli("export", "-f", fmt, "-o", tmp_path / "refs.bib")
    text = compile_annotated(tmp_path, tool)
    words = " ".join("".join(c for c in text if c.isprintable() or c.isspace()).split())
    assert all(w in words for w in ("Compare with Switch", "GShard", "; see the code"))
    assert "routing as an lp_solve problem 50% less compute & memory 1. one 2. two" in words
    assert "Second note: reread section 3." in words
    # a note starts a paragraph of its own: a new line, not run on after the first note
    assert any(line.strip().startswith("Second note:") for line in text.splitlines())
    assert "*" not in text and "\\" not in text


MARKDOWN = st.lists(
    st.sampled_from([*"ab *_`[]()<>#-1.\\{}%&$^~\né", "https://x.org/", "\n\n", "- ", "```"]),
    max_size=40,
).map("".join)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(MARKDOWN, max_size=3))
def test_any_markdown_renders_to_a_value_bibtex_parsers_accept(notes: list[str]) -> None:
    value = notes_to_latex(notes)
    entry = f"@misc{{k,\n  annote = {{{value}}},\n}}\n"
    parsed = parse_string(entry, "bibtex").entries["k"].fields.get("annote", "")
    assert parsed == value  # braces balanced: pybtex read the whole value back


def test_a_blank_note_renders_to_nothing() -> None:
    assert notes_to_latex(["  \n\n "]) == ""
