"""Record text to LaTeX-safe BibTeX values, and the same text to plain Unicode.

Record text is Unicode that may carry markdown emphasis and links, inline math and a few
LaTeX formatting commands (paper lists copy them from abstracts). One parser reads it into
a small tree; `to_latex` and `to_text` render that tree, so the `.bib` and the CSL-JSON say
the same thing. Whatever the parser does not understand is a literal character: a LaTeX
command outside the whitelist prints its own name (`\\input` never runs), and a brace outside
math or a whitelisted command's argument prints as a brace (`\\textbraceleft{}`, never `\\{`,
which BibTeX, biber and pybtex count as a real brace).

Speed: the parser stops only at the few characters that can start a structure (one C-level
regex scan); plain runs are escaped by one regex substitution; pylatexenc sees only math
spans (for plain text), cached; `--ascii` looks characters up in a table of pylatexenc's
macros verified with pdflatex (bib/data/latex_ascii.json).
The rules are written down in docs/formats.md.
"""

from __future__ import annotations

import bisect
import json
import re
import string
import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from pylatexenc import latexwalker, macrospec
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

ASCII_FALLBACK = "?"
"""What `--ascii` writes for a character with no LaTeX macro that pdflatex can typeset."""

MAX_SPAN = 2000
"""Longest math span, command argument or link that is still read as structure.

Longer candidates are taken literally, which bounds the work per character on hostile input.
"""

MAX_DEPTH = 16
"""Deepest nesting of commands and emphasis read as structure; deeper text stays literal."""


# --- the tree ------------------------------------------------------------------------------


class Math(tuple):
    """Inline math kept as LaTeX: `Math((source,))`."""

    __slots__ = ()


class Styled(tuple):
    """Formatted text: `Styled((style, children))`; style is a key of `_STYLE_LATEX`."""

    __slots__ = ()


class Link(tuple):
    """A hyperlink: `Link((url, children))`; no children means the URL is its own text."""

    __slots__ = ()


class Logo(tuple):
    """`\\LaTeX` or `\\TeX`: `Logo((name,))`."""

    __slots__ = ()


Node = str | Math | Styled | Link | Logo


# --- characters ----------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
# bytes.translate(None, these) is empty for printable ASCII: ten times faster than a regex scan
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))
_NOT_CONTROL_ASCII = _PRINTABLE_ASCII + b"\t\n\r"
_SPACE_CONTROLS = "\x0b\x0c\x1c\x1d\x1e\x1f"  # whitespace to str.split(), dropped by _CONTROL
_STOP = re.compile(r"[\\$*_`\[<]")
_STOP_CHARS = "\\$*_`[<"
_ESCAPABLE = frozenset("%&$#_{}*[]`~^<>|\\!().-+")
_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "$": r"\$",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_LATEX_SPECIAL = re.compile(r"[\\{}$%&#_~^<>|]")
_MARKED = "\\$*_`[<{}%&#~^>|-'"
_UNMARKED = bytes(b for b in range(256) if chr(b) not in _MARKED)
_MARKUP = frozenset(b"\\$*_`[<")  # the characters _STOP stops at
_LATEX_SPECIALS = frozenset("".join(_LATEX_ESCAPES).encode())
_BRACING = frozenset(b"\\{}")  # their escapes contain these: replacing one by one would mix


def _marks(text: str) -> bytes:
    """The characters of `text` that markup, LaTeX or TeX ligatures give a meaning to, in
    order: one C-level pass (bytes.translate, ten times faster than a regex scan) tells
    plain text, the common case, from text that needs the parser or escapes."""
    return text.encode("utf-8", "surrogatepass").translate(None, _UNMARKED)


# what translate deletes to leave the marks, any control character and any non-ASCII byte
_PLAIN_PRINTABLE = bytes(b for b in _PRINTABLE_ASCII if chr(b) not in _MARKED)
_CONTROL_BYTES = frozenset([*range(0x20), 0x7F])
_NON_ASCII_BYTES = bytes(range(0x80, 0x100))
_MARK_BYTES = _MARKED.encode()


def _clean_marks(text: str) -> tuple[str, bytes]:
    """`clean(text)` and its `_marks`, from one bytes.translate when the text is clean.

    The result for the last long text is remembered (by identity: no hashing of an
    abstract): `bib convert` renders each record's abstract into every output in turn."""
    last = _last_clean_marks
    if text is last[0]:
        return last[1]
    kept = text.encode("utf-8", "surrogatepass").translate(None, _PLAIN_PRINTABLE)
    if text.isascii():
        marks = kept
        printable = _CONTROL_BYTES.isdisjoint(kept)
    else:
        # isprintable looks each character up: only the few outside printable ASCII need it
        marks = kept.translate(None, _NON_ASCII_BYTES)
        others = kept.translate(None, _MARK_BYTES).decode("utf-8", "surrogatepass")
        printable = others.isprintable()
    if printable and _single_spaced(text):
        result = text.strip(), marks  # stripped spaces are no marks
    else:
        cleaned = clean(text)
        result = cleaned, _marks(cleaned)
    if len(text) > _LONG:
        last[:] = text, result
    return result


def _single_spaced(text: str) -> bool:
    """No two spaces in a row (a literal regex search beats `in` on a long text)."""
    return "  " not in text if len(text) <= _LONG else _DOUBLE_SPACE.search(text) is None


_DOUBLE_SPACE = re.compile("  ")

_LONG = 200
"""Texts longer than this (abstracts) have their `_clean_marks` remembered."""

_last_clean_marks: list[Any] = [None, ("", b"")]
"""The last long text and its `_clean_marks` (the text held, so that no other string takes
its identity)."""


def _escape(text: str, marks: bytes | None = None) -> str:
    """Escape LaTeX specials (`marks`: `_marks(text)` when the caller has it)."""
    if marks is None:
        marks = _marks(text)
    if _LATEX_SPECIALS.isdisjoint(marks):
        return text
    if not _BRACING.isdisjoint(marks):
        return _LATEX_SPECIAL.sub(_escape_one, text)
    # No escape contains another special than its own character, so one replace per
    # character present gives what the regex gives, without scanning the text per match.
    for byte in _LATEX_SPECIALS.intersection(marks):
        char = chr(byte)
        text = text.replace(char, _LATEX_ESCAPES[char])
    return text


def _escape_one(m: re.Match[str]) -> str:
    return _LATEX_ESCAPES[m.group()]


_ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
_TEXT_SYMBOLS = {
    "ldots": "…",
    "dots": "…",
    "textellipsis": "…",
    "textendash": "–",  # noqa: RUF001
    "textemdash": "—",
    "textbackslash": "\\",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textasciitilde": "~",
    "textasciicircum": "^",
    "textless": "<",
    "textgreater": ">",
    "textbar": "|",
    "textunderscore": "_",
    "textasciigrave": "`",
    "lbrack": "[",
    "textquoteleft": "‘",  # noqa: RUF001
    "textquoteright": "’",  # noqa: RUF001
    "textquotedblleft": "“",
    "textquotedblright": "”",
    "textdegree": "°",
    "copyright": "©",
    "textregistered": "®",
    "texttrademark": "™",
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "l": "ł",
    "L": "Ł",
    "i": "ı",  # noqa: RUF001
    "S": "§",
    "P": "¶",
    "dag": "†",
    # math symbols met outside math in abstracts ("6\times faster")
    "times": "×",  # noqa: RUF001
    "pm": "±",
    "approx": "≈",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "rightarrow": "→",
    "leftarrow": "←",
    "cdot": "·",
    "infty": "∞",
}
_STYLE_COMMANDS = {
    "textbf": "bold",
    "textit": "italic",
    "emph": "emph",
    "textsl": "italic",
    "texttt": "code",
    "textsc": "sc",
    "textsf": "sf",
    "textrm": "rm",
    "textup": "rm",
    "textnormal": "rm",
    "mbox": "rm",
    "underline": "underline",
    "textsuperscript": "sup",
    "textsubscript": "sub",
}
_STYLE_LATEX = {
    "bold": "\\textbf{",
    "italic": "\\textit{",
    "emph": "\\emph{",
    "code": "\\texttt{",
    "sc": "\\textsc{",
    "sf": "\\textsf{",
    "rm": "\\textrm{",
    "underline": "\\underline{",
    "sup": "\\textsuperscript{",
    "sub": "\\textsubscript{",
}
_LOGOS = frozenset({"LaTeX", "TeX"})

# Math: commands defined by the LaTeX kernel alone (no amsmath, amssymb, ...), so that the
# math compiles in any document; anything else makes the span literal text.
_MATH_COMMANDS = frozenset(
    """alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda
    mu nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega
    Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega times cdot div pm mp ast
    star circ bullet oplus otimes cap cup wedge vee setminus le leq ge geq neq ne approx
    sim simeq equiv propto ll gg subset subseteq supset supseteq in notin ni mid
    parallel perp to rightarrow leftarrow Rightarrow Leftarrow leftrightarrow
    Leftrightarrow mapsto uparrow downarrow longrightarrow longleftarrow infty partial
    nabla forall exists emptyset ell hbar prime ldots cdots vdots dots langle rangle
    lfloor rfloor lceil rceil vert Vert sum prod int min max log ln exp sin cos tan lim
    sup inf arg det dim ker Pr mathbf mathrm mathit mathsf mathtt mathcal frac sqrt hat
    tilde bar vec dot ddot overline underline widehat widetilde mbox textrm textbf
    textit quad qquad top bot""".split()  # noqa: SIM905
)
_MATH_HARMFUL = re.compile(
    r"(?<!\\)[#&%$\n]|\\\\|[\^_](?:$|[}\^_])|\\(?![A-Za-z]|[{}%,;:! _#&|$])"
    r"|\\(?:frac|sqrt|math[a-z]+|hat|tilde|bar|vec|dot|ddot|overline|underline|widehat"
    r"|widetilde|mbox|textrm|textbf|textit)(?![A-Za-z])\s*(?:$|[}^_])"
)
_MATH_COMMAND = re.compile(r"\\([A-Za-z]+)")
_LINK = re.compile(rf"\[([^\[\]\n]{{0,{MAX_SPAN}}})\]\(\s*<?([^\s()<>]{{1,{MAX_SPAN}}})>?\s*\)")
_AUTOLINK = re.compile(rf"<(https?://[^\s<>]{{1,{MAX_SPAN}}})>")
_NAME = re.compile(r"[A-Za-z]+")
_BRACE_TOKEN = re.compile(r"\\.|[{}]", re.S)
# URLs inside text become \url{} only when url.sty copes with them inside a macro argument
# (biblatex stores every field as one): no %, #, ^, backslash, braces or spaces.
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?\[\]@!$&'()*+,;=]+")
_WORD = re.compile(r"[^\W_]+")
# A whole _WORD of ASCII text with a capital after its first character (possessive runs:
# nothing to backtrack into, which makes the substitution half as slow)
_ASCII_CAPITAL_INSIDE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9][a-z0-9]*+[A-Z][A-Za-z0-9]*+")


# --- parsing -------------------------------------------------------------------------------


class _Source:
    """The text being parsed, with lookup tables shared by nested parses: where the parser
    stops (found once, with str.find, instead of a regex scan per structure) and, lazily,
    which braces pair up and where the dollars are."""

    __slots__ = ("_braces", "_dollars", "stops", "text")

    def __init__(self, text: str, marks: bytes | None = None):
        present = _STOP_CHARS if marks is None else map(chr, _MARKUP.intersection(marks))
        self.text = text
        self.stops = _positions(text, present)
        self._braces: dict[int, int] | None = None
        self._dollars: list[int] | None = None

    def group_end(self, start: int) -> int | None:
        """Index of the `}` closing the `{` at `start`, escaped braces skipped."""
        if self._braces is None:
            self._braces = _brace_pairs(self.text)
        end = self._braces.get(start)
        return end if end is not None and end - start <= MAX_SPAN else None

    def next_dollar(self, after: int) -> int | None:
        if self._dollars is None:
            self._dollars = _unescaped(self.text, "$")
        i = bisect.bisect_right(self._dollars, after)
        return self._dollars[i] if i < len(self._dollars) else None


def _positions(text: str, chars: Iterable[str]) -> list[int]:
    """Sorted positions of any of `chars` in `text` (str.find runs at memchr speed)."""
    out: list[int] = []
    for char in chars:
        i = text.find(char)
        while i >= 0:
            out.append(i)
            i = text.find(char, i + 1)
    out.sort()
    return out


def _brace_pairs(text: str) -> dict[int, int]:
    """`{` position -> its `}`; a backslash escapes the character after it (a brace, or
    another backslash), as the tokens `\\.|[{}]` read left to right."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    escaped = -1
    for i in _positions(text, "\\{}"):
        if i == escaped:
            continue
        char = text[i]
        if char == "\\":
            escaped = i + 1
        elif char == "{":
            stack.append(i)
        elif stack:
            pairs[stack.pop()] = i
    return pairs


def _unescaped(text: str, char: str) -> list[int]:
    """Positions of `char` not preceded by a backslash (str.find: faster than a lookbehind)."""
    out: list[int] = []
    i = text.find(char)
    while i >= 0:
        if i == 0 or text[i - 1] != "\\":
            out.append(i)
        i = text.find(char, i + 1)
    return out


class _Delim:
    """A run of `*` or `_` that may open or close emphasis."""

    __slots__ = ("can_close", "can_open", "char", "count")

    def __init__(self, char: str, count: int, can_open: bool, can_close: bool):
        self.char = char
        self.count = count
        self.can_open = can_open
        self.can_close = can_close


def clean(text: str) -> str:
    """Drop control characters and NULs, collapse whitespace (a field is one paragraph)."""
    if _printable(text) and _single_spaced(text):
        return text.strip()  # printable: no control character, no whitespace other than " "
    if text.isascii():
        if text.encode().translate(None, _NOT_CONTROL_ASCII):
            text = _CONTROL.sub("", text)
        return " ".join(text.split())  # str.split() splits where `\s` matches
    # Often only odd whitespace (a no-break space): when collapsing it leaves printable text
    # and no control character was whitespace, there was no control character to drop.
    if "\xa0" in text:  # the usual one, replaced without splitting a long text into words
        spaced = text.replace("\xa0", " ")
        if _printable(spaced) and _single_spaced(spaced):
            return spaced.strip()
    collapsed = " ".join(text.split())
    if _printable(collapsed) and not any(char in text for char in _SPACE_CONTROLS):
        return collapsed
    return " ".join(_CONTROL.sub("", text).split())


def _printable(text: str) -> bool:
    """`text.isprintable()`, without looking up every character of a long text: printable
    ASCII is printable, so only the characters outside it are asked."""
    if text.isascii():
        return not text.encode().translate(None, _PRINTABLE_ASCII)
    if len(text) <= _LONG:
        return text.isprintable()
    others = text.encode("utf-8", "surrogatepass").translate(None, _PRINTABLE_ASCII)
    return others.decode("utf-8", "surrogatepass").isprintable()


def parse(text: str, marks: bytes | None = None) -> list[Node]:
    """Read cleaned Record text into nodes; see the module docstring for what is structure.
    `marks` (`_marks(text)`, when the caller has it) spares looking for absent characters.

    Remembered: each writer of a run parses the same abstract, one after the other (the
    last long text by identity, without hashing an abstract; short ones in a small cache).
    Callers only read the nodes."""
    if len(text) <= _LONG:
        return _parse_short(text, marks)
    last = _last_parse
    if text is last[0]:
        return last[1]
    nodes = _parse_text(text, marks)
    last[:] = text, nodes
    return nodes


_last_parse: list[Any] = [None, []]
"""The last long text parsed and its nodes (the text held, so that no other string takes
its identity)."""


@lru_cache(maxsize=64)
def _parse_short(text: str, marks: bytes | None) -> list[Node]:
    return _parse_text(text, marks)


def _parse_text(text: str, marks: bytes | None) -> list[Node]:
    if marks is not None and _NOT_EMPHASIS.isdisjoint(marks):
        nodes = _simple_emphasis(text, marks)
        if nodes is not None:
            return nodes
    src = _Source(text, marks)
    return _parse(src, 0, len(text), 0)


_NOT_EMPHASIS = _MARKUP - frozenset(b"*_")


def _simple_emphasis(text: str, marks: bytes) -> list[Node] | None:
    """`_parse` of text whose only markup is `*` and `_` runs, when the runs that open
    emphasis are each closed by the next such run, of the same length (one or two): the
    common `**USMoE**` and `*Token Choice*`, paired without the delimiter stack of
    `_emphasis`. None for the rest (a run of three, nesting, an opener never closed).

    The other runs are text to `_emphasis` too: one that cannot open is never pushed, and
    one that can close finds no opener of its character."""
    end = len(text)
    out: list[Node] = []
    pos = 0  # where the text not yet in `out` starts
    opener: tuple[str, int, int] | None = None  # the pending opener's character, start, end
    stops = _positions(text, [char for char in "*_" if ord(char) in marks])
    count = len(stops)
    n = 0
    while n < count:
        j = stops[n]
        char = text[j]
        k = j + 1
        while k < end and text[k] == char:
            k += 1
        n += k - j
        can_open, can_close = _flanking(
            char, text[j - 1] if j else " ", text[k] if k < end else " "
        )
        if opener is None:
            if can_open:
                if k - j > 2:
                    return None
                opener = char, j, k
        elif char == opener[0] and can_close:
            if k - j != opener[2] - opener[1]:
                return None
            if pos < opener[1]:
                out.append(text[pos : opener[1]])
            out.append(Styled(("bold" if k - j == 2 else "emph", [text[opener[2] : j]])))
            pos = k
            opener = None
        elif can_open:
            return None
    if opener is not None:
        return None
    if pos < end:
        out.append(text[pos:end])
    return out


def _parse(src: _Source, start: int, end: int, depth: int) -> list[Node]:
    s = src.text
    stops = src.stops
    count = len(stops)
    n = bisect.bisect_left(stops, start)
    items: list[Node | _Delim] = []
    delims = False
    pos = i = start
    while n < count:
        j = stops[n]
        if j >= end:
            break
        if j < i:  # inside what the last structure took
            n = bisect.bisect_left(stops, i, n + 1)
            continue
        n += 1
        c = s[j]
        if c in "*_":
            k = j + 1
            while k < end and s[k] == c:
                k += 1
            if pos < j:
                items.append(s[pos:j])
            # the edges of the parsed span count as spaces
            opens, closes = _flanking(c, s[j - 1] if j > start else " ", s[k] if k < end else " ")
            items.append(_Delim(c, k - j, opens, closes))
            delims = True
            pos = i = k
            n += k - j - 1  # the rest of the run: stops too, taken
            continue
        node, k = None, j + 1
        if depth < MAX_DEPTH:
            if c == "\\":
                node, k = _command(src, j, end, depth)
            elif c == "$":
                node, k = _dollar_math(src, j, end)
            elif c == "`":
                node, k = _code(s, j, end)
            elif c == "[":
                node, k = _link(src, j, end, depth)
            elif c == "<":
                node, k = _autolink(s, j, end)
        if node is None:
            continue
        if pos < j:
            items.append(s[pos:j])
        items.append(node)
        pos = i = k
    if pos < end:
        items.append(s[pos:end])
    if delims:
        return _emphasis(items)
    return _literal(items) if len(items) > 1 else items


_ASCII_PUNCT = frozenset(string.punctuation)


def _is_punct(ch: str) -> bool:
    if ch.isascii():
        return ch in _ASCII_PUNCT
    return unicodedata.category(ch)[0] in "PS"


@lru_cache(maxsize=4096)
def _flanking(char: str, before: str, after: str) -> tuple[bool, bool]:
    """CommonMark's flanking rules: whether a run of `char` can open, and close, emphasis."""
    before_space = before.isspace()
    after_space = after.isspace()
    before_punct = not before_space and _is_punct(before)
    after_punct = not after_space and _is_punct(after)
    left = not after_space and (not after_punct or before_space or before_punct)
    right = not before_space and (not before_punct or after_space or after_punct)
    if char == "_":
        return left and (not right or before_punct), right and (not left or after_punct)
    return left, right


def _emphasis(items: list[Node | _Delim]) -> list[Node]:
    """Pair delimiter runs into emphasis (one `*`) and strong emphasis (two), stack-wise."""
    out: list[Node | _Delim] = []
    openers: dict[str, list[int]] = {"*": [], "_": []}
    for item in items:
        if type(item) is not _Delim:
            out.append(item)
            continue
        stack = openers[item.char]
        while item.can_close and item.count and stack:
            at = stack[-1]
            opener = out[at]
            assert isinstance(opener, _Delim)
            use = 2 if opener.count >= 2 and item.count >= 2 else 1
            inner = out[at + 1 :]
            if len(inner) != 1 or type(inner[0]) is _Delim:
                inner = _literal(inner)
            del out[at + 1 :]
            for other in openers.values():
                while other and other[-1] > at:
                    other.pop()
            opener.count -= use
            item.count -= use
            if opener.count == 0:
                out.pop()
                stack.pop()
            out.append(Styled(("bold" if use == 2 else "emph", inner)))
        if item.count:
            if item.can_open:
                stack.append(len(out))
                out.append(item)
            else:
                out.append(item.char * item.count)
    return _literal(out)


def _literal(items: list[Node | _Delim]) -> list[Node]:
    """Unpaired delimiters become text; adjacent text joins (so that `\\'eA` is one word)."""
    out: list[Node] = []
    for item in items:
        text = item.char * item.count if type(item) is _Delim else item
        if type(text) is str and out and type(out[-1]) is str:
            out[-1] += text
        else:
            out.append(text)
    return out


def _command(src: _Source, j: int, end: int, depth: int) -> tuple[Node | None, int]:
    s = src.text
    if j + 1 >= end:
        return None, j + 1
    nxt = s[j + 1]
    if nxt in _ACCENTS and not nxt.isalpha():
        accented = _accent(s, nxt, j + 2, end, letter=False)
        if accented is not None:
            return accented
    if nxt in "([":
        return _bracket_math(src, j, end)
    if nxt in _ESCAPABLE:
        return nxt, j + 2
    m = _NAME.match(s, j + 1, end)
    if m is None:
        return None, j + 1
    name, k = m.group(), m.end()
    if name in _ACCENTS:
        accented = _accent(s, name, k, end, letter=True)
        if accented is not None:
            return accented
    if name in _STYLE_COMMANDS or name in ("url", "href"):
        close = src.group_end(k) if k < end and s[k] == "{" else None
        if close is None or close >= end:
            return None, j + 1
        if name == "url":
            return Link((clean(s[k + 1 : close]), [])), close + 1
        if name == "href":
            text_open = close + 1
            text_close = (
                src.group_end(text_open) if text_open < end and s[text_open] == "{" else None
            )
            if text_close is None or text_close >= end:
                return None, j + 1
            children = _parse(src, text_open + 1, text_close, depth + 1)
            return Link((clean(s[k + 1 : close]), children)), text_close + 1
        children = _parse(src, k + 1, close, depth + 1)
        return Styled((_STYLE_COMMANDS[name], children)), close + 1
    if name in _TEXT_SYMBOLS or name in _LOGOS:
        if s.startswith("{}", k):
            k += 2
        elif k < end and s[k] == " ":
            k += 1
        node = Logo((name,)) if name in _LOGOS else _TEXT_SYMBOLS[name]
        return node, k
    return None, j + 1


def _accent(s: str, command: str, k: int, end: int, *, letter: bool) -> tuple[str, int] | None:
    """`\\'e`, `\\"{o}`, `\\c c` -> the precomposed letter; None when no letter follows."""
    mark = _ACCENTS[command]
    if k + 2 < end and s[k] == "{" and s[k + 2] == "}" and s[k + 1].isalpha():
        return unicodedata.normalize("NFC", s[k + 1] + mark), k + 3
    if letter:
        if k + 1 < end and s[k] == " " and s[k + 1].isalpha():
            return unicodedata.normalize("NFC", s[k + 1] + mark), k + 2
        return None
    if k < end and s[k].isalpha():
        return unicodedata.normalize("NFC", s[k] + mark), k + 1
    return None


@lru_cache(maxsize=4096)
def _harmless_math(body: str) -> bool:
    """Whether `body` is math that compiles anywhere (cached: abstracts reuse `\\times`, `k`)."""
    if not body or not body.isascii() or len(body) > MAX_SPAN or _MATH_HARMFUL.search(body):
        return False
    if body[0].isspace() or body[-1].isspace() or body.endswith("\\"):
        return False
    depth = 0
    for m in _BRACE_TOKEN.finditer(body):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth < 0:
                return False
        elif token in ("\\{", "\\}"):
            return False
    if depth:
        return False
    return all(name in _MATH_COMMANDS for name in _MATH_COMMAND.findall(body))


def _dollar_math(src: _Source, j: int, end: int) -> tuple[Node | None, int]:
    """Pandoc's rule: `$` opens before a non-space; it closes after one, not before a digit."""
    s = src.text
    if j > 0 and s[j - 1] == "\\":
        return None, j + 1
    close = src.next_dollar(j)
    if close is None or close >= end or close - j > MAX_SPAN:
        return None, j + 1
    if close + 1 < end and s[close + 1].isdigit():
        return None, j + 1
    body = s[j + 1 : close]
    if not _harmless_math(body):
        return None, j + 1
    return Math((body,)), close + 1


def _bracket_math(src: _Source, j: int, end: int) -> tuple[Node | None, int]:
    s = src.text
    closer = "\\)" if s[j + 1] == "(" else "\\]"
    close = s.find(closer, j + 2, min(end, j + 2 + MAX_SPAN))
    if close < 0:
        return None, j + 1
    body = s[j + 2 : close].strip()
    if not _harmless_math(body):
        return None, j + 1
    return Math((body,)), close + 2


def _code(s: str, j: int, end: int) -> tuple[Node | None, int]:
    if j + 1 < end and s[j + 1] == "`":
        return None, j + 2
    close = s.find("`", j + 1, min(end, j + 1 + MAX_SPAN))
    if close <= j + 1:
        return None, j + 1
    return Styled(("code", [s[j + 1 : close]])), close + 1


def _link(src: _Source, j: int, end: int, depth: int) -> tuple[Node | None, int]:
    m = _LINK.match(src.text, j, end)
    if m is None:
        return None, j + 1
    children = _parse(src, m.start(1), m.end(1), depth + 1)
    return Link((m.group(2), children)), m.end()


def _autolink(s: str, j: int, end: int) -> tuple[Node | None, int]:
    m = _AUTOLINK.match(s, j, end)
    if m is None:
        return None, j + 1
    return Link((m.group(1), [])), m.end()


# --- rendering: LaTeX ----------------------------------------------------------------------


def to_latex(text: str, *, ascii: bool = False, protect: bool = False) -> str:
    """Record text (markdown, math, a few LaTeX commands) -> a LaTeX-safe BibTeX value.

    `protect` (titles) braces acronyms and mixed-case words (`{USMoE}`) and math, so that
    styles that lowercase titles keep them. `ascii` writes non-ASCII characters as LaTeX
    macros for classic BibTeX + pdflatex.
    """
    text, marks = _clean_marks(text)
    if ascii and not text.isascii():
        text = unicodedata.normalize("NFC", text)
        marks = _marks(text)
    if _MARKUP.isdisjoint(marks):  # no markup at all: the common case
        result = _protect(text, marks) if protect else _escape(text, marks)
    else:
        out: list[str] = []
        # Without a backslash every text node is source text, so a source without LaTeX
        # specials gives text nodes without them.
        _render_latex(parse(text, marks), protect, out, not _LATEX_SPECIALS.isdisjoint(marks))
        result = "".join(out)
    return to_ascii(result) if ascii else result


def escape(text: str, *, ascii: bool = False) -> str:
    """Plain Unicode (a name, a keyword, a publisher) -> LaTeX-safe text; nothing is markup."""
    if len(text) <= _SHORT:  # venues, publishers, keywords: the same few on every record
        return _escape_short(text, ascii)
    return _escaped(text, ascii)


_SHORT = 200


@lru_cache(maxsize=4096)
def _escape_short(text: str, ascii: bool) -> str:
    return _escaped(text, ascii)


def _escaped(text: str, ascii: bool) -> str:
    text, marks = _clean_marks(text)
    if ascii and not text.isascii():
        text = unicodedata.normalize("NFC", text)
        marks = _marks(text)
    result = _escape(text, marks)
    return to_ascii(result) if ascii else result


def escape_clean(text: str, *, ascii: bool = False) -> str:
    """`escape` of text already clean (`clean(text) == text`, as keywords are), without
    cleaning it again or remembering it: a record's keyword list is its own."""
    if ascii and not text.isascii():
        return to_ascii(_escape(unicodedata.normalize("NFC", text)))
    return _escape(text)


def _render_latex(nodes: list[Node], protect: bool, out: list[str], escape: bool = True) -> None:
    """Append the LaTeX of `nodes` to `out`; `escape=False`: text nodes hold no specials."""
    for node in nodes:
        if type(node) is str:
            out.append(_protect(node) if protect else _escape(node) if escape else node)
        elif isinstance(node, Math):
            out.append("{$" + node[0] + "$}" if protect else "$" + node[0] + "$")
        elif isinstance(node, Styled):
            out.append(_STYLE_LATEX[node[0]])
            _render_latex(node[1], protect, out, escape)
            out.append("}")
        elif isinstance(node, Link):
            _render_link(node, protect, out, escape)
        else:
            out.append("{\\" + node[0] + "}")


def _render_link(node: Link, protect: bool, out: list[str], escape: bool = True) -> None:
    url, children = node
    shown = _URL_IN_TEXT.fullmatch(url)
    # `\\url{...}` needs no protecting braces: its argument is a brace group, which styles
    # that change case leave alone; `{\\url{...}}` would be a "special character" they lowercase.
    link = "\\url{" + url + "}" if shown else None
    if link is None:
        link = _escape(url)
    if children and _plain(children) != url:
        _render_latex(children, protect, out, escape)
        out.append(" (" + link + ")")
    else:
        out.append(link)


def _protect(text: str, marks: bytes | None = None) -> str:
    """Brace words with a capital after their first letter (USMoE, LLM, dLLMs)."""
    if text.islower() or text.lower() == text:
        return _escape(text, marks)
    if marks is None:
        marks = _marks(text)
    plain = _LATEX_SPECIALS.isdisjoint(marks)
    if plain and text.isascii():  # the common title: one substitution does it all
        return _ASCII_CAPITAL_INSIDE.sub(_braced, text)
    out: list[str] = []
    pos = 0
    for m in _WORD.finditer(text):
        tail = m.group()[1:]
        if tail and tail.lower() != tail:
            gap = text[pos : m.start()]
            out.append(gap if plain else _escape(gap))
            out.append("{" + m.group() + "}")
            pos = m.end()
    out.append(text[pos:] if plain else _escape(text[pos:]))
    return "".join(out)


def _braced(m: re.Match[str]) -> str:
    return "{" + m.group() + "}"


def to_ascii(latex: str) -> str:
    """Replace every non-ASCII character of a LaTeX value by a braced macro, or `?`."""
    if latex.isascii():
        return latex
    return _NON_ASCII.sub(lambda m: _ascii_char(m.group()), latex)


@cache
def ascii_table() -> dict[str, str]:
    """Non-ASCII character -> braced LaTeX macro, for `--ascii`.

    pylatexenc's UnicodeToLatexEncoder output, kept only for the characters pdflatex
    typesets in a plain document (OT1 and T1, no packages): tests/writers/make_latex_ascii.py
    builds bib/data/latex_ascii.json, and a toolchain test compiles all of it.
    """
    data = resources.files("bib").joinpath("data/latex_ascii.json").read_text(encoding="utf-8")
    return json.loads(data)


@lru_cache(maxsize=4096)
def _ascii_char(ch: str) -> str:
    encoded = ascii_table().get(ch)
    if encoded is not None:
        return encoded
    decomposed = unicodedata.normalize("NFKD", ch)
    if decomposed != ch:
        parts = [
            _escape(part) if part.isascii() else _ascii_char(part)
            for part in decomposed
            if not unicodedata.combining(part)
        ]
        if parts and ASCII_FALLBACK not in parts:
            return "".join(parts)
    return ASCII_FALLBACK


def link(url: str) -> str:
    """A URL inside a text field (a note): `\\url{}` when url.sty copes, else escaped text."""
    out: list[str] = []
    _render_link(Link((clean(url), [])), False, out)
    return out[0]


_URL_UNSAFE = re.compile(r"%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]")


def url_value(url: str) -> str:
    """A `url` field: left unescaped (styles typeset it verbatim), but percent-encoded
    where a character could unbalance the entry or break url.sty: spaces, braces,
    backslashes, `^`, non-ASCII and a `%` that starts no escape.
    """
    return _URL_UNSAFE.sub(_percent, clean(url))


def _percent(m: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in m.group().encode("utf-8"))


_VERBATIM_UNSAFE = re.compile(r"[\s{}\\%]")


def verbatim_value(value: str) -> str:
    """A DOI or an arXiv id: written verbatim, minus anything that could break the entry."""
    return _VERBATIM_UNSAFE.sub(_percent, clean(value))


# --- rendering: plain text -----------------------------------------------------------------


def to_text(text: str) -> str:
    """Record text -> plain Unicode: markdown stripped, commands dropped, math rendered, and
    TeX ligatures (`--`, `''`) shown as the characters the `.bib` prints, so that CSL-JSON
    says what the PDF says and a `.bib` read back gives the same text."""
    text, marks = _clean_marks(text)
    if _MARKUP.isdisjoint(marks):
        return _typeset(text, marks)
    # Text nodes are source text, joined with what commands print, and markup that the
    # parser takes out leaves a node boundary: a source without ligatures gives nodes
    # without them, unless a command prints a ligature's character (`\-`, a backtick; a
    # backtick in the source is caught by _may_ligate).
    typeset = _may_ligate(text, marks) or (
        b"\\" in marks and ((b"\\-" in marks and "\\-" in text) or "\\textasciigrave" in text)
    )
    plain = _plain(parse(text, marks), typeset=typeset)
    if b"$" in marks or b"\\" in marks:  # math (pylatexenc's text) may hold any character
        return clean(plain)
    # Without math or commands, the text is clean source text with markup taken out (and
    # links' " (url)"): joining its parts can only double a space or leave one at an edge.
    return plain.strip() if _single_spaced(plain) else clean(plain)


def _typeset(text: str, marks: bytes | None = None) -> str:
    """TeX's ligatures, read left to right as TeX reads them (`!``` is `¡` then a backtick)."""
    if marks is None:
        if "-" not in text and "`" not in text and "'" not in text:
            return text
        marks = _marks(text)
    return _LIGATURE.sub(_ligature, text) if _may_ligate(text, marks) else text


def _may_ligate(text: str, marks: bytes) -> bool:
    """Whether `text` (with `_marks(text)`) may hold a ligature; False is certain.

    Every ligature holds `--`, `''` or a backtick. _marks keeps those characters in order,
    so what is not in `marks` is not in `text` (what is may be a false alarm: `a-b-c`)."""
    return (
        b"`" in marks
        or (b"--" in marks and _HYPHENS.search(text) is not None)
        or (b"''" in marks and _QUOTES.search(text) is not None)
    )


# A literal regex search beats `in` for two characters in a long text (an abstract).
_HYPHENS = re.compile("--")
_QUOTES = re.compile("''")


def _ligature(m: re.Match[str]) -> str:
    return _LIGATURE_SHOWN[m.group()]


def _plain(nodes: list[Node], *, typeset: bool = False) -> str:
    out: list[str] = []
    for node in nodes:
        if type(node) is str:
            out.append(_typeset(node) if typeset else node)
        elif isinstance(node, Math):
            out.append(_math_text(node[0]))
        elif isinstance(node, Styled):
            out.append(_plain(node[1], typeset=typeset))
        elif isinstance(node, Link):
            shown = _plain(node[1]) if node[1] else ""
            if shown and shown != node[0]:
                out.append(f"{_plain(node[1], typeset=typeset)} ({node[0]})")
            else:
                out.append(node[0])
        else:
            out.append(node[0])
    return "".join(out)


@lru_cache(maxsize=8192)
def _math_text(body: str) -> str:
    return decoder().latex_to_text("$" + body + "$").strip()


@cache
def decoder(math_mode: str = "text") -> LatexNodes2Text:
    """pylatexenc's LaTeX->text, taught the macros `to_latex` writes that its default
    context drops (`\\textbraceleft`, `\\textless`, `\\textbar`, `\\texttt`, `\\url`, ...).

    Readers of BibTeX should use it so that our own output reads back exactly;
    `math_mode="verbatim"` keeps `$...$` as written.
    """
    db = get_default_latex_context_db()
    db.add_context_category(
        "bib",
        prepend=True,
        macros=[
            MacroTextSpec("textbraceleft", "{"),
            MacroTextSpec("textbraceright", "}"),
            MacroTextSpec("textless", "<"),
            MacroTextSpec("textgreater", ">"),
            MacroTextSpec("textbar", "|"),
            MacroTextSpec("textasciicircum", "^"),
            MacroTextSpec("textasciitilde", "~"),
            MacroTextSpec("textbackslash", "\\"),
            MacroTextSpec("texttt", "%s"),
            MacroTextSpec("textsc", "%s"),
            MacroTextSpec("textsf", "%s"),
            MacroTextSpec("textrm", "%s"),
            MacroTextSpec("underline", "%s"),
            MacroTextSpec("textsuperscript", "%s"),
            MacroTextSpec("textsubscript", "%s"),
            MacroTextSpec("url", "%s"),
            MacroTextSpec("LaTeX", "LaTeX"),
            MacroTextSpec("TeX", "TeX"),
        ],
    )
    return LatexNodes2Text(latex_context=db, math_mode=math_mode, strict_latex_spaces=True)


def decode(latex: str) -> str:
    """A LaTeX value written by `to_latex` or `escape` -> Unicode (what it prints)."""
    return clean(decoder().latex_to_text(latex))


# --- reading: LaTeX values back into record text -------------------------------------------

_RECORD_ESCAPES = {
    "\\": "\\textbackslash{}",
    "$": "\\$",
    "*": "\\*",
    "_": "\\_",
    "<": "\\<",
    "`": "\\textasciigrave{}",
    "[": "\\lbrack{}",
    "{": "\\{",
    "}": "\\}",
}
_RECORD_SPECIAL = re.compile(r"[\\$*_<`\[{}]")
_NEEDS_LATEX = re.compile(r"[\\$%{}~&]")
_LIGATURES = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"))
_LIGATURES += (("!`", "\u00a1"), ("?`", "\u00bf"))
_LIGATURE_SHOWN = dict(_LIGATURES)
_LIGATURE = re.compile("|".join(re.escape(source) for source, _ in _LIGATURES))
_URL_ARGUMENT = re.compile(r"(\\(?:url|href)\s*\{)([^{}]*)(\})")
_BARE_PERCENT = re.compile(r"(?<!\\)%")
_PLACEHOLDER = re.compile("\ufffe(\\d+)\uffff")
"""A URL set aside while pylatexenc reads the rest; noncharacters, which `clean` drops anyway."""


class _RecordText(LatexNodes2Text):
    """pylatexenc's LaTeX->text, writing record text instead of plain text: formatting
    commands and math stay markup, and (with `escape`) characters that record text would
    read as markup (`*`, `_`, `$`, ...) are escaped."""

    def __init__(self, escape: bool):
        super().__init__(
            latex_context=decoder().latex_context, math_mode="verbatim", strict_latex_spaces=True
        )
        self.escape = escape

    def literal(self, text: str) -> str:
        text = text.replace("\xa0", " ")
        if not self.escape:
            return text
        return _RECORD_SPECIAL.sub(_record_escape, text)

    def chars_node_to_text(self, node, textcol=0):
        return self.literal(super().chars_node_to_text(node, textcol))

    def specials_node_to_text(self, node):
        if node.specials_chars == "&":  # an alignment tab to LaTeX, an ampersand in a title
            return "&"
        return self.literal(super().specials_node_to_text(node))

    def math_node_to_text(self, node):
        source, end = node.latex_verbatim(), node.pos + node.len
        after = node.parsing_state.s[end:].lstrip("{}")[:1]
        if node.delimiters[0] == "$" and after.isdigit():  # `$x$2` is not math in record text
            return "\\(" + source[1:-1] + "\\)"
        return source

    def macro_node_to_text(self, node):
        args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
        name = node.macroname
        if (name in _STYLE_COMMANDS or name in ("url", "href")) and args:
            groups = "}{".join(self._groupnodecontents_to_text(a) for a in args)
            return "\\" + name + "{" + groups + "}"
        text = super().macro_node_to_text(node)
        return text if args else self.literal(text)  # arguments were converted already


@cache
def _record_text(escape: bool) -> _RecordText:
    return _RecordText(escape)


@cache
def _walker_context() -> macrospec.LatexContextDb:
    """pylatexenc's parser, told the arguments of every command record text keeps."""
    db = latexwalker.get_default_latex_context_db()
    db.add_context_category(
        "bib",
        prepend=True,
        macros=[
            macrospec.MacroSpec(name, "{{" if name == "href" else "{")
            for name in (*_STYLE_COMMANDS, "url", "href")
        ],
    )
    return db


def from_latex(latex: str) -> str:
    """A BibTeX value (title, abstract, note) -> record text that `to_latex` writes back as it
    was and `to_text` renders as it prints: accents, escapes and symbols become Unicode,
    grouping braces go, formatting commands, links and math stay markup.

    Literal characters that record text reads as markup are escaped only when they would be
    (`a*b*c`, not `BERT_base`), so that titles read from third-party files stay plain.
    """
    if _NEEDS_LATEX.search(latex) is None:  # plain text: only ligatures to read
        plain = clean(_typeset(latex))
        if _STOP.search(plain) is None:
            return plain
        return _unambiguous(plain, _RECORD_SPECIAL.sub(_record_escape, plain))
    urls: list[str] = []

    def hide(m: re.Match[str]) -> str:
        urls.append(m.group(2))  # verbatim: `%`, `#`, `~` in a URL are not LaTeX
        return f"{m.group(1)}\ufffe{len(urls) - 1}\uffff{m.group(3)}"

    hidden = _URL_ARGUMENT.sub(hide, latex.replace("\ufffe", "").replace("\uffff", ""))
    # `50% faster` would be a LaTeX comment; in a BibTeX value it is a forgotten `\%`
    hidden = _BARE_PERCENT.sub(r"\\%", hidden)
    nodes = latexwalker.LatexWalker(
        hidden, latex_context=_walker_context(), tolerant_parsing=True
    ).get_latex_nodes()[0]

    def convert(escape: bool) -> str:
        text = _record_text(escape).nodelist_to_text(nodes)
        return clean(_PLACEHOLDER.sub(lambda m: urls[int(m.group(1))], text))

    plain = convert(False)
    if _STOP.search(plain) is None:
        return plain
    return _unambiguous(plain, convert(True))


def _unambiguous(plain: str, escaped: str) -> str:
    """`plain` when record text reads it as `escaped` says, else `escaped`."""
    same = to_text(plain) == to_text(escaped) and to_latex(plain) == to_latex(escaped)
    return plain if same else escaped


def _record_escape(m: re.Match[str]) -> str:
    return _RECORD_ESCAPES[m.group()]
