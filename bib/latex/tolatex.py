"""The markup tree -> LaTeX-safe BibTeX values (`to_latex`, `escape`), `--ascii` from a
table of pylatexenc's macros verified with pdflatex (bib/data/latex_ascii.json), and URL and
verbatim field values."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources

from bib.latex.markup import (
    _ASCII_CAPITAL_INSIDE,
    _ESCAPED,
    _MARKUP,
    _NON_ASCII,
    _URL_IN_TEXT,
    _WORD,
    ASCII_FALLBACK,
    Link,
    Math,
    Node,
    Styled,
    Text,
    _clean_marks,
    _escape,
    _marks,
    clean,
)
from bib.latex.tables import _ACCENTS, _STYLE_LATEX
from bib.latex.totext import _plain


class Latex(str):
    """A value that is LaTeX already (rendered reading notes): the BibTeX writer puts it into
    its field as it is, where any other text is escaped."""

    __slots__ = ()


def to_latex(text: str | Text, *, ascii: bool = False, protect: bool = False) -> str:
    """Record text (markdown, math, a few LaTeX commands) -> a LaTeX-safe BibTeX value.

    `protect` (titles) braces acronyms and mixed-case words (`{USMoE}`) and math, so that
    styles that lowercase titles keep them. `ascii` writes non-ASCII characters as LaTeX
    macros for classic BibTeX + pdflatex. A `Text` (prepared once for every writer of a
    record) is rendered from its cleaned text and markup tree.
    """
    prepared = text if isinstance(text, Text) else Text.of(text)
    if ascii:
        prepared = prepared.nfc()
    text, marks = prepared.clean, prepared.marks
    if _MARKUP.isdisjoint(marks):  # no markup at all: the common case
        result = _protect(text, marks) if protect else _escape(text, marks)
    else:
        out: list[str] = []
        # Without a backslash every text node is source text, so a source without LaTeX
        # specials gives text nodes without them.
        _render_latex(prepared.nodes(), protect, out, not _ESCAPED.isdisjoint(marks))
        result = "".join(out)
        if "[@" in result:  # a citation read from `\\cite{X}` is one again
            result = _CITATION.sub(_cite, result)
    return _finish(result, ascii)


def _finish(latex: str, ascii: bool) -> str:
    """A value's last step: a letter with a combining accent that Unicode has no single
    character for (P with a macron) becomes the accent macro (`{\\={P}}`), which pdflatex
    typesets where it rejects a bare combining character; then `--ascii`."""
    if latex.isascii():
        return latex
    if _COMBINING.search(latex) is not None:
        latex = _ACCENTED.sub(_accent_macro, latex)
    return to_ascii(latex) if ascii else latex


_MARK_COMMAND = {mark: command for command, mark in _ACCENTS.items()}
_COMBINING = re.compile("[" + "".join(_MARK_COMMAND) + "]")
_ACCENTED = re.compile(r"([^\W\d_])([" + "".join(_MARK_COMMAND) + "]+)")


def _accent_macro(m: re.Match[str]) -> str:
    decomposed = unicodedata.normalize("NFD", m.group())  # `ḋ` + a mark: d and two marks
    base, marks = decomposed[0], decomposed[1:]
    unknown = any(mark not in _MARK_COMMAND for mark in marks)
    if unknown or (not base.isascii() and base != "\u0131"):
        return m.group()
    latex = "\\i" if base in "i\u0131" else "\\j" if base == "j" else base
    for mark in marks:
        command = _MARK_COMMAND[mark]
        latex = "\\" + command + "{" + latex + "}"
    return "{" + latex + "}"


_CITATION = re.compile(r"\[(@[^\s;\[\]]+(?:; @[^\s;\[\]]+)*)\]")
"""`[@a; @b]`, pandoc's markdown citation, which `from_latex` makes of `\\cite{a,b}`."""


def _cite(m: re.Match[str]) -> str:
    keys = (key.strip()[1:] for key in m.group(1).split(";"))
    return "\\cite{" + ",".join(k.replace("\\_", "_").translate(_UNBRACED) for k in keys) + "}"


_UNBRACED = str.maketrans("", "", "{}")


def escape(text: str, *, ascii: bool = False) -> str:
    """Plain Unicode (a name, a keyword, a publisher) -> LaTeX-safe text; nothing is markup."""
    text, marks = _clean_marks(text)
    if ascii and not text.isascii():
        text = unicodedata.normalize("NFC", text)
        marks = _marks(text)
    return _finish(_apart(_escape(text, marks)), ascii)


def escape_clean(text: str, *, ascii: bool = False) -> str:
    """`escape` of text already clean (`clean(text) == text`, as keywords are), without
    cleaning it again or remembering it: a record's keyword list is its own."""
    if ascii and not text.isascii():
        return _finish(_apart(_escape(unicodedata.normalize("NFC", text))), ascii)
    return _finish(_apart(_escape(text)), False)


def _apart(latex: str) -> str:
    """Plain text's apostrophes kept apart: TeX prints `''` as a closing double quote, so
    two apostrophes are written `'{}'` (`--` stays: a range's dash in `pages`, and the
    `.bib` convention for a dash elsewhere; docs/formats.md)."""
    return _APOSTROPHES.sub("'{}", latex) if "''" in latex else latex


_APOSTROPHES = re.compile("'(?=')")


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
    plain = _ESCAPED.isdisjoint(marks)
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

    pylatexenc's UnicodeToLatexEncoder output (else the kernel's accent macro: `\\d{h}`),
    kept only for the characters pdflatex typesets in a plain T1 document, the set-up every
    output is checked in: tests/writers/make_latex_ascii.py builds bib/data/latex_ascii.json,
    and a toolchain test compiles all of it.
    """
    data = resources.files("bib").joinpath("data/latex_ascii.json").read_text(encoding="utf-8")
    table: dict[str, str] = json.loads(data)
    return table


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
