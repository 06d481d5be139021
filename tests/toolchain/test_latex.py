"""The seeds and the stress list, converted by `bib convert` and compiled by the real tools.

One document per toolchain holds every record (`\\nocite{*}`):
- `bibtex`: `-f bibtex` (UTF-8), natbib + plainnat, pdflatex -> bibtex -> pdflatex x2;
- `bibtex-ascii`: `-f bibtex --ascii`, the same, with no Unicode declarations at all;
- `biblatex`: `-f biblatex`, biblatex (draft style, abstracts printed),
  pdflatex -> biber -> pdflatex x2 (with only \nocite{*}, biblatex asks for a second run).

The PDF text (pdftotext) must show every record's key label and title, acronyms in their case.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from types import ModuleType
from typing import Any

import bibtexparser
import pytest
from bibtexparser.bparser import BibTexParser

pytestmark = pytest.mark.toolchain

DOCUMENTS = {
    # name: (converted format, backend, compile options)
    "bibtex": ("bibtex", "bibtex", {}),
    "bibtex-ascii": ("bibtex-ascii", "bibtex", {"declare_unicode": False}),
    "biblatex": ("biblatex", "biber", {}),
}

# Literal text from tests/data/stress.txt titles that must reach the PDF exactly (whitespace and
# case aside: plainnat lowercases titles).
STRESS_LITERALS = [
    "Specials & Co.: 100% of $5 Budgets, Issue #42, snake_case, ~tilde, x^y and C:\\Temp",
    "Unbalanced Braces: a} Closes Nothing, b{ Opens Forever, and {c}} Ends Twice",
]
STRESS_URL = "https://example.org/p%20q/a_b/~c/%E2%9C%93?x=1&y=2#frag_3"
ACCENTED_NAMES = ["Müller", "Łukasz", "Kaiser", "François", "Chollet"]


@pytest.fixture(scope="session")
def compile_corpus(
    request: pytest.FixtureRequest, tc: ModuleType, builds: Any, corpus: Any, corpus_items: list
) -> Callable[[str], Any]:
    """`compile_corpus(name)`: the corpus document NAME of DOCUMENTS, compiled once per run."""

    def get(name: str) -> Any:
        fmt, backend, options = DOCUMENTS[name]
        request.getfixturevalue("latex_tools" if backend == "bibtex" else "biber_tools")
        return tc.compile_build(builds, f"corpus-{name}", [corpus.path(fmt)], backend, **options)

    return get


@pytest.fixture(scope="session", params=list(DOCUMENTS))
def document(request: pytest.FixtureRequest, compile_corpus: Callable[[str], Any]) -> Any:
    return compile_corpus(request.param)


def expected_title(tc: ModuleType, document: Any, title: str) -> list[str]:
    """Skeleton pieces of TITLE the PDF must contain.

    UTF-8 documents stand `[U+XXXX]` in for characters pdflatex has no glyph for, so the whole
    title must appear with those placeholders. The `--ascii` document has no declarations: its
    non-typesettable characters became whatever LaTeX-safe replacement the writer chose, so
    every stretch of typesettable text between them must appear.
    """
    if document.declares_unicode:
        return [tc.skeleton(tc.with_placeholders(title, document.unsupported))]
    missing = set(tc.unsupported(title))
    pieces = re.split("|".join(map(re.escape, missing)), title) if missing else [title]
    return [tc.skeleton(piece) for piece in pieces if tc.skeleton(piece)]


def test_backend_exits_zero(document: Any) -> None:
    step = document.step("backend")
    assert step["rc"] == 0, f"{step['argv']} exited {step['rc']}:\n{step['stdout'][-3000:]}"


def test_backend_log_has_no_error(document: Any) -> None:
    assert document.blg_errors() == []


def test_backend_log_has_no_warning_about_our_entries(document: Any, corpus_items: list) -> None:
    authorless = [item["id"] for item in corpus_items if not item.get("author")]
    assert document.blg_warnings(authorless) == []


def test_plainnat_labels_authorless_entries_by_method_name(document: Any) -> None:
    if document.backend != "bibtex":
        pytest.skip("biblatex labels come from biber, which needs no key field")
    # plainnat leaves the year out of a label taken from `key`: `\citet` prints "AgentXRay"
    assert re.search(r"\\bibitem\[AgentXRay\((2026)?\)\]\{agentxray2026\}", document.bbl)


def test_final_pdflatex_run_is_clean(document: Any) -> None:
    assert document.log_problems() == []
    assert document.step("pdflatex-3")["rc"] == 0


def test_bbl_holds_each_record_exactly_once(document: Any, corpus_items: list) -> None:
    assert Counter(document.bbl_keys()) == Counter(item["id"] for item in corpus_items)


def test_pdf_shows_every_key_label(tc: ModuleType, document: Any, corpus_items: list) -> None:
    text = tc.squeeze(document.pdf_text)
    missing = [item["id"] for item in corpus_items if f"[{item['id']}]" not in text]
    assert missing == []


def test_pdf_shows_every_title(tc: ModuleType, document: Any, corpus_items: list) -> None:
    text = tc.skeleton(document.pdf_text)
    missing = [
        item["title"]
        for item in corpus_items
        if not all(piece in text for piece in expected_title(tc, document, item["title"]))
    ]
    assert missing == []


def test_pdf_keeps_acronyms_in_their_case(
    tc: ModuleType, document: Any, corpus_items: list
) -> None:
    text = tc.skeleton(document.pdf_text, fold=False)
    lost = sorted(
        {word for item in corpus_items for word in tc.acronyms(item["title"]) if word not in text}
    )
    assert lost == []


def test_stress_list_gives_one_record_per_title(tc: ModuleType, corpus_items: list) -> None:
    """The checks below see every stress entry: none was merged into another or dropped."""
    titles = [
        line for line in tc.STRESS.read_text("utf-8").splitlines() if line.startswith("Title:")
    ]
    stress = [item for item in corpus_items if item.get("event-title", "").startswith("NeurIPS")]
    assert len(stress) == len(titles)


def test_seed_acronyms_are_checked(tc: ModuleType, corpus_items: list) -> None:
    """The acronym check above is only as good as the acronyms it sees: the seeds' own."""
    words = {word for item in corpus_items for word in tc.acronyms(item["title"])}
    assert {"USMoE", "FairJudge", "LLaMA", "ResNet", "DeepSeek"} <= words


def test_biblatex_pdf_shows_every_abstract_without_math(
    tc: ModuleType, compile_corpus: Callable[[str], Any], corpus: Any, corpus_items: list
) -> None:
    """biber hands abstracts to LaTeX even when a style does not print them; this document
    prints them, and each must read as our CSL-JSON abstract. (Abstracts with inline math are
    left out: pdftotext renders math glyphs its own way, e.g. `\\|x\\|` as `kxk`.)"""
    document = compile_corpus("biblatex")
    fields = bibtexparser.loads(
        corpus.path("biblatex").read_text(encoding="utf-8"), parser=BibTexParser()
    ).entries_dict
    text = tc.skeleton(document.pdf_text)
    checked = [item for item in corpus_items if "$" not in fields[item["id"]].get("abstract", "$")]
    missing = [
        item["id"]
        for item in checked
        if tc.skeleton(tc.with_placeholders(item["abstract"], document.unsupported)) not in text
    ]
    assert len(checked) >= len(corpus_items) * 3 // 4
    assert missing == []


def test_pdf_shows_every_container_title(tc: ModuleType, document: Any, corpus_items: list) -> None:
    text = tc.skeleton(document.pdf_text)
    missing = sorted(
        {
            item["container-title"]
            for item in corpus_items
            if tc.skeleton(item.get("container-title", "")) not in text
        }
    )
    assert all(item.get("container-title") for item in corpus_items)
    assert missing == []


@pytest.mark.parametrize("literal", STRESS_LITERALS)
def test_pdf_shows_latex_specials_literally(tc: ModuleType, document: Any, literal: str) -> None:
    assert tc.squeeze(literal).casefold() in tc.squeeze(document.pdf_text).casefold()


def test_pdf_shows_url_with_percent_hash_underscore_tilde(tc: ModuleType, document: Any) -> None:
    assert STRESS_URL in tc.squeeze(document.pdf_text)


@pytest.mark.parametrize("name", ACCENTED_NAMES)
def test_pdf_shows_accented_author_names(tc: ModuleType, document: Any, name: str) -> None:
    assert name in tc.squeeze(document.pdf_text)


@pytest.mark.parametrize("name", ["bibtex", "biblatex"])
def test_pdf_shows_cjk_and_emoji_in_place(
    tc: ModuleType, compile_corpus: Callable[[str], Any], name: str
) -> None:
    """UTF-8 outputs carry CJK and emoji to LaTeX byte for byte (BibTeX and biber included):
    the document's placeholders `[U+XXXX]` appear in the PDF in the title's own order."""
    document = compile_corpus(name)
    title = "多模态大模型 Benchmark 🚀 for 日本語 and 한국어 Text ✨"
    expected = tc.skeleton(tc.with_placeholders(title, document.unsupported))
    assert "u591a" in expected  # 多 is a placeholder: the check is about bytes, not glyphs
    assert expected in tc.skeleton(document.pdf_text)


def test_ascii_output_is_pure_ascii(corpus: Any, corpus_items: list) -> None:
    data = corpus.path("bibtex-ascii").read_bytes()
    assert data.isascii(), sorted({chr(b) for b in data if b > 0x7F})


def test_ascii_output_compiles_without_unicode_declarations(
    compile_corpus: Callable[[str], Any],
) -> None:
    document = compile_corpus("bibtex-ascii")
    assert "DeclareUnicodeCharacter" not in document.build.text("doc.tex")
    assert document.log_problems() == []
