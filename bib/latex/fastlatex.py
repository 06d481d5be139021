"""A fast decoder for the LaTeX most BibTeX values hold: accents, named symbols, escapes,
grouping braces, ties and dashes.

Speed trick, isolated: pylatexenc builds a node tree for every value, about 1 ms for a
title with one accent; this reads such a value in one regex pass over table data
(`bib.latex.tables`). It gives exactly what pylatexenc's LaTeX->text with bib's context
gives (`decoder`), and says None for anything else (math, `%`, a macro with arguments or
one it does not know), which the caller then gives to pylatexenc. The oracle is that
reference path, in a hypothesis test (tests/readers/test_fast_latex.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from bib.latex.tables import _ACCENTS, _MACRO_TEXT

_SPACE = r"(?:\n(?!\n)|[^\S\n])*"
"""The space pylatexenc takes after a command name: any, up to a paragraph break (two
newlines), which stays text (its tokenizer's `post_space`)."""
_TOKEN = re.compile(
    r"""
    (?P<text>[^\\{}~\-`'!?$%&]+)
    |\\(?P<word>[A-Za-z]+(?P<space>"""
    + _SPACE
    + r"""))
    |\\(?P<symbol>[^A-Za-z])
    |(?P<ligature>---|--|``|''|!`|\?`)
    |(?P<brace>[{}])
    |(?P<tie>~)
    |(?P<char>[-`'!?])
    """,
    re.VERBOSE,
)
"""One piece of a value; what matches none (`$`, `%`, `&`) ends the fast path."""

_ARGUMENT = re.compile(
    r"[ \t]*(?:([A-Za-z])|\{([A-Za-z])\}|\{\\([ij])\}|\\([ij])(?![^\W\d_])" + _SPACE + r"|\{()\})"
)
"""What an accent applies to: a letter, a braced letter, or a dotless i or j, braced (the
spaces after the brace are text) or not (a control word: the spaces after it go, and a
brace after it closes a group of its own, `D{\\'\\i}az`; a letter after it, ASCII or not,
goes on its name, as pylatexenc reads names, and any space after it up to a paragraph
break goes, as after any command name); or an empty group, which pylatexenc prints
as nothing (`Gda{\\'{}nsk}` is Gdansk)."""
_ACCENT_SPACE = re.compile(r"[ \t]*(?:\n[ \t]*)?")
"""The spaces after an accent's name that the fast path reads (a paragraph break there is
pylatexenc's)."""
_LIGATURES = {"---": "\u2014", "--": "\u2013", "``": "\u201c", "''": "\u201d"}
_LIGATURES |= {"!`": "\u00a1", "?`": "\u00bf"}
_ESCAPED = {char: char for char in "&%$#_{}"} | {" ": " ", "-": "\u00ad"}
"""Control symbols that print one character."""


def decode_common(latex: str, unknown: Callable[[str], bool] | None = None) -> str | None:
    """pylatexenc's text of `latex` (`decoder("verbatim").latex_to_text`) when `latex` is
    made only of common pieces; None when it is not (ask pylatexenc). With `unknown` (a
    test of a macro name), a macro pylatexenc does not know at all is read too
    (`_unknown_macro`)."""
    found = decode_open(latex, unknown)
    return found[0] if found is not None and found[1] == 0 else None


def decode_open(
    latex: str, unknown: Callable[[str], bool] | None = None, depth: int = 0
) -> tuple[str, int] | None:
    """`decode_common` of a stretch of a value between two pieces of markup that record
    text keeps (`fromlatex._common_record_text`), inside `depth` groups opened before it:
    its text and the groups open after it (`{$x$}` opens one before the math and closes it
    after); None when it is not common or closes a group never opened."""
    out: list[str] = []
    pos, end = 0, len(latex)
    match = _TOKEN.match
    while pos < end:
        m = match(latex, pos)
        if m is None:
            return None
        pos = m.end()
        kind = m.lastgroup
        if kind == "text":
            out.append(m.group())
        elif kind == "word":
            # The space after a name goes, up to a paragraph break (two newlines), which
            # stays text: what pylatexenc's tokenizer takes as the macro's `post_space`.
            word, space = m.group("word", "space")
            name = word[: len(word) - len(space)]
            if not space and pos < end and latex[pos].isalpha():
                return None  # pylatexenc reads a name on into a letter outside ASCII
            if name in _ACCENTS:
                if _ACCENT_SPACE.fullmatch(space) is None or latex.startswith("\n", pos):
                    return None
                accented = _accent(latex, pos, _ACCENTS[name])
                if accented is None:
                    return None
                out.append(accented[0])
                pos = accented[1]
            else:
                text = _MACRO_TEXT.get(name)
                if text is None:
                    text = _unknown_macro(name, unknown)
                    if text is None:
                        return None
                out.append(text)
        elif kind == "symbol":
            char = m.group("symbol")
            if char == "\\" and not latex.startswith(("[", "*"), pos):
                out.append("\n")  # a line break (`\\[2pt]`, `\\*` are left to pylatexenc)
            elif char in _ACCENTS:
                accented = _accent(latex, pos, _ACCENTS[char])
                if accented is None:
                    return None
                out.append(accented[0])
                pos = accented[1]
            else:
                text = _ESCAPED.get(char, _MACRO_TEXT.get(char))
                if text is None:
                    return None
                out.append(text)
        elif kind == "ligature":
            out.append(_LIGATURES[m.group()])
        elif kind == "brace":
            depth += 1 if m.group() == "{" else -1
            if depth < 0:
                return None
        elif kind == "tie":
            out.append("\xa0")
        else:
            out.append(m.group())
    return "".join(out), depth


def _unknown_macro(name: str, unknown: Callable[[str], bool] | None) -> str | None:
    """The text of a macro neither the table nor pylatexenc knows (`\\VAX`, `\\CTAN`, `\\par`:
    110 of the 268 values that reached pylatexenc in 5,000 TeX Live entries): its parser
    gives it no arguments and bib's LaTeX->text prints its name (`totext.KeepingText`);
    None when `unknown` does not say it is one."""
    return name if unknown is not None and unknown(name) else None


def _accent(latex: str, pos: int, mark: str) -> tuple[str, int] | None:
    """The accented letter at `pos` (after an accent command) and where it ends."""
    m = _ARGUMENT.match(latex, pos)
    if m is None:
        return None
    if m.group(5) is not None:
        return "", m.end()
    letter = m.group(1) or m.group(2) or m.group(3) or m.group(4)
    return unicodedata.normalize("NFC", letter + mark), m.end()
