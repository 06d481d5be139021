"""The `--ascii` table (bib/data/latex_ascii.json) against pylatexenc, its reference: every
macro is one pylatexenc reads back as its character, and pylatexenc's macros of the accents
issue 18 names (`\\k`, and the kernel's `\\d`, `\\c`, `\\H`, `\\r`) are all in it, except
where pdflatex under T1 cannot typeset the character (the toolchain test compiles the table).
"""

from __future__ import annotations

import re
import unicodedata

from pylatexenc.latexencode import UnicodeToLatexEncoder

from bib.latex import ascii_table

_ENCODER = UnicodeToLatexEncoder(
    non_ascii_only=True, unknown_char_policy=lambda ch: "\x00", unknown_char_warning=False
)
_NAMED_ACCENTS = ("\\k{", "\\c{", "\\H{", "\\r{", "\\d{")
KERNEL_ACCENTS = {"\u0323": "d", "\u0331": "b", "\u0328": "k", "\u0327": "c"}
KERNEL_ACCENTS.update(
    {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "="}
)
KERNEL_ACCENTS.update({"\u0307": ".", "\u0306": "u", "\u030c": "v", "\u030b": "H", "\u030a": "r"})
"""The LaTeX kernel's text accents (`ltoutenc`), mark -> macro letter."""
NOT_TYPESET = {
    "\u0228": "Ȩ: biber writes the character into the .bbl; T1's UTF-8 table lacks it",
    "\u0229": "ȩ: the same",
    "\u02da": "˚: pylatexenc's `\\r{}`, an accent on nothing: biber makes it a bare combining mark",
    "\u02db": "the ogonek: pylatexenc's `\\k{}`, the same",
}
"""pylatexenc's accent macros left out, each with why (make_latex_ascii.py drops them)."""


def _unbraced(latex: str) -> str:
    return latex[1:-1] if latex.startswith("{\\") and latex.endswith("}") else latex


def test_every_macro_is_pylatexencs_or_the_kernels_accent():
    differ = {}
    for ch, latex in ascii_table().items():
        theirs = _ENCODER.unicode_to_latex(ch)
        if theirs == "\x00":  # pylatexenc has none: the kernel's accent on the base letter
            base, mark = unicodedata.normalize("NFD", ch)
            theirs = "\\" + KERNEL_ACCENTS[mark] + "{" + base + "}"
        # an accent on a dotless i is written on i (biber decodes `\\'\\i` to i + U+0301)
        theirs = re.sub(r"^\{?(\\[`'^\"~=.uv])\{?\\i\}?\}?$", r"\1{i}", theirs)
        if _unbraced(latex) != _unbraced(theirs):
            differ[ch] = (latex, theirs)
    assert differ == {}


def test_pylatexencs_accent_macros_are_all_in_the_table():
    table = ascii_table()
    theirs = {}
    for code in range(0x00A0, 0x2000):
        ch = chr(code)
        encoded = _ENCODER.unicode_to_latex(ch)
        if any(accent in encoded for accent in _NAMED_ACCENTS) and encoded.isascii():
            theirs[ch] = encoded
    assert theirs, "pylatexenc has accent macros"
    missing = {ch: latex for ch, latex in theirs.items() if ch not in table}
    missing = {ch: latex for ch, latex in missing.items() if ch not in NOT_TYPESET}
    assert missing == {}


def test_dot_below_letters_pylatexenc_lacks_have_the_kernel_macro():
    assert _ENCODER.unicode_to_latex("\u1e25") == "\x00"  # ḥ: not in pylatexenc's table
    assert ascii_table()["\u1e25"] == "{\\d{h}}"
