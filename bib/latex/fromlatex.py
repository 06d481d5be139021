"""BibTeX values (LaTeX) -> record text (`from_latex`): accents, escapes and symbols become
Unicode; formatting commands, links and math stay markup."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, NamedTuple

from pylatexenc import latexwalker, macrospec

from bib.latex.fastlatex import decode_common, decode_open
from bib.latex.markup import _STOP, clean
from bib.latex.tables import _HOLOGO, _MACRO_TEXT, _RECORD_ESCAPES, _STYLE_COMMANDS
from bib.latex.tolatex import to_latex
from bib.latex.totext import KeepingText, _typeset, citation_text, decoder, to_text

_RECORD_SPECIAL = re.compile(r"[\\$*_<`\[{}]")
_NEEDS_LATEX = re.compile(r"[\\$%{}~&]")
_URL_ARGUMENT = re.compile(r"(\\(?:url|href)\s*\{)([^{}]*)(\})")
_BARE_PERCENT = re.compile(r"(?<!\\)%")
_PLACEHOLDER = re.compile("\ufffe(\\d+)\uffff")
"""A URL set aside while pylatexenc reads the rest; noncharacters, which `clean` drops anyway."""


_PATH = re.compile(r"\\path\s*(?:([^A-Za-z\s{}\\])([^{}\\]*?)\1|\{([^{}\\]*)\})")
"""url.sty's `\\path|x|` (TUGboat's bibliographies write e-mail addresses and URLs so)."""
_SORT_ONLY = re.compile(r"\\(?:noopsort|SortNoop|sortnoop)\s*\{[^{}]*\}")
"""`{\\noopsort{1973c}}1981`: a sort key that styles define to print nothing (xampl.bib)."""


_GROUP_ACCENT = re.compile(r"(\\[`'^\"~=.uvHckrdb]\s*\{)([A-Za-z])([A-Za-z][^{}\\]*)\}")
"""An accent over a group of letters (`Ry\\'{cko}`): TeX's `\\accent` sets it over the first."""
_HOLOGO_NAME = re.compile(r"\\hologo\s*\{([A-Za-z0-9]+)\}")
"""hologo.sty's `\\hologo{pdfTeX}`: the logo it names."""
_SINGLE_QUOTES = re.compile(r"(?<![`\\!?])`(?!`)(?:([^`]*?)(?<!\\)'(?![A-Za-z']))?")
"""TeX's single quotes, `` `x' ``, or an opening one alone: U+2018 x U+2019 and U+2018, as TeX
prints them (a double `` `` `` and `''` are ligatures of their own, an apostrophe stays)."""
_MATH_DELIMITER = re.compile(r"(?<!\\)(?:\$\$?|\\[()\[\]])")
"""What opens or closes math: `$`, `$$`, `\\(`, `\\)`, `\\[`, `\\]` (not an escaped `\\$`)."""
_MATH_CLOSES = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}
_QUOTE_COMMAND = re.compile(r"\\(?:enquote|mkbibquote)\s*\{")
"""csquotes' `\\enquote{x}` and biblatex's `\\mkbibquote{x}`: x in double quotes, in single
ones inside another."""


def prepare(latex: str) -> str:
    """The macros that a BibTeX value's own file defines in its `@preamble` or takes from a
    package, read as the file means them: `\\path|x|` is `\\url{x}`, a sort key prints
    nothing, `\\hologo{X}` is the logo X, `\\enquote{x}` is quoted; and what TeX itself
    prints otherwise than a character a time: an accent over a group, single quotes."""
    if "\\path" in latex:
        latex = _PATH.sub(_path_url, latex)
    if "oop" in latex:
        latex = _SORT_ONLY.sub("", latex)
    if "\\hologo" in latex:
        latex = _HOLOGO_NAME.sub(_logo, latex)
    if "quote" in latex:
        latex = _quoted(latex)
    if "`" in latex:
        latex = _outside_math(latex, lambda text: _SINGLE_QUOTES.sub(_single_quotes, text))
    if "{" in latex and "\\" in latex:
        latex = _GROUP_ACCENT.sub(r"\1\2}\3", latex)
    return latex


def _outside_math(latex: str, change: Callable[[str], str]) -> str:
    """`change` applied to the text outside math only, in one pass: what TeX's text mode
    prints (a quote ligature) means something else between `$`s. Unclosed math runs to the
    end, as TeX reads it."""
    if "$" not in latex and "\\(" not in latex and "\\[" not in latex:
        return change(latex)
    out: list[str] = []
    pos, closing = 0, ""
    for m in _MATH_DELIMITER.finditer(latex):
        token = m.group()
        if not closing and token in _MATH_CLOSES:
            out.append(change(latex[pos : m.start()]))
            pos, closing = m.start(), _MATH_CLOSES[token]
        elif token == closing:
            out.append(latex[pos : m.end()])
            pos, closing = m.end(), ""
    rest = latex[pos:]
    out.append(rest if closing else change(rest))
    return "".join(out)


def _logo(m: re.Match[str]) -> str:
    name = m.group(1)
    return _HOLOGO.get(name) or ("\\" + name + "{}" if name in _MACRO_TEXT else name)


def _single_quotes(m: re.Match[str]) -> str:
    if m.group(1) is None:
        return "\\textquoteleft{}"
    return "\\textquoteleft{}" + m.group(1) + "\\textquoteright{}"


def _quoted(latex: str) -> str:
    """`\\enquote{x}` -> `\\textquotedblleft{}x\\textquotedblright{}`, nested ones single, in
    one pass: each brace closes what it opened (a quote or a group)."""
    out: list[str] = []
    opened: list[bool] = []  # per open brace: whether a quote command opened it
    pos, quotes = 0, 0
    for m in _QUOTE_OR_BRACE.finditer(latex):
        out.append(latex[pos : m.start()])
        pos = m.end()
        token = m.group()
        if token == "{":
            opened.append(False)
            out.append(token)
        elif token == "}":
            if opened and opened.pop():
                quotes -= 1
                out.append("\\textquotedblright{}" if quotes % 2 == 0 else "\\textquoteright{}")
            else:
                out.append(token)
        else:
            opened.append(True)
            out.append("\\textquotedblleft{}" if quotes % 2 == 0 else "\\textquoteleft{}")
            quotes += 1
    out.append(latex[pos:])
    return "".join(out)


_QUOTE_OR_BRACE = re.compile(_QUOTE_COMMAND.pattern + r"|(?<!\\)[{}]")


def _path_url(m: re.Match[str]) -> str:
    return "\\url{" + (m.group(2) if m.group(3) is None else m.group(3)) + "}"


class _RecordText(KeepingText):
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

    def chars_node_to_text(self, node: Any, textcol: int = 0) -> str:
        return self.literal(super().chars_node_to_text(node, textcol))

    def specials_node_to_text(self, node: Any) -> str:
        if node.specials_chars == "&":  # an alignment tab to LaTeX, an ampersand in a title
            return "&"
        return self.literal(super().specials_node_to_text(node))

    def math_node_to_text(self, node: Any) -> str:
        source: str = node.latex_verbatim()
        end = node.pos + node.len
        after = node.parsing_state.s[end:].lstrip("{}")[:1]
        if node.delimiters[0] == "$" and after.isdigit():  # `$x$2` is not math in record text
            return "\\(" + source[1:-1] + "\\)"
        return source

    def macro_node_to_text(self, node: Any) -> str:
        args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
        name: str = node.macroname
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


def unknown_macro(name: str) -> bool:
    """Whether pylatexenc knows no macro `name` in any context bib reads with (its parser's,
    with record text's commands, and bib's LaTeX->text): then it takes no arguments and
    prints its name, which the fast decoder can say (`fastlatex.decode_common`). `\\begin`
    and `\\end` are its tokenizer's, not macros: they open and close an environment."""
    return (
        name not in ("begin", "end")
        and decoder().latex_context.get_macro_spec(name) is None
        and _walker_context().get_macro_spec(name) is None
    )


def from_latex(latex: str) -> str:
    """`from_latex_reference`, with the common values read by the fast decoder."""
    return _from_latex(latex, fast=True)


def from_latex_reference(latex: str) -> str:
    """`from_latex` with every value read by pylatexenc: the oracle of the fast decoder."""
    return _from_latex(latex, fast=False)


def _from_latex(latex: str, *, fast: bool) -> str:
    """A BibTeX value (title, abstract, note) -> record text that `to_latex` writes back as it
    was and `to_text` renders as it prints: accents, escapes and symbols become Unicode,
    grouping braces go, formatting commands, links and math stay markup.

    Literal characters that record text reads as markup are escaped only when they would be
    (`a*b*c`, not `BERT_base`), so that titles read from third-party files stay plain.
    """
    latex = prepare(latex)
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
    if hidden.count("%") != hidden.count("\\%"):  # else every `%` has a backslash before it
        hidden = _BARE_PERCENT.sub(r"\\%", hidden)
    if fast:
        common = _common_record_text(hidden, urls)
        if common is not None:
            text = clean(common.plain)
            if _STOP.search(text) is None:
                return text
            return _unambiguous(text, clean(common.escaped))
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


_MATH_ATOM = "[^$\\\\{}\ufffe\uffff]|\\\\[A-Za-z]+|\\\\[%&#_,;:!]"
"""What inline math the fast path reads is made of, besides groups of it one deep: a
character, a control word, a control symbol that sets a character or a space. Not a URL set
aside (`_PLACEHOLDER`): math is kept as written, and its URL would stay set aside."""
_STYLE_NAME = "(?:" + "|".join(sorted(_STYLE_COMMANDS, key=len, reverse=True)) + ")"
_CITE = r"\\cite(?:\n(?!\n)|[^\S\n])*\{(?P<keys>[^{}\\$]*)\}"
"""`\\cite{keys}`, the form without a star or optional arguments (which pylatexenc's parser
reads alike), with the space pylatexenc lets come between a command and its argument:
any, up to a paragraph break (two newlines: then `{keys}` is a group of its own)."""
_MARKUP_SPAN = re.compile(
    r"\$(?P<math>(?:" + _MATH_ATOM + r"|\{(?:" + _MATH_ATOM + r")*\})+)\$"
    r"|" + _CITE + r"|\\(?P<style>" + _STYLE_NAME + r")"
    r"\{(?P<argument>(?:[^{}$]|\\" + _STYLE_NAME + r"\{[^{}$]*\})*)\}"
    r"|\\url\{\ufffe(?P<url>\d+)\uffff\}"
)
"""What record text keeps as markup that the fast path reads: inline math of `_MATH_ATOM`s,
which (with every control word given its arguments as groups, `_argumentless`) ends at the
next `$` for pylatexenc too; a `\\cite{keys}` (the form
without a star or optional arguments, which pylatexenc's parser reads alike); a formatting
command (`\\emph{x}`, `\\textbf{57\\%}`) whose argument holds no group or math, kept around
the record text of its argument (the paper lists' abstracts bib writes are full of them),
formatting commands one deep inside it included (`\\textbf{\\emph{x} (y)}`); a
`\\url{...}` whose address `_from_latex` set aside, kept with its address as written."""
_CITATION = re.compile(_CITE)


def common_text(latex: str) -> str | None:
    """`fastlatex.decode_common` of plain text (`bibtex.to_unicode`), with a `\\cite{keys}`
    read too, as `citation_text` writes it for pylatexenc; None when the fast decoder cannot
    read a stretch between them. Speed trick: TeX Live's notes cite other entries, and one
    `\\cite` sent a note to pylatexenc (23 of the 73 values it read in 5,000 entries).
    Its oracle: `bibtex.to_unicode_reference`, tests/readers/test_fast_latex.py."""
    if "\\cite" not in latex:
        return decode_common(latex, unknown_macro)
    out: list[str] = []
    pos, depth = 0, 0
    for m in _CITATION.finditer(latex):
        found = decode_open(latex[pos : m.start()], unknown_macro, depth)
        if found is None:
            return None
        out += (found[0], citation_text(m.group("keys")))
        depth, pos = found[1], m.end()
    found = decode_open(latex[pos:], unknown_macro, depth)
    if found is None or found[1] != 0:
        return None
    return "".join(out) + found[0]


_DIGIT_NEXT = re.compile(r"[{}]*[0-9]")
_CONTROL_WORD = re.compile(r"\\([A-Za-z]+)")


def _argumentless(math: str) -> bool:
    """Whether every control word in `math` takes its arguments, if any, as the groups that
    follow it for pylatexenc's parser: one that takes one it is not given (`\\hat$`) may take
    the closing `$` as it, and the math runs on."""
    context = _walker_context()
    for m in _CONTROL_WORD.finditer(math):
        spec = context.get_macro_spec(m.group(1))
        wanted = "" if spec is None else getattr(spec.args_parser, "argspec", "")
        if wanted and (wanted.strip("{") or not _given(math, m.end(), len(wanted))):
            return False
    return True


def _given(math: str, pos: int, count: int) -> bool:
    """Whether `count` groups follow at `pos`, each closed before the next opens."""
    for _ in range(count):
        if not math.startswith("{", pos):
            return False
        pos = math.find("}", pos) + 1
    return True


class _CommonText(NamedTuple):
    plain: str
    """Record text before `clean` (`_RecordText` with `escape=False`)."""
    escaped: str
    """The same with the literal text escaped (`escape=True`); math is never escaped."""


def _common_record_text(latex: str, urls: Sequence[str] = ()) -> _CommonText | None:
    """What `_RecordText` writes of `latex` (its URLs set aside as `urls`), when the fast
    decoder reads every span between the markup of `_MARKUP_SPAN` (math kept as written, as
    `_RecordText.math_node_to_text` keeps it; a citation as `citation_text` writes it);
    None otherwise (pylatexenc then reads it). Speed trick: a long abstract with one
    `$\\pi$` took pylatexenc ~10 ms, a note with a `\\cite` ~1 ms. A value with a `\\$` is
    read whole (`\\\\$` opens math, `\\$` does not), as is any `$` left over between spans.
    Its oracle: `from_latex_reference`, tests/readers/test_fast_latex.py."""
    spans = [] if "\\$" in latex else list(_MARKUP_SPAN.finditer(latex))
    plain: list[str] = []
    escaped: list[str] = []
    pos, depth = 0, 0
    for m in [*spans, None]:
        end = len(latex) if m is None else m.start()
        found = decode_open(latex[pos:end], unknown_macro, depth) if end > pos else ("", depth)
        if found is None or (m is None and found[1] != 0):
            return None
        text, depth = found
        text = text.replace("\xa0", " ")
        plain.append(text)
        escaped.append(_RECORD_SPECIAL.sub(_record_escape, text))
        if m is None:
            break
        markup = _markup(latex, m, urls)
        if markup is None:
            return None
        plain.append(markup[0])
        escaped.append(markup[1])
        pos = m.end()
    return _CommonText("".join(plain), "".join(escaped))


def _markup(latex: str, m: re.Match[str], urls: Sequence[str]) -> tuple[str, str] | None:
    """The record text of one `_MARKUP_SPAN` match in `latex`, plain and escaped, or None
    (pylatexenc's); `urls`: the addresses set aside, by placeholder number."""
    url = m.group("url")
    if url is not None:
        kept = "\\url{" + urls[int(url)] + "}"
        return kept, kept
    style = m.group("style")
    if style is not None:  # its argument's spans are the formatting commands inside it
        inner = _common_record_text(m.group("argument"), urls)
        if inner is None:
            return None
        opened = "\\" + style + "{"
        return opened + inner.plain + "}", opened + inner.escaped + "}"
    math = m.group("math")
    if math is None:
        cited = citation_text(m.group("keys"))
        return cited, cited
    if "\\" in math and not _argumentless(math):
        return None
    if _DIGIT_NEXT.match(latex, m.end()):  # `$x$2` is not math in record text
        return "\\(" + math + "\\)", "\\(" + math + "\\)"
    return m.group(), m.group()


def _unambiguous(plain: str, escaped: str) -> str:
    """`plain` when record text reads it as `escaped` says, else `escaped`. Most values
    escape nothing (their markup characters are math's): then they are one text, and
    rendering both (pylatexenc on their math, twice each) is not needed."""
    if plain == escaped:
        return plain
    same = to_text(plain) == to_text(escaped) and to_latex(plain) == to_latex(escaped)
    return plain if same else escaped


def _record_escape(m: re.Match[str]) -> str:
    return _RECORD_ESCAPES[m.group()]
