"""The markup tree -> plain Unicode (`to_text`), and pylatexenc's LaTeX -> text (`decode`)."""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

from bib.latex.markup import (
    _MARKUP,
    Link,
    Math,
    Node,
    Styled,
    Text,
    _marks,
    _single_spaced,
    clean,
)
from bib.latex.tables import _ACCENTS, _LIGATURE, _LIGATURE_SHOWN, _MACRO_TEXT, _MATH_OPERATORS


def to_text(text: str | Text, math: MathTexts | None = None) -> str:
    """Record text -> plain Unicode: markdown stripped, commands dropped, math rendered, and
    TeX ligatures (`--`, `''`) shown as the characters the `.bib` prints, so that CSL-JSON
    says what the PDF says and a `.bib` read back gives the same text. A `Text` (prepared
    once for every writer of a record) is rendered from its cleaned text and markup tree;
    `math` is a run's `MathTexts`, when the caller has one."""
    prepared = text if isinstance(text, Text) else Text.of(text)
    text, marks = prepared.clean, prepared.marks
    if _MARKUP.isdisjoint(marks):
        return _typeset(text, marks)
    # Text nodes are source text, joined with what commands print, and markup that the
    # parser takes out leaves a node boundary: a source without ligatures gives nodes
    # without them, unless a command prints a ligature's character (`\-`, a backtick; a
    # backtick in the source is caught by _may_ligate).
    typeset = _may_ligate(text, marks) or (
        b"\\" in marks and ((b"\\-" in marks and "\\-" in text) or "\\textasciigrave" in text)
    )
    plain = _plain(prepared.nodes(), typeset=typeset, math=math)
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


def _plain(nodes: list[Node], *, typeset: bool = False, math: MathTexts | None = None) -> str:
    out: list[str] = []
    for node in nodes:
        if type(node) is str:
            out.append(_typeset(node) if typeset else node)
        elif isinstance(node, Math):
            out.append(_math_text(node[0]) if math is None else math[node[0]])
        elif isinstance(node, Styled):
            out.append(_plain(node[1], typeset=typeset, math=math))
        elif isinstance(node, Link):
            shown = _plain(node[1], math=math) if node[1] else ""
            if shown and shown != node[0]:
                out.append(f"{_plain(node[1], typeset=typeset, math=math)} ({node[0]})")
            else:
                out.append(node[0])
        else:
            out.append(node[0])
    return "".join(out)


def _math_text(body: str) -> str:
    """pylatexenc's text of the math `$body$` (`\\times` -> U+00D7), with the space TeX sets
    after an operator name before its operand (`\\log n` is `log n`, `\\log(n)` `log(n)`),
    which pylatexenc drops with the source's space after a command."""
    if "\\" in body:
        body = _OPERATOR.sub(r"\\\1{} ", body)
    text: str = decoder().latex_to_text("$" + body + "$")
    return text.strip()


_OPERATOR = re.compile(
    r"\\(" + "|".join(sorted(_MATH_OPERATORS)) + r")(?![A-Za-z])\s*(?=[A-Za-z0-9]|\\[A-Za-z])"
)


class MathTexts(dict[str, str]):
    """`_math_text` of the math bodies one run has met, by body: a run's abstracts repeat a
    few (`\\times`, `k`, `\\mathcal{O}(n)`), and pylatexenc takes 0.2-0.4 ms for each (remembering
    them saves 8 % of a conversion, docs/architecture.md). Made per run
    (`bib.writers.RunMemo`), never module-wide; emptied when full, so memory stays flat."""

    __slots__ = ()

    LIMIT = 4096

    def __missing__(self, body: str) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        self[body] = text = _math_text(body)
        return text


class KeepingText(LatexNodes2Text):
    """pylatexenc's LaTeX->text, but a macro it does not know prints its name (pylatexenc
    deletes it): `{\\MTeX}` is `MTeX`, not nothing; one its parser knows to take
    arguments (`\\mbox{x}`) prints them."""

    def macro_node_to_text(self, node: Any) -> str:
        if self.latex_context.get_macro_spec(node.macroname) is None:
            args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
            if not args:
                return str(node.macroname)
            return "".join(self._groupnodecontents_to_text(a) for a in args)  # `\\mbox{x}`
        try:
            return str(super().macro_node_to_text(node))
        except (AttributeError, IndexError):
            if node.nodeargd is not None:
                raise
            # read without its arguments (an accent's argument: `\\'\\href{a}{t}`), a macro
            # whose replacement indexes them (`\\href`'s) prints nothing, as one unknown would
            # print only its name
            return ""


def _citation(node: Any) -> str:
    """`\\cite{a,b}` -> `[@a; @b]`: a citation stays one (pandoc's markdown form)."""
    args = node.nodeargd.argnlist if node.nodeargd else []
    keys = args[-1].latex_verbatim().strip("{}") if args and args[-1] is not None else ""
    return citation_text(keys)


def citation_text(keys: str) -> str:
    """The record text of a citation of `keys` (`a, b` -> `[@a; @b]`); empty without keys."""
    cited = [key.strip() for key in keys.split(",") if key.strip()]
    return "[" + "; ".join("@" + key for key in cited) + "]" if cited else ""


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
            *(MacroTextSpec("cite" + kind, simplify_repl=_citation) for kind in _CITES),
            *(MacroTextSpec(name, text) for name, text in _MACRO_TEXT.items()),
            *(_accent_spec(command, mark) for command, mark in _ACCENTS.items()),
        ],
    )
    return KeepingText(latex_context=db, math_mode=math_mode, strict_latex_spaces=True)


def _accent_spec(command: str, mark: str) -> MacroTextSpec:
    """An accent macro that puts its mark on each letter of its argument with the marks the
    letter already carries (`accented`); pylatexenc's own puts it on every code point, so
    `\\`{\\c{O}}` (O with a cedilla, then a grave) came back with a second grave on the
    cedilla."""

    def text(node: Any, l2tobj: LatexNodes2Text) -> str:
        argument = l2tobj.nodelist_to_text(node.nodeargs[:1]).strip() if node.nodeargs else " "
        return accented(argument, mark)

    return MacroTextSpec(command, simplify_repl=text)


def accented(text: str, mark: str) -> str:
    """`text` with `mark` on each of its letters: after a letter and the combining marks
    that follow it, in NFC (a dotless i or j takes it as i or j, as pylatexenc does)."""
    out: list[str] = []
    for char in text.replace("\u0131", "i").replace("\u0237", "j"):
        if out and unicodedata.combining(char):
            out[-1] += char
        else:
            out.append(char)
    return "".join(unicodedata.normalize("NFC", cluster + mark) for cluster in out)


_CITES = ("", "p", "t", "alp", "alt", "author", "year", "yearpar")
"""`\\cite`, `\\citep`, `\\citet`, ... (natbib's)."""


def decode(latex: str) -> str:
    """A LaTeX value written by `to_latex` or `escape` -> Unicode (what it prints)."""
    return clean(decoder().latex_to_text(latex))
