"""A long LaTeX value cut into pieces that can each be read alone, for plain text.

Speed trick, isolated: pylatexenc's cost grows with a value's length, and a few values are
very long (TeX Live's `tableofcontents` fields run to 30,000 characters: three of them cost
0.30 s of the 5 s of converting 5,000 entries, docs/convert.md). One construct the table decoder
does not know (`\\vspace`, `\\backslash`) sent the whole value to pylatexenc; cut into
pieces, only the piece that holds it goes there. `bib.readers.bibtex.to_unicode` collapses
whitespace, so the text of the whole is the texts of the pieces joined by a space wherever
a cut leaves whitespace between two things pylatexenc reads independently. The oracle is
pylatexenc on the whole value, in a hypothesis test (tests/readers/test_fast_latex.py).
"""

from __future__ import annotations

import re

LONG = 400
"""Values shorter than this are read whole (a cut saves nothing there)."""
PIECE = 120
"""About how long a piece is: cuts are made at the first place possible after this."""

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\\\Z|[{}\[\]]|\s+|[^\\{}\[\]\s]+", re.DOTALL)
_WHOLE_ONLY = frozenset({"\\(", "\\)", "\\[", "\\]", "\\verb", "\\begin", "\\end"})
"""What pylatexenc reads across whitespace at any depth (math, `\\verb|a b|`, an
environment): a value with one is read whole, as is one with a comment (`%`) or math (`$`)."""
_SPECIALS = frozenset("^_&~#*")
"""Characters that are not plain text to pylatexenc before a space."""


def cut(latex: str, shortest: int = LONG, piece: int = PIECE) -> list[str] | None:
    """`latex` in pieces, cut at whitespace outside every group and bracket, after a word
    that no macro can take as an argument (the token before it is whitespace after another
    word, or nothing) and before anything but `{`, `[` or `*` (how pylatexenc's arguments
    start): there no macro reaches across, since a macro's arguments and the spaces after
    its name are part of it. Pieces are about `piece` characters long; None when `latex` is
    shorter than `shortest` or may not be cut (`_WHOLE_ONLY`, a comment, math, unbalanced
    braces or brackets)."""
    if len(latex) < shortest:
        return None
    pieces: list[str] = []
    start, depth, brackets = 0, 0, 0
    kinds = ["start", "start", "start"]  # the last three tokens: word, space or other
    tokens = list(_TOKEN.finditer(latex))
    for index, m in enumerate(tokens):
        token = m.group()
        first = token[0]
        if token in _WHOLE_ONLY or (first != "\\" and ("%" in token or "$" in token)):
            return None
        if first == "{":
            depth += 1
        elif first == "}":
            depth -= 1
        elif first == "[":
            brackets += 1
        elif first == "]":
            brackets -= 1
        if depth < 0 or brackets < 0:
            return None
        if first.isspace():
            if (
                depth == 0
                and brackets == 0
                and m.start() - start >= piece
                and kinds[-1] == "word"
                and (
                    kinds[-2] == "start"
                    or (kinds[-2] == "space" and kinds[-3] in ("word", "start"))
                )
                and index + 1 < len(tokens)
                and tokens[index + 1].group()[0] not in "{[*"
            ):
                pieces.append(latex[start : m.start()])
                start = m.end()
            kind = "space"
        elif first in "\\{}[]" or token[-1] in _SPECIALS:
            kind = "other"
        else:
            kind = "word"
        kinds = [kinds[1], kinds[2], kind]
    if depth or brackets:
        return None
    pieces.append(latex[start:])
    return pieces if len(pieces) > 1 else None
