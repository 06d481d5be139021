"""A small real-toolchain smoke test of the writers on hostile records.

The full proofs over the seeds and the hostile corpus live in tests/toolchain/ (issue 5);
this compiles one document per toolchain so that a writer change that breaks LaTeX fails here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bib.latex import ascii_table
from bib.writers import render

pytestmark = pytest.mark.toolchain

NATBIB = r"""\documentclass{article}
\usepackage[utf8]{inputenc}
\usepackage[T1]{fontenc}
\usepackage{url}
\usepackage{natbib}
\begin{document}
\nocite{*}
\bibliographystyle{plainnat}
\bibliography{refs}
\end{document}
"""

BIBLATEX = r"""\documentclass{article}
\usepackage[utf8]{inputenc}
\usepackage[T1]{fontenc}
\usepackage[backend=biber,style=numeric]{biblatex}
\addbibresource{refs.bib}
\begin{document}
\nocite{*}
\printbibliography
\end{document}
"""


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=120
    )


def compile_document(tmp_path: Path, bib: str, tex: str, backend: str) -> str:
    """pdflatex -> bibtex|biber -> pdflatex x2; returns the PDF text. Fails on any error."""
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "doc.tex").write_text(tex, encoding="utf-8")
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"]
    first = run(latex, tmp_path)
    assert first.returncode == 0, first.stdout[-2000:]
    tool = run([backend, "doc"], tmp_path)
    log = (tmp_path / "doc.blg").read_text(errors="replace")
    assert tool.returncode == 0, log[-2000:]
    assert not re.search(r"^(Warning|WARN|ERROR)", log, re.MULTILINE), log[-2000:]
    for _ in range(2):
        final = run(latex, tmp_path)
        assert final.returncode == 0, final.stdout[-2000:]
    assert not re.search(r"^!", (tmp_path / "doc.log").read_text(errors="replace"), re.MULTILINE)
    text = run(["pdftotext", "-enc", "UTF-8", "doc.pdf", "-"], tmp_path).stdout
    return re.sub(r"\s+", " ", text)


def assert_literal_and_complete(text: str, records) -> None:
    assert "\\input{/etc/passwd}" in text
    assert "PWNED" in text
    assert "evil" not in text.replace("{evil,", "")
    assert text.count("50% & LLM_") == len(records)


def test_plainnat_bibtex_compiles_hostile_records(tmp_path, nasty_records, require) -> None:
    require("pdflatex", "bibtex", "pdftotext")
    text = compile_document(tmp_path, render(nasty_records, "bibtex"), NATBIB, "bibtex")
    assert_literal_and_complete(text, nasty_records)
    assert "USMoE" in text


def test_plainnat_bibtex_compiles_hostile_records_in_ascii(
    tmp_path, nasty_records, require
) -> None:
    require("pdflatex", "bibtex", "pdftotext")
    bib = render(nasty_records, "bibtex", ascii=True)
    without_inputenc = NATBIB.replace("\\usepackage[utf8]{inputenc}\n", "")
    text = compile_document(tmp_path, bib, without_inputenc, "bibtex")
    assert_literal_and_complete(text, nasty_records)


def test_biblatex_biber_compiles_hostile_records(tmp_path, nasty_records, require) -> None:
    require("pdflatex", "biber", "pdftotext")
    text = compile_document(tmp_path, render(nasty_records, "biblatex"), BIBLATEX, "biber")
    assert_literal_and_complete(text, nasty_records)


def all_table_characters(make_record):
    """Records whose titles and abstracts hold every character of the --ascii table."""
    chars = sorted(ascii_table())
    chunks = [chars[i : i + 150] for i in range(0, len(chars), 150)]
    return [
        make_record(id=f"t{i}", key=f"table{i}", title=" ".join(c), abstract=" ".join(c), note="")
        for i, c in enumerate(chunks)
    ]


def test_every_ascii_table_macro_compiles_with_bibtex_in_t1(tmp_path, make_record, require) -> None:
    require("pdflatex", "bibtex", "pdftotext")
    records = all_table_characters(make_record)
    plain_t1 = NATBIB.replace("\\usepackage[utf8]{inputenc}\n", "")
    compile_document(tmp_path, render(records, "bibtex", ascii=True), plain_t1, "bibtex")


def test_every_ascii_table_macro_compiles_with_biber(tmp_path, make_record, require) -> None:
    require("pdflatex", "biber", "pdftotext")
    records = all_table_characters(make_record)
    compile_document(tmp_path, render(records, "biblatex", ascii=True), BIBLATEX, "biber")
