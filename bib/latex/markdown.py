"""Markdown (reading notes) -> LaTeX, for BibTeX `annote` and BibLaTeX `annotation`.

Notes are written in markdown. Annotated-bibliography styles (biblatex's `reading`,
`chicago-annote.bst`) typeset these fields as LaTeX, so emphasis, lists, links and code are
rendered, not flattened: each block becomes its LaTeX counterpart and blocks are separated
by `\\par`. markdown-it-py parses (CommonMark); text runs go through `to_latex`, so `$...$`
math and non-ASCII characters are written as in every other field.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from bib.latex.tolatex import Latex, escape, link, to_latex

PARAGRAPH = "\\par "
"""Between blocks and between notes: a paragraph break that is legal inside a field."""

_BLOCK_OPEN = {
    "bullet_list_open": "\\begin{itemize}",
    "bullet_list_close": "\\end{itemize} ",
    "ordered_list_open": "\\begin{enumerate}",
    "ordered_list_close": "\\end{enumerate} ",
    "blockquote_open": "\\begin{quote}",
    "blockquote_close": "\\end{quote} ",
    "list_item_open": "\\item ",
    "heading_open": "\\textbf{",
    "heading_close": "}" + PARAGRAPH,
}
_INLINE_MARK = {
    "em_open": "\\emph{",
    "em_close": "}",
    "strong_open": "\\textbf{",
    "strong_close": "}",
    "softbreak": " ",
    "hardbreak": "\\newline ",
}


@dataclass(frozen=True)
class _OpenLink:
    """A link whose text starts at `start` in the output; `bare` for an autolink `<url>`."""

    href: str
    start: int
    bare: bool


@dataclass
class _Out:
    """The LaTeX written so far, and the links whose text is still being collected."""

    parts: list[str] = field(default_factory=list)
    links: list[_OpenLink] = field(default_factory=list)


def notes_to_latex(notes: Iterable[str], *, ascii: bool = False) -> Latex:
    """Each markdown note as its own paragraph of LaTeX (empty notes are left out)."""
    parser = MarkdownIt("commonmark")
    rendered = (_render(parser.parse(note), ascii) for note in notes if note.strip())
    return Latex(PARAGRAPH.join(text for text in rendered if text))


def _render(tokens: Sequence[Token], ascii: bool) -> str:
    out = _Out()
    for token in tokens:
        kind = token.type
        if kind == "inline":
            _inline(token.children or (), ascii, out)
        elif kind == "paragraph_close":
            if not token.hidden:  # a tight list item's paragraph needs no break
                out.parts.append(PARAGRAPH)
        elif kind in ("fence", "code_block"):
            out.parts.append(_code_block(token.content, ascii))
        elif kind == "hr":
            out.parts.append("\\par\\noindent\\rule{\\linewidth}{0.4pt}" + PARAGRAPH)
        elif kind == "html_block":
            out.parts.append(escape(token.content.strip(), ascii=ascii) + PARAGRAPH)
        else:
            out.parts.append(_BLOCK_OPEN.get(kind, ""))
    text = "".join(out.parts).strip()
    while text.endswith(PARAGRAPH.strip()):
        text = text.removesuffix(PARAGRAPH.strip()).rstrip()
    return text


def _inline(tokens: Sequence[Token], ascii: bool, out: _Out) -> None:
    for token in tokens:
        kind = token.type
        if kind == "text":
            out.parts.append(_text(token.content, ascii))
        elif kind == "code_inline":
            out.parts.append("\\texttt{" + escape(token.content, ascii=ascii) + "}")
        elif kind == "link_open":
            href = str(token.attrGet("href") or "")
            out.links.append(_OpenLink(href, len(out.parts), token.markup == "autolink"))
        elif kind == "link_close" and out.links:
            _close_link(out)
        elif kind == "image":
            alt = escape(token.content, ascii=ascii)
            url = link(str(token.attrGet("src") or ""))
            out.parts.append(f"{alt} ({url})" if alt else url)
        elif kind == "html_inline":
            out.parts.append(escape(token.content, ascii=ascii))
        else:
            out.parts.append(_INLINE_MARK.get(kind, ""))


def _text(text: str, ascii: bool) -> str:
    """`to_latex` of a text run, keeping the spaces at its edges (it trims them)."""
    core = text.strip()
    if not core:
        return " " if text else ""
    before = " " if text[0].isspace() else ""
    after = " " if text[-1].isspace() else ""
    return before + to_latex(core, ascii=ascii) + after


def _close_link(out: _Out) -> None:
    """`[text](url)` -> `text (\\url{url})`; a bare `<url>` -> `\\url{url}`."""
    opened = out.links.pop()
    label = "".join(out.parts[opened.start :])
    del out.parts[opened.start :]
    url = link(opened.href)
    out.parts.append(url if opened.bare or not label else f"{label} ({url})")


def _code_block(code: str, ascii: bool) -> str:
    """Lines of monospace text; leading spaces kept as ties (verbatim cannot go in a field)."""
    lines = []
    for line in code.rstrip("\n").split("\n"):
        body = line.lstrip(" ")
        indent = "~" * (len(line) - len(body))
        lines.append("\\texttt{" + indent + escape(body, ascii=ascii) + "}")
    return "\\begin{quote}" + "\\newline ".join(lines) + "\\end{quote} "
