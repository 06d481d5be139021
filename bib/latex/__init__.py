"""Record text to LaTeX-safe BibTeX values, the same text to plain Unicode, and BibTeX values
back into record text.

Record text is Unicode that may carry markdown emphasis and links, inline math and a few
LaTeX formatting commands (paper lists copy them from abstracts). One parser reads it into
a small tree (`markup`); `to_latex` (`tolatex`) and `to_text` (`totext`) render that tree, so
the `.bib` and the CSL-JSON say the same thing; `from_latex` (`fromlatex`) reads a BibTeX
value back. The tables they share are data (`tables`). Whatever the parser does not
understand is a literal character: a LaTeX command outside the whitelist prints its own name
(`\\input` never runs), and a brace outside math or a whitelisted command's argument prints as
a brace (`\\textbraceleft{}`, never `\\{`, which BibTeX, biber and pybtex count as a real brace).

Import from here: the submodules are this package's inside. The one exception is
`bib.latex.markdown` (reading notes in markdown -> LaTeX), imported where notes are exported
so that markdown-it-py is not loaded by every conversion.
The rules are written down in docs/formats.md.
"""

from bib.latex.fromlatex import from_latex
from bib.latex.markup import (
    ASCII_FALLBACK,
    MAX_DEPTH,
    MAX_SPAN,
    Link,
    Logo,
    Math,
    Node,
    Styled,
    Text,
    clean,
    parse,
)
from bib.latex.tolatex import (
    Latex,
    ascii_table,
    escape,
    escape_clean,
    link,
    to_ascii,
    to_latex,
    url_value,
    verbatim_value,
)
from bib.latex.totext import MathTexts, decode, decoder, to_text

__all__ = [
    "ASCII_FALLBACK",
    "MAX_DEPTH",
    "MAX_SPAN",
    "Latex",
    "Link",
    "Logo",
    "Math",
    "MathTexts",
    "Node",
    "Styled",
    "Text",
    "ascii_table",
    "clean",
    "decode",
    "decoder",
    "escape",
    "escape_clean",
    "from_latex",
    "link",
    "parse",
    "to_ascii",
    "to_latex",
    "to_text",
    "url_value",
    "verbatim_value",
]
