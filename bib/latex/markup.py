"""Record text -> a small markup tree (`parse`), and the character classes the renderers share.

Record text is Unicode that may carry markdown emphasis and links, inline math and a few
LaTeX formatting commands. Whatever the parser does not understand is a literal character.
Speed: the parser stops only at the few characters that can start a structure (one C-level
regex scan); `_marks` tells plain text from text that needs the parser in one pass.
"""

from __future__ import annotations

import bisect
import re
import string
import unicodedata
from collections.abc import Iterable

from bib.latex.tables import (
    _ACCENTS,
    _LATEX_ESCAPES,
    _LOGOS,
    _MATH_COMMANDS,
    _STYLE_COMMANDS,
    _TEXT_SYMBOLS,
)

ASCII_FALLBACK = "?"
"""What `--ascii` writes for a character with no LaTeX macro that pdflatex can typeset."""

MAX_SPAN = 2000
"""Longest math span, command argument or link that is still read as structure.

Longer candidates are taken literally, which bounds the work per character on hostile input.
"""

MAX_DEPTH = 16
"""Deepest nesting of commands and emphasis read as structure; deeper text stays literal."""


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


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
# bytes.translate(None, these) is empty for printable ASCII: ten times faster than a regex scan
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))
_NOT_CONTROL_ASCII = _PRINTABLE_ASCII + b"\t\n\r"
_SPACE_CONTROLS = "\x0b\x0c\x1c\x1d\x1e\x1f"  # whitespace to str.split(), dropped by _CONTROL
_STOP = re.compile(r"[\\$*_`\[<]")
_STOP_CHARS = "\\$*_`[<"
_ESCAPABLE = frozenset("%&$#_{}*[]`~^<>|\\!().-+")

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_LATEX_SPECIAL = re.compile(r"[\\{}$%&#_~^<>|]")
_MARKED = "\\$*_`[<{}%&#~^>|-'"
_UNMARKED = bytes(b for b in range(256) if chr(b) not in _MARKED)
_MARKUP = frozenset(b"\\$*_`[<")  # the characters _STOP stops at
_LATEX_SPECIALS = frozenset("".join(_LATEX_ESCAPES).encode())
_ESCAPED = _LATEX_SPECIALS | frozenset(b"`")
"""The marks of text that `_escape` may change: the specials and a lone backtick."""
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
    """`clean(text)` and its `_marks`, from one bytes.translate when the text is clean."""
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
        return text.strip(), marks  # stripped spaces are no marks
    cleaned = clean(text)
    return cleaned, _marks(cleaned)


class Text:
    """A record text prepared once for every writer of the record: cleaned, its marks, and
    its markup tree, parsed when a writer first needs it (`to_latex` and `to_text` take a
    Text as they take a string). Its NFC form (`--ascii`) is prepared the same way."""

    __slots__ = ("_nfc", "_nodes", "clean", "marks")

    def __init__(self, clean: str, marks: bytes) -> None:
        self.clean = clean
        self.marks = marks
        self._nodes: list[Node] | None = None
        self._nfc: Text | None = None

    @classmethod
    def of(cls, text: str) -> Text:
        return cls(*_clean_marks(text))

    def nodes(self) -> list[Node]:
        """The markup tree (callers only read it)."""
        if self._nodes is None:
            self._nodes = parse(self.clean, self.marks)
        return self._nodes

    def nfc(self) -> Text:
        """The text composed (NFC), for `--ascii`: one macro per composed character."""
        if self._nfc is None:
            if self.clean.isascii():
                self._nfc = self
            else:
                composed = unicodedata.normalize("NFC", self.clean)
                self._nfc = Text(composed, _marks(composed))
        return self._nfc


def _single_spaced(text: str) -> bool:
    """No two spaces in a row (a literal regex search beats `in` on a long text)."""
    return "  " not in text if len(text) <= _LONG else _DOUBLE_SPACE.search(text) is None


_DOUBLE_SPACE = re.compile("  ")

_LONG = 200
"""Texts longer than this (abstracts) are checked for printable characters and double
spaces in ways that pay only on long texts."""


def _escape(text: str, marks: bytes | None = None) -> str:
    """Escape LaTeX specials (`marks`: `_marks(text)` when the caller has it)."""
    if marks is None:
        marks = _marks(text)
    if b"`" in marks and _LONE_GRAVE.search(text) is not None:
        return _escape_graves(text)
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


_LONE_GRAVE = re.compile(r"(?<![`!?])`(?!`)")
"""A backtick that is no ligature (`` `` ``, `` !` ``): TeX would print an opening quote."""


def _escape_graves(text: str) -> str:
    """`_escape` of a text with lone backticks, each written as the character it is."""
    return "\\textasciigrave{}".join(_escape(part) for part in _LONE_GRAVE.split(text))


def _escape_one(m: re.Match[str]) -> str:
    return _LATEX_ESCAPES[m.group()]


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
    A writer of several outputs parses a record's text once through `Text`."""
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
    return _literal(items)


_ASCII_PUNCT = frozenset(string.punctuation)


def _is_punct(ch: str) -> bool:
    if ch.isascii():
        return ch in _ASCII_PUNCT
    return unicodedata.category(ch)[0] in "PS"


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
            inner = _literal(out[at + 1 :])
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
        text = item.char * item.count if isinstance(item, _Delim) else item
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


def _harmless_math(body: str) -> bool:
    """Whether `body` is math that compiles anywhere."""
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
