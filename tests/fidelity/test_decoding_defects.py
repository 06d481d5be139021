"""Issue 18, point 3: LaTeX that the corpus test found decoded otherwise than pandoc, biber
or TeX print it, each a regression test named after the defect.

References: pandoc's own reading (`pandoc -f bibtex -t csljson`, where pandoc is right),
hologo.sty's bookmark text of a logo (kpsewhich'd from TeX Live), and TeX's `\\accent`
(an accent command over a group sets the accent over its first character)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bib import convert as engine
from bib.latex.fromlatex import from_latex
from bib.latex.totext import to_text
from bib.writers import csljson

sys.path.insert(0, str(Path(__file__).parent))
from corpus import normal


def _ours(tmp_path: Path, entry: str) -> dict:
    path = tmp_path / "in.bib"
    path.write_text(entry, encoding="utf-8")
    [record] = engine.run([path], engine.ConvertOptions(stages=())).records
    return csljson.item(record)


def _pandoc(tmp_path: Path, entry: str) -> dict:
    path = tmp_path / "pandoc.bib"
    path.write_text(entry, encoding="utf-8")
    done = subprocess.run(
        ["pandoc", "-f", "bibtex", "-t", "csljson", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    [item] = json.loads(done.stdout)
    return item


@pytest.mark.parametrize(
    ("defect", "variable", "entry"),
    [
        (
            "enquote printed as its name",
            "title",
            r"@article{a, title = {Il \enquote{diribitorium} di Alba}, year = 1991}",
        ),
        (
            "mkbibquote printed as its name",
            "title",
            r"@article{a, title = {\mkbibquote{{\"U}ber die M{\"o}glichkeit} oder x}, year = 1}",
        ),
        (
            "an accent over a group accented every letter",
            "author",
            r"@article{a, author = {Marek Ry\'{cko} and Jacques {Journ}\'{ees}}, title = {T}}",
        ),
        (
            "tex double quotes kept as backticks in a publisher",
            "publisher",
            "@book{a, title = {T}, publisher = {``Printers register'' office}, year = 1883}",
        ),
        (
            "a lone opening quote kept as a backtick",
            "title",
            "@article{a, title = {`{Spiritual} Machinery : The Society}, year = 2019}",
        ),
    ],
)
def test_decoded_as_pandoc_reads_it(tmp_path, require, defect, variable, entry):
    require("pandoc")
    theirs = _pandoc(tmp_path, entry + "\n")[variable]
    assert normal(variable, _ours(tmp_path, entry + "\n")[variable]) == normal(variable, theirs)


def test_hologo_printed_as_its_name_and_argument(tmp_path, require, unavailable):
    """`{\\hologo{HanTheThanh}}` was `hologoHanTheThanh`: the logo is hologo.sty's text."""
    require("kpsewhich")
    sty = subprocess.run(["kpsewhich", "hologo.sty"], capture_output=True, text=True).stdout
    if not sty.strip():
        unavailable("hologo.sty is not installed")
    source = Path(sty.strip()).read_text(encoding="latin-1")
    bookmark = re.search(r"\\def\\HoLogoBkm@HanTheThanh#1\{%(.*?)\n\}", source, re.DOTALL)
    assert bookmark is not None
    # H\`an Th\HOLOGO@PdfdocUnicode{\^e}{...} Th\`anh: the e with circumflex and acute
    assert "\\^e" in bookmark.group(1) and "H\\`an" in bookmark.group(1)
    entry = "@manual{m, author = {{\\hologo{HanTheThanh}} and Rahtz, Sebastian},\n"
    entry += " title = {The {\\hologo{pdfTeX}} user manual}}\n"
    item = _ours(tmp_path, entry)
    assert item["author"][0] == {"literal": "H\u00e0n Th\u1ebf Th\u00e0nh"}
    assert item["title"] == "The pdfTeX user manual"


def test_tex_single_quotes_kept_as_a_backtick_and_an_apostrophe(tmp_path):
    """`` `x' `` prints as U+2018 x U+2019 in TeX (pandoc gives double quotes: a class of
    differences); an apostrophe in a word stays one."""
    item = _ours(tmp_path, "@article{a, title = {A `{Sir Francis}' and Editor's `x'}}\n")
    assert item["title"] == "A \u2018Sir Francis\u2019 and Editor's \u2018x\u2019"


def test_a_backtick_in_math_was_read_as_a_text_quote():
    """`$`code`$` came back from bib's own `.bib` with U+2018 for each backtick (hypothesis,
    CI): TeX's quote ligatures are text mode's; between `$`s the math is kept as written."""
    assert from_latex("$`code`$ and `x'") == "$`code`$ and \u2018x\u2019"
    assert from_latex("\\(`a'\\) `b'") == "\\(`a'\\) \u2018b\u2019"


def test_math_operator_lost_its_space_before_the_operand():
    """`$O(n \\log n)$` was `O(n logn)`: TeX sets a thin space after an operator name before
    an operand (as pandoc's plain text of `$\\sin x$`, `pandoc -f latex -t plain`: `sin x`),
    none before a delimiter."""
    assert to_text(r"An $O(n \log n / \! \log\log n)$ bound") == "An O(n log n / log log n) bound"
    assert to_text(r"$\log(x)$ and $\sin x$") == "log(x) and sin x"
