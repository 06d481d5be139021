"""The tables record text and LaTeX are translated with: escapes, accents, symbols, style
commands, the math whitelist and TeX ligatures (data, not code)."""

from __future__ import annotations

import re

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
_LETTERS = {
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
}
"""The letter macros (`\\ss`, `\\o`, `\\l`, dotless `\\i`, ...): read in record text and
decoded from BibTeX alike."""
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
    **_LETTERS,
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
_MACRO_TEXT = {
    # logos: what they print, so that a title that is only `{\\MTeX}` keeps its text
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2e",
    "BibTeX": "BibTeX",
    "AmS": "AMS",
    "AMS": "AMS",
    "AmSTeX": "AMS-TeX",
    "AMSTeX": "AMS-TeX",
    "AmSLaTeX": "AMS-LaTeX",
    "AMSLaTeX": "AMS-LaTeX",
    "METAFONT": "METAFONT",
    "MF": "METAFONT",
    "MP": "MetaPost",
    "METAPOST": "MetaPost",
    "SliTeX": "SLiTeX",
    "SLiTeX": "SLiTeX",
    "eTeX": "e-TeX",
    "pdfTeX": "pdfTeX",
    "pdfLaTeX": "pdfLaTeX",
    "XeTeX": "XeTeX",
    "XeLaTeX": "XeLaTeX",
    "LuaTeX": "LuaTeX",
    "LuaLaTeX": "LuaLaTeX",
    "ConTeXt": "ConTeXt",
    "PiCTeX": "PiCTeX",
    "TUB": "TUGboat",
    "PS": "PostScript",
    "POSTSCRIPT": "PostScript",
    # symbols pylatexenc's default table lacks or deletes
    "copyright": "©",
    "textcopyright": "©",
    "S": "§",
    "textsection": "§",
    "P": "¶",
    "textparagraph": "¶",
    "pounds": "£",
    "textsterling": "£",
    "dag": "†",
    "ddag": "‡",
    "hyphen": "-",
    "slash": "/",
    "Dash": "\u2014",
    "emdash": "\u2014",
    "endash": "\u2013",
    "textemdash": "\u2014",
    "textendash": "\u2013",
    "textregistered": "®",
    "texttrademark": "™",
    "textdegree": "°",
    "ldots": "…",
    "dots": "…",
    "textellipsis": "…",
    "textquoteleft": "\u2018",
    "textquoteright": "\u2019",
    "textquotedblleft": "\u201c",
    "textquotedblright": "\u201d",
    "textbackslash": "\\",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textless": "<",
    "textgreater": ">",
    "textbar": "|",
    "textasciitilde": "~",
    "textasciicircum": "^",
    "textunderscore": "_",
    # letters
    **_LETTERS,
    "j": "ȷ",
    # commands that print nothing themselves: font switches (`{\\em x}`), spacing
    # controls, and the markup macros of TUGboat's bibliographies (`\\acro{TUG}`), whose
    # argument prints as it stands
    "relax": "",
    "protect": "",
    "unskip": "",
    "em": "",
    "it": "",
    "bf": "",
    "sl": "",
    "sf": "",
    "rm": "",
    "tt": "",
    "sc": "",
    "itshape": "",
    "bfseries": "",
    "scshape": "",
    "slshape": "",
    "upshape": "",
    "mdseries": "",
    "sffamily": "",
    "ttfamily": "",
    "rmfamily": "",
    "normalfont": "",
    "small": "",
    "acro": "",
    "pkg": "",
    "pgm": "",
    "booktitle": "",
    "file": "",
    "macro": "",
    "ssf": "",
    "t": "",  # the tie accent over two letters (`\\t{oo}`): the letters
    "/": "",
    "@": "",
    ",": " ",
    ";": " ",
}
"""Macros (and control symbols) without arguments -> the text they print, read by
pylatexenc's context and by the fast decoder alike (`bib.latex.fastlatex`). A macro in
neither this table nor pylatexenc's is kept as its name (`\\MTeX` -> `MTeX`): text is
never deleted."""

_HOLOGO = {"HanTheThanh": "H\u00e0n Th\u1ebf Th\u00e0nh"}
"""hologo.sty's logos that are no macro of `_MACRO_TEXT` (`\\hologo{pdfTeX}` is `\\pdfTeX`'s
text; a name in neither is its own text)."""

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

_MATH_OPERATORS = frozenset(
    "arccos arcsin arctan arg cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim "  # noqa: SIM905
    "liminf limsup ln log max min Pr sec sin sinh sup tan tanh".split()
)
"""The LaTeX kernel's operator names: TeX sets a thin space between one and an operand."""


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
_LIGATURES: tuple[tuple[str, str], ...] = (
    ("---", "\u2014"),
    ("--", "\u2013"),
    ("``", "\u201c"),
    ("''", "\u201d"),
)
_LIGATURES += (("!`", "\u00a1"), ("?`", "\u00bf"))
_LIGATURE_SHOWN = dict(_LIGATURES)
_LIGATURE = re.compile("|".join(re.escape(source) for source, _ in _LIGATURES))
