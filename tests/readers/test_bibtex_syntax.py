"""The BibTeX tokenizer against BibTeX's rules and two independent parsers.

Oracles: bibtexparser 1.4 (pyparsing grammar) and pybtex (a port of BibTeX's scanner),
on generated entries; the forgiving rules are BibTeX's (`bibtex.web`: an undefined
macro is a warning and its name is used; a repeated field keeps the first; a repeated
entry key is an error for the second entry, the first is used).
"""

from __future__ import annotations

import re
import time

import bibtexparser
import pytest
from bibtexparser.bparser import BibTexParser
from hypothesis import given
from hypothesis import strategies as st
from pybtex.database import Person, parse_string

from bib.errors import BibError
from bib.readers import bibtex, bibtex_syntax, looks_like_text
from bib.readers.bibtex_syntax import parse

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789.,:;!?'()-/", min_size=1)
_TEXT = st.lists(_WORD, min_size=1, max_size=5).map(" ".join)
_BRACED = st.recursive(_TEXT, lambda inner: inner.map(lambda t: "{" + t + "}"), max_leaves=3)
_VALUE = st.lists(st.one_of(_TEXT, _BRACED), min_size=1, max_size=3).map(" ".join)
_NAMES = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8).filter(
    lambda name: name not in Person.valid_roles  # pybtex reads these as names, not fields
)
_KEYS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789:-_./+", min_size=1, max_size=12)


@st.composite
def _entries(draw: st.DrawFn) -> tuple[str, dict[str, dict[str, str]]]:
    count = draw(st.integers(1, 4))
    keys = draw(
        st.lists(
            _KEYS.filter(lambda k: k[0].isalpha()),
            min_size=count,
            max_size=count,
            unique_by=str.casefold,
        )
    )
    text, expected = [], {}
    for key in keys:
        names = draw(st.lists(_NAMES, min_size=1, max_size=4, unique=True))
        fields = {}
        parts = []
        for name in names:
            value = draw(_VALUE)
            quoted = draw(st.booleans())
            parts.append(f'{name} = "{value}"' if quoted else f"{name} = {{{value}}}")
            fields[name] = value
        text.append(
            f"@{draw(st.sampled_from(['article', 'Misc', 'BOOK']))}{{{key},\n  "
            + ",\n  ".join(parts)
            + "\n}\n"
        )
        expected[key] = fields
    return "\n".join(text), expected


@given(_entries())
def test_values_agree_with_bibtexparser(case):
    text, expected = case
    parser = BibTexParser(common_strings=True, ignore_nonstandard_types=False)
    parser.homogenize_fields = False
    oracle = {
        e["ID"]: {k: v for k, v in e.items() if k not in ("ID", "ENTRYTYPE")}
        for e in bibtexparser.loads(text, parser=parser).entries
    }
    ours = {e.key: e.values() for e in parse(text, "t.bib").entries}
    assert ours == oracle == expected


@given(_entries())
def test_keys_types_and_values_agree_with_pybtex(case):
    text, _ = case
    oracle = parse_string(text, "bibtex")
    ours = parse(text, "t.bib").entries
    assert [e.key for e in ours] == list(oracle.entries.keys())
    for entry in ours:
        theirs = oracle.entries[entry.key]
        assert entry.type == theirs.type.lower()
        assert {k: " ".join(v.split()) for k, v in entry.values().items()} == {
            k.lower(): " ".join(v.split()) for k, v in theirs.fields.items()
        }


@given(_entries())
def test_parsed_entries_agree_with_pybtex_in_file_order(case):
    text, _ = case
    oracle = parse_string(text, "bibtex")
    assert [e.key for e in parse(text, "t.bib").entries] == list(oracle.entries.keys())


def test_string_concatenation_and_months_expand():
    text = '@string{j = "Journal"}\n@article{k, journal = j # { of } # "X", month = jul}\n'
    [entry] = parse(text, "t.bib").entries
    assert entry.values() == {"journal": "Journal of X", "month": "July"}


def test_every_field_has_its_own_line():
    text = "@article{k,\n  title = {T},\n\n  year = 2020}\n"
    [entry] = parse(text, "t.bib").entries
    assert [(f.name, f.line) for f in entry.fields] == [("title", 2), ("year", 4)]


def test_undefined_string_warns_at_its_line_and_keeps_its_name():
    text = "@article{k,\n  journal = jnl}\n"
    document = parse(text, "t.bib")
    assert document.entries[0].values() == {"journal": "jnl"}
    assert document.problems == [
        bibtex_syntax.Problem("undefined @string 'jnl' (kept as its name)", 2)
    ]


def test_repeated_field_warns_and_the_first_wins():
    document = parse("@misc{k, title={A},\n title={B}}\n", "t.bib")
    assert document.entries[0].values() == {"title": "A"}
    assert document.problems[0].line == 2 and "repeated" in document.problems[0].message


def test_preamble_strings_and_comments_are_kept_for_writing_back():
    text = '@preamble{"\\newcommand{\\x}{y}"}\n@string{s = {S}}\n@comment{hello}\n@misc{k, a=s}\n'
    document = parse(text, "t.bib")
    assert document.preambles == [bibtex_syntax.Chunk("\\newcommand{\\x}{y}", 1)]
    assert document.strings == [bibtex_syntax.StringDef("s", "S", "{S}", 2)]
    assert document.comments == [bibtex_syntax.Chunk("hello", 3)]


def test_parenthesised_entries_parse():
    [entry] = parse("@misc(k, title = {A (b)})\n", "t.bib").entries
    assert (entry.key, entry.values()) == ("k", {"title": "A (b)"})


def test_string_bomb_stops_quickly_naming_its_line():
    lines = ["@string{s0 = {xxxxxxxxxx}}"]
    lines += [f"@string{{s{i + 1} = s{i} # s{i}}}" for i in range(40)]
    text = "\n".join(lines) + "\n@misc{k, title = s40}\n"
    started = time.perf_counter()
    with pytest.raises(BibError, match="longer than") as error:
        parse(text, "t.bib")
    assert error.value.line == 18
    assert time.perf_counter() - started < 5  # a bound, not a speed figure


def test_strict_read_turns_the_first_warning_into_an_error():
    with pytest.raises(BibError, match="undefined @string 'jnl'") as error:
        list(bibtex.read(b"@article{k,\n journal = jnl}\n", "t.bib", strict=True))
    assert error.value.line == 2


@pytest.mark.parametrize(
    "data",
    [b"PK\x03\x04rest", b"\xd0\xcf\x11\xe0\xa1\xb1", b"%PDF-1.7", b"ab\x00cd"],
    ids=["zip-office", "ole-office", "pdf", "nul"],
)
def test_binary_input_is_not_text(data):
    assert looks_like_text(data) is not None


def test_plain_bib_is_text():
    assert looks_like_text(b"@misc{k, title={T\xc3\xa9}}\n") is None


class _GeneralParser(bibtex_syntax._Parser):
    """The tokenizer without its one-match fast path: every field by the general path."""

    simple_field = re.compile("(?!)")  # matches nothing: every field takes the general path


_FIELD_VALUES = st.sampled_from(
    [
        "{plain}", '"quoted"', "{}", '""', "1990", "1990a", "{a {b} c}", '"a {"} b"', "jan",
        "jan # { 1}", '{x} # "y"', "undefined", "{a@b}", "{a\n@misc{k, }", "2001 # x",
        "{x} % comment\n", "{x}\n  # {y}", "x1", "{{A}: b}", "{a {b} c {d}}", "{a {b {c}} d}",
        '"J{\\"o}rg"', '"a {b"c} d"', '"{a}{b}"', "{\\textbf{57\\%} x}", "{a {b} c", '"a {b} c',
        "{a {@} b}", '"a } b"', "{a {b}\n@misc{k, }", '"x {y}" # z',
        "x", "X", "x # x", "x1x", "a@b", "x@", "\u0661\u0662", "JAN", "x%c\n", "x}", "x,",
    ]
)  # fmt: skip
_SPACES = st.sampled_from(["", " ", "\n  ", " % note\n ", "\t"])


@st.composite
def _fields_text(draw: st.DrawFn) -> str:
    names = draw(st.lists(st.sampled_from(["title", "year", "note", "Title"]), max_size=5))
    space = draw(_SPACES)
    body = "".join(
        f",{draw(_SPACES)}{name}{space}={draw(_SPACES)}{draw(_FIELD_VALUES)}{draw(_SPACES)}"
        for name in names
    )
    end = draw(st.sampled_from(["}", ",}", ""]))
    return "@string{x = {X}}\n@misc{k" + body + end + "\n@book{b, title = {T}}\n"


@given(_fields_text())
def test_the_one_match_field_path_reads_what_the_general_path_reads(text):
    general = _GeneralParser(text, "a.bib", None)
    general.doc.entries = list(general.run())
    fast = parse(text, "a.bib")
    assert fast.entries == general.doc.entries
    assert fast.problems == general.doc.problems
