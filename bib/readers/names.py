"""Author names: as people type them in paper lists, and as BibTeX writes name lists.

BibTeX name lists (`author`, `editor`, `translator`, ...) are split on `and` outside braces
and each name into von/Last/Jr/First as BibTeX does (bibtexparser's `splitname`); `others`
is et al. (`ET_AL`). Name lists other than `author` are kept in Record.fields in one
canonical Unicode form (`format_names`), which every writer reads back with `parse_names`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import bibtexparser.customization

from bib import variables
from bib.record import ET_AL, Author

_PARTICLES = frozenset(
    "van von der den de del della di da dos das du la le ter ten zu bin ibn al el".split()  # noqa: SIM905
)
_SEPARATORS = re.compile(r"\s*;\s*|\s+and\s+|\s*&\s*", re.IGNORECASE)
_LATIN = re.compile(r"[A-Za-zÀ-ɏ]")


def split_name(name: str) -> Author:
    """`Jane Q. Doe` -> Doe / Jane Q.; `Doe, Jane` -> Doe / Jane; `Ludwig van Beethoven`
    -> van Beethoven / Ludwig; a name without Latin letters or without spaces stays literal."""
    name = " ".join(name.split()).strip(" ,")
    if not name:
        return Author()
    if "," in name:
        family, _, given = name.partition(",")
        return Author(family=family.strip(), given=given.strip())
    words = name.split(" ")
    if len(words) == 1 or not _LATIN.search(name):
        return Author(literal=name)
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _PARTICLES:
        start -= 1
    return Author(family=" ".join(words[start:]), given=" ".join(words[:start]))


def split_authors(line: str) -> tuple[Author, ...]:
    """Split an `Authors:` line on `;`, ` and ` or `,`.

    With `;` present, commas are read as `Family, Given` inside each name.
    """
    line = line.strip()
    if not line:
        return ()
    parts = _SEPARATORS.split(line)
    if ";" not in line:
        parts = [p for part in parts for p in part.split(",")]
    return tuple(a for a in (split_name(p) for p in parts) if a.display)


NAME_LISTS = (
    "editor",
    "translator",
    "bookauthor",
    "collection-editor",
    "editora",
    "editorb",
    *sorted(variables.of_kind("name") - {"author", "editor", "translator", "collection-editor"}),
)
"""Record.fields that hold BibTeX name lists besides `author`: biblatex's, and every CSL
name variable kept under its CSL name (`director`, `recipient`, ...)."""

_AND = re.compile(r"[{}]|\s+and\s+", re.IGNORECASE)
_SPACED_ACCENT = re.compile(r"\\([`'^\"~=.uvHtcdbkr])\s+([A-Za-z]|\\[ij]\b)")
"""`\\H o`: an accent macro whose argument follows a space, which `splitname` would cut."""
_NEEDS_BRACES = re.compile(r",|(?:^|\s)(?:and|others)(?:\s|$)|[{}]", re.IGNORECASE)


def split_names(value: str) -> list[str]:
    """A BibTeX name list split on ` and ` outside braces."""
    names, depth, last = [], 0, 0
    for match in _AND.finditer(value):
        token = match.group(0)
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif depth == 0:
            names.append(value[last : match.start()])
            last = match.end()
    names.append(value[last:])
    return [n.strip() for n in names if n.strip()]


def unbrace(part: str) -> str:
    """A name part of the canonical form (`format_names`) without the braces that protect
    it (`{Beloit College, USA}` -> `Beloit College, USA`): the default `decode`."""
    if part.startswith("{") and part.endswith("}") and _balanced(part[1:-1]):
        return part[1:-1]
    return part


def parse_name(name: str, decode: Callable[[str], str] = unbrace) -> Author:
    """One BibTeX name into family (with its von part), given and suffix; `{Org Name}` is
    literal; `others` is `ET_AL`. `decode` turns each part's LaTeX into Unicode."""
    stripped = _SPACED_ACCENT.sub(r"{\\\1{\2}}", name.strip())
    if stripped == "others":
        return ET_AL
    if stripped.startswith("{") and stripped.endswith("}") and _balanced(stripped[1:-1]):
        return Author(literal=decode(stripped[1:-1]))
    try:
        parts = bibtexparser.customization.splitname(stripped, strict_mode=False)
    except bibtexparser.customization.InvalidName:
        return Author(literal=decode(stripped))
    if not parts:  # a name of ties and spaces only (`~`): bibtexparser finds no part
        return Author()
    family = " ".join(parts["von"] + parts["last"])
    return Author(
        family=decode(family),
        given=decode(" ".join(parts["first"])),
        suffix=decode(" ".join(parts["jr"])),
    )


def parse_names(value: str, decode: Callable[[str], str] = unbrace) -> tuple[Author, ...]:
    return tuple(a for a in (parse_name(n, decode) for n in split_names(value)) if a.display)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            return False
    return depth == 0


def format_name(author: Author) -> str:
    """An Author in BibTeX's name syntax, in Unicode: `Family, Jr, Given`, `{Literal}`."""
    if author == ET_AL:
        return "others"
    if author.literal or not author.family:
        return "{" + (author.literal or author.given) + "}"
    parts = [_braced(author.family)]
    if author.suffix:
        parts.append(_braced(author.suffix))
    if author.given or author.suffix:
        parts.append(_braced(author.given))
    return ", ".join(parts)


def _braced(part: str) -> str:
    return "{" + part + "}" if _NEEDS_BRACES.search(part) else part


def format_names(authors: Iterable[Author]) -> str:
    return " and ".join(format_name(a) for a in authors)


@dataclass(frozen=True, slots=True)
class Particles:
    """A personal name with its particles apart, as CSL names them."""

    family: str
    given: str
    non_dropping: str = ""
    dropping: str = ""


def particles(family: str, given: str) -> Particles | None:
    """The particles an Author holds in place: BibTeX's von part at the start of `family`
    (its words from the first to the last one that starts in lower case, never the last
    word: `van der Laan`, `de V. Smit`) is the non-dropping particle, and lower-case words
    at the end of `given` (`Klaus-Valtin von`, where the CSL reader puts a dropping particle)
    are the dropping one. citeproc-js reads a name the same way (its `parse-names`), and the
    CSL reader puts them back where they came from, so both kinds survive a round trip.
    None for a name without particles (most names: told apart without splitting)."""
    last = given.rfind(" ")
    if " " not in family and (last < 0 or not _lower(given[last + 1 :])):
        return None  # one family word and no lower-case word after the given name
    words = family.split()
    von = 0
    if words and _lower(words[0]):
        von = max((i for i, word in enumerate(words[:-1], 1) if _lower(word)), default=0)
    rest = given.split()
    kept = len(rest)
    while kept > 1 and _lower(rest[kept - 1]) and not rest[kept - 1].endswith("."):
        kept -= 1  # an initial (`e. e.`) is part of the given name, never a particle
    if not von and kept == len(rest):
        return None
    return Particles(
        family=" ".join(words[von:]) if von else family,
        given=" ".join(rest[:kept]) if kept < len(rest) else given,
        non_dropping=" ".join(words[:von]),
        dropping=" ".join(rest[kept:]),
    )


def _lower(word: str) -> bool:
    """BibTeX's case of a word: that of its first letter (none: not lower case)."""
    if word[:1].isalpha():
        return word[0].islower()
    letter = next((char for char in word if char.isalpha()), "")
    return letter.islower()
