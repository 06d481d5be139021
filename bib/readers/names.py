"""Author names: as people type them in paper lists, and as BibTeX writes name lists.

BibTeX name lists (`author`, `editor`, `translator`, ...) are split on `and` outside braces
and each name into von/Last/Jr/First as BibTeX does (`name_parts`, which reads a name as
bibtexparser 1.4's `splitname` does, without importing bibtexparser and pyparsing: a fifth
of the start-up of reading a `.bib`); `others` is et al. (`ET_AL`). Name lists other than
`author` are kept in Record.fields in one canonical Unicode form (`format_names`), which
every writer reads back with `parse_names`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

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


NAME_LISTS = frozenset(
    {"editor", "translator", "bookauthor", "collection-editor", "editora", "editorb"}
    | {"chair", "compiler", "composer", "container-author", "contributor", "curator"}
    | {"director", "editorial-director", "executive-producer", "guest", "host", "illustrator"}
    | {"interviewer", "narrator", "organizer", "original-author", "performer", "producer"}
    | {"recipient", "reviewed-author", "script-writer", "series-creator"}
)
"""Record.fields that hold BibTeX name lists besides `author`: biblatex's, and every CSL
name variable kept under its CSL name (`director`, `recipient`, ...; the official schema's,
`variables.of_kind("name")`, which tests/readers/test_names.py holds this to: written out
so that reading a `.bib` does not load and scan the schema). A set: the reader asks about
every further field of every entry (a tuple of 28 was a scan each time)."""

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
    stripped = name.strip()
    if "\\" in stripped:
        stripped = _SPACED_ACCENT.sub(r"{\\\1{\2}}", stripped)
    if stripped == "others":
        return ET_AL
    if stripped.startswith("{") and stripped.endswith("}") and _balanced(stripped[1:-1]):
        return Author(literal=decode(stripped[1:-1]))
    parts = name_parts(stripped)
    if parts is None:  # a name of ties and spaces only (`~`): no part
        return Author()
    return Author(
        family=decode(" ".join(parts.von + parts.last)),
        given=decode(" ".join(parts.first)),
        suffix=decode(" ".join(parts.jr)),
    )


class NameParts(NamedTuple):
    """A BibTeX name's four parts, each a list of its words (`name_parts`)."""

    first: list[str]
    von: list[str]
    last: list[str]
    jr: list[str]


_SPACE = " ~\r\n\t"
"""What separates the words of a BibTeX name (a tie, `~`, is a space there)."""
_PLAIN_WORD = re.compile(f"[^{_SPACE},]+|,")
_UPPER, _LOWER, _CASELESS = 1, 0, -1


def name_parts(name: str) -> NameParts | None:
    """`First von Last`, `von Last, First` or `von Last, Jr, First` into its parts, as
    BibTeX's rules ("Tame the BeaST", section 11) read them and bibtexparser 1.4's
    `splitname(name, strict_mode=False)` implements them (tests/readers/test_names.py holds
    it as the oracle, quirks included): a word's case is that of its first letter outside
    braces, or of the first letter of a special character `{\\...}` at its start; First is
    the words before the first lower-case word, von runs to the last lower-case one, and
    Last is never empty unless the name starts with a comma. A third comma and more join
    First; an unmatched `}` is given a `{` at its word's start, an unclosed `{` its `}` at
    the end; a trailing backslash is a character of its word (bibtexparser fails on it).
    None for a name without words."""
    if "{" in name or "}" in name or "\\" in name:
        sections, cases = _braced_sections(name)
    else:
        sections, cases = _plain_sections(name), None
    if not sections[-1]:
        sections.pop()  # a trailing comma
    if not any(sections):
        return None
    if len(sections) == 1:
        return _first_von_last(sections[0], cases[0] if cases else None)
    first = sections[-1]
    jr = sections[-2] if len(sections) == 3 else []
    von, last = _von_last(sections[0], cases[0] if cases else None)
    return NameParts(first, von, last, jr)


def _plain_sections(name: str) -> list[list[str]]:
    """The words of each comma-separated section of a name without braces or backslashes."""
    if "," not in name:
        return [_PLAIN_WORD.findall(name)]
    sections: list[list[str]] = [[]]
    for word in _PLAIN_WORD.findall(name):
        if word != ",":
            sections[-1].append(word)
        elif len(sections) < 3:
            sections.append([])
    return sections


def _first_von_last(words: list[str], cases: list[int] | None) -> NameParts:
    if len(words) < 3:
        return NameParts(words[:-1], [], words[-1:], [])
    if cases is None:
        cases = [_plain_case(word) for word in words]
    if _LOWER not in cases:
        return NameParts(words[:-1], [], words[-1:], [])
    start = cases.index(_LOWER)
    end = len(cases) - cases[::-1].index(_LOWER)  # after the last lower-case word
    if end == len(words):
        end -= 1  # Last is never empty
    return NameParts(words[:start], words[start:end], words[end:], [])


def _von_last(words: list[str], cases: list[int] | None) -> tuple[list[str], list[str]]:
    if len(words) == 1:
        return [], words
    if cases is None:
        cases = [_plain_case(word) for word in words]
    if _LOWER not in cases:
        return [], words
    split = len(cases) - cases[::-1].index(_LOWER)
    if split == len(words):
        split = 0  # Last is never empty
    return words[:split], words[split:]


def _plain_case(word: str) -> int:
    """The case of a word without braces or backslashes: that of its first letter."""
    for char in word:
        if char.isalpha():
            return _UPPER if char.isupper() else _LOWER
    return _CASELESS


def _braced_sections(name: str) -> tuple[list[list[str]], list[list[int]]]:
    """The words of each section and their cases, read a character at a time: braces
    group (a word ends only outside them), `\\x` escapes, and `{\\...}` at brace level
    one is a special character whose first letter after the control sequence has a case."""
    sections: list[list[str]] = [[]]
    cases: list[list[int]] = [[]]
    word: list[str] = []
    case = _CASELESS
    level = 0
    brace_start = control = special = False
    index, end = 0, len(name)
    while index < end:
        char = name[index]
        index += 1
        if char == "\\" and index < end:
            escaped = name[index]
            index += 1
            if escaped in _SPACE:
                word.append(char)  # BibTeX escapes no space: the space ends the word
                char = escaped
            else:
                if brace_start:
                    brace_start = False
                    control = escaped.isalpha()
                    special = True
                elif case == _CASELESS and escaped.isalpha():
                    case = _UPPER if escaped.isupper() else _LOWER
                word.append(char)
                word.append(escaped)
                continue
        if char == "{":
            level += 1
            word.append(char)
            brace_start, control, special = True, False, False
            continue
        brace_start = False
        if char == "}":
            if level:
                level -= 1
            else:
                word.insert(0, "{")
            control = special = False
            word.append(char)
            continue
        if level:
            if control:
                control = char.isalpha()
            elif special and case == _CASELESS and char.isalpha():
                case = _UPPER if char.isupper() else _LOWER
            word.append(char)
            continue
        if char == "," or char in _SPACE:
            if word:
                sections[-1].append("".join(word))
                cases[-1].append(case)
                word, case = [], _CASELESS
                control = special = False
            if char == "," and len(sections) < 3:
                sections.append([])
                cases.append([])
            continue
        word.append(char)
        if case == _CASELESS and char.isalpha():
            case = _UPPER if char.isupper() else _LOWER
    if level:
        word.append("}" * level)
    if word:
        sections[-1].append("".join(word))
        cases[-1].append(case)
    return sections, cases


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


class Particles(NamedTuple):
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
