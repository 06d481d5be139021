"""BibTeX names split into First, von, Last and Jr (`names.name_parts`).

Oracle: bibtexparser 1.4's `splitname(name, strict_mode=False)`, which the reader used
before it had its own, over random names of words in both cases, brace groups, special
characters (`{\\"O}`), control sequences, ties, commas and non-ASCII letters.
"""

from __future__ import annotations

import bibtexparser.customization
from hypothesis import example, given
from hypothesis import strategies as st

from bib import variables
from bib.readers.names import NAME_LISTS, NameParts, name_parts, parse_name

_WORDS = st.sampled_from(
    ["Jane", "doe", "van", "Der", "de", "la", "Q.", "e.", "Jörg", "élan", "Öz", "ß", "山田", "-",
     "(John", "3rd", "Jr.", "'t", "ibn", "Ⅷ", "ǅ"]
)  # fmt: skip
_SPECIALS = st.sampled_from(
    ['{\\"O}', '{\\"o}', "{\\ss}", "{\\'E}tienne", "{\\relax Ch}ristine", "{\\v{s}}", "\\'e",
     "\\AA", "\\o", "M{\\\"u}ller", "{\\Lo}", "\\{", "\\}", "\\ ", "\\,", "{\\ 'e}", "{{\\'E}}"]
)  # fmt: skip
_GROUPS = st.recursive(
    _WORDS | _SPECIALS,
    lambda inner: st.lists(inner, max_size=3).map(lambda parts: "{" + " ".join(parts) + "}"),
    max_leaves=4,
)
_SEPARATORS = st.sampled_from([" ", " ", " ", "~", ", ", ",", "\t", "\n  ", " , ", "\xa0"])
_STRAYS = st.sampled_from(["{", "}", "\\", ""])


@st.composite
def _names(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(_WORDS | _SPECIALS | _GROUPS | _STRAYS, min_size=0, max_size=6))
    name = ""
    for piece in pieces:
        name += piece + draw(_SEPARATORS)
    return name if draw(st.booleans()) else name.strip()


def _oracle(name: str) -> NameParts | None:
    parts = bibtexparser.customization.splitname(name, strict_mode=False)
    if not parts:
        return None
    return NameParts(parts["first"], parts["von"], parts["last"], parts["jr"])


def _ends_in_escape(name: str) -> bool:
    """An odd run of backslashes at the end, which bibtexparser fails on (StopIteration)."""
    return (len(name) - len(name.rstrip("\\"))) % 2 == 1


@given(_names())
@example("Ludwig van Beethoven")
@example("van der Laan, Jr, Anna")
@example("{\\relax Ch}ristine de la Vallée")
@example("a, b, c, d")
@example(", Anna")
@example("Anna}} B{ob")
def test_a_name_is_split_as_bibtexparsers_splitname_splits_it(name: str) -> None:
    if _ends_in_escape(name):
        return
    assert name_parts(name) == _oracle(name)


@given(st.text(alphabet=" ~,{}\\aAé.\t", max_size=12))
def test_any_text_of_name_characters_is_split_as_bibtexparsers_splitname_splits_it(
    name: str,
) -> None:
    if _ends_in_escape(name):
        return
    assert name_parts(name) == _oracle(name)


def test_a_name_ending_in_a_backslash_keeps_it_as_a_character() -> None:
    assert name_parts("Anna Bar\\") == NameParts(["Anna"], [], ["Bar\\"], [])


def test_a_name_ending_in_a_backslash_is_read() -> None:
    author = parse_name("Foo Bar\\")
    assert (author.family, author.given) == ("Bar\\", "Foo")


def test_the_name_lists_are_biblatexs_and_every_csl_name_variable_but_author() -> None:
    biblatex = {"editor", "translator", "bookauthor", "collection-editor", "editora", "editorb"}
    assert biblatex | (variables.of_kind("name") - {"author"}) == NAME_LISTS
