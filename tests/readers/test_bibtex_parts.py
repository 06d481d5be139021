"""A long `.bib` read in parts (`bib.readers.bibtex_parts`) gives what the whole-file read
gives (`bibtex.read`, the oracle): the same records, warnings, lines and first error.

The parts are read here, one after the other (`parallel.ordered_map` replaced by `map`), and
made tiny, so that every entry is cut somewhere; `tests/convert/test_jobs_bib.py` sends them to
worker processes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib import parallel
from bib.errors import BibError
from bib.readers import bibtex, bibtex_parts
from bib.record import Record
from bib.testing import texlive_bibs

Outcome = tuple[list[Record] | None, list[str], str | None]


def _outcome(read: Callable[..., Iterator[Record]], text: str, strict: bool = False) -> Outcome:
    told: list[str] = []
    try:
        return list(read(text.encode(), "in.bib", report=told.append, strict=strict)), told, None
    except BibError as error:
        return None, told, str(error)


def _in_parts(text: str, strict: bool = False) -> Outcome:
    return _outcome(lambda *a, **k: bibtex_parts.read(*a, jobs=2, **k), text, strict)


def _whole(text: str, strict: bool = False) -> Outcome:
    return _outcome(bibtex.read, text, strict)


@pytest.fixture(autouse=True)
def tiny_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bibtex_parts, "AFTER", 0)
    monkeypatch.setattr(bibtex_parts, "PART", 30)
    monkeypatch.setattr(parallel, "ordered_map", lambda work, items, jobs: map(work, items))


def _entry(key: str, n: int, extra: str = "") -> str:
    return f"@article{{{key},\n  title = {{Title {n}}},\n  author = {{Ann Lee}},{extra}\n}}\n"


FRAGMENTS = st.one_of(
    st.builds(_entry, st.sampled_from(["a", "A", "b", "c"]), st.integers(0, 9)),
    st.builds(
        lambda k, n: _entry(k, n, "\n  journal = jn # { x},"),
        st.sampled_from("de"),
        st.integers(0, 9),
    ),
    st.builds(lambda k: _entry(k, 0, "\n  crossref = {a},"), st.sampled_from("fg")),
    st.builds(lambda n: f"@string{{jn = {{Journal {n}}}}}\n", st.integers(0, 2)),
    st.just('@preamble{"\\newcommand{\\x}{y}"}\n'),
    st.builds(lambda k: f"@article{{{k},\n  title = {{never closed\n", st.sampled_from("abc")),
    st.just("@misc{cut,\n  note = \n@book{h, title = {x}}\n"),
    st.just("@comment(\n@book{i, title = {in a comment}}\n)\n"),
    st.just("@comment{ @string{jn = {Fake}} }\n"),
    st.just("Mail me at ann@example.org.\n"),
    st.just("@article{bad key, title = x}\n"),
)


@given(st.lists(FRAGMENTS, max_size=12), st.integers(1, 80), st.booleans())
def test_parts_read_what_the_whole_file_reads(
    fragments: list[str], size: int, strict: bool
) -> None:
    text = "".join(fragments)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bibtex_parts, "PART", size)
        assert _in_parts(text, strict) == _whole(text, strict)


def test_cuts_start_at_lines_that_start_an_entry() -> None:
    text = "junk\n" + _entry("a", 1) + "  @book{b, title = {x}}\n" + _entry("c", 2)
    parts = bibtex_parts.cuts(text, 1)
    assert [text[p.start : p.start + 3] for p in parts] == ["jun", "@ar", "  @", "@ar"]
    assert [p.line for p in parts] == [1, 2, 6, 7]
    assert parts[-1].end == len(text)


def test_an_entry_that_runs_past_a_cut_is_read_from_where_it_ended() -> None:
    text = _entry("a", 1) + "@comment(\n@book{inside, title = {x}}\n)\n" + _entry("b", 2)
    records, told, error = _in_parts(text)
    assert error is None and told == []
    assert [r.key for r in records or []] == ["a", "b"]
    assert _in_parts(text) == _whole(text)


def test_a_value_that_swallows_the_next_entry_warns_at_the_same_line() -> None:
    text = _entry("a", 1) + "@misc{cut,\n  note = \n@book{h, title = {x}}\n" + _entry("b", 2)
    _, told, _ = _in_parts(text)
    assert any(line.startswith("warning: in.bib:7: skipped @misc 'cut'") for line in told), told
    assert _in_parts(text) == _whole(text)


def test_an_entry_that_does_not_parse_warns_with_its_file_and_line() -> None:
    text = _entry("a", 1) + "@article{broken,\n  title = {never closed\n" + _entry("b", 2)
    records, told, _ = _in_parts(text)
    assert told == ["warning: in.bib:5: skipped @article 'broken': unbalanced braces: never closed"]
    assert [r.key for r in records or []] == ["a", "b"]


def test_a_key_repeated_in_a_later_part_names_the_first_line() -> None:
    text = _entry("a", 1) + _entry("b", 2) + _entry("A", 3)
    records, told, _ = _in_parts(text)
    assert told == [
        "warning: in.bib:9: duplicate key 'A' (first at line 1): "
        "this entry is skipped, as BibTeX does"
    ]
    assert [r.key for r in records or []] == ["a", "b"]


def test_a_key_first_seen_in_an_entry_that_does_not_parse_is_not_taken() -> None:
    """The first pass presumes `b` is seen at line 5; the part after it must not believe it."""
    text = _entry("a", 1) + "@article{b,\n  title = {never closed\n" + _entry("b", 2)
    records, told, _ = _in_parts(text)
    assert [r.key for r in records or []] == ["a", "b"]
    assert len(told) == 1 and (records, told) == _whole(text)[:2]


def test_strings_of_later_parts_decide_which_references_stay() -> None:
    text = (
        "@string{jn = {Journal One}}\n"
        + _entry("a", 1, "\n  journal = jn,")
        + "@string{jn = {Journal Two}}\n"
        + _entry("b", 2, "\n  journal = jn,")
    )
    parts = _in_parts(text)
    assert parts == _whole(text)
    assert [r.container_title for r in parts[0] or []] == ["Journal One", "Journal Two"]


def test_preambles_go_with_the_first_record_even_from_a_later_part() -> None:
    text = _entry("a", 1) + '@preamble{"\\newcommand{\\x}{y}"}\n' + _entry("b", 2)
    records, _, _ = _in_parts(text)
    latex = [r.latex.preambles if r.latex else () for r in records or []]
    assert latex == [("\\newcommand{\\x}{y}",), ()]


def test_a_string_inside_a_comment_sends_the_file_to_the_whole_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    whole: list[str] = []
    monkeypatch.setattr(bibtex, "read", lambda data, *a, **k: whole.append("read") or iter(()))
    text = _entry("a", 1) + "@comment{ @string{jn = {Fake}} }\n" + _entry("b", 2)
    list(bibtex_parts.read(text.encode(), "in.bib", jobs=2))
    assert whole == ["read"]


def test_strict_raises_the_first_warning_of_the_file() -> None:
    text = _entry("a", 1) + _entry("a", 2) + "@article{broken,\n  title = {x\n" + _entry("b", 3)
    records, told, error = _in_parts(text, strict=True)
    assert (records, told) == (None, [])
    assert error == _whole(text, strict=True)[2]
    assert error is not None and error.startswith("in.bib:5: duplicate key 'a'")


def test_a_file_below_the_threshold_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bibtex_parts, "AFTER", 10_000)
    monkeypatch.setattr(bibtex_parts, "cuts", lambda *a: pytest.fail("cut"))
    assert _in_parts(_entry("a", 1)) == _whole(_entry("a", 1))


def _texlive_text(limit: int) -> str:
    texts = []
    for path in texlive_bibs():
        if path.stat().st_size < 40_000:
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except UnicodeDecodeError:
                continue
        if len(texts) == limit:
            break
    if not texts:
        pytest.skip("TeX Live's .bib files are not installed")
    return "\n".join(texts)


@pytest.mark.parametrize("size", [200, 5000])
def test_texlive_files_read_in_parts_as_whole(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    monkeypatch.setattr(bibtex_parts, "PART", size)
    text = _texlive_text(12)
    parts = _in_parts(text)
    assert parts[0] and parts == _whole(text)


def test_the_seen_keys_note_what_was_asked() -> None:
    seen = bibtex_parts._Seen({"a": (0, 1), "b": (50, 4)}, start=10)
    assert "a" in seen and seen["a"] == 1
    assert "b" not in seen
    seen["b"] = 9
    assert "b" in seen and seen["b"] == 9
    assert seen.asked == {"a": 1, "b": -1}


_KEY_AT_LINE_START = re.compile(
    r"^[ \t]*(@)[ \t]*([A-Za-z_][\w:.+-]*)[ \t]*(?:\{[ \t\n]*([^\s,}]*)|\([ \t\n]*([^\s,)]*))",
    re.MULTILINE,
)
"""The first pass's entry keys as one multi-line regex finds them (the oracle of `_keys`)."""


def _keys_by_one_regex(text: str) -> dict[str, tuple[int, int]]:
    keys: dict[str, tuple[int, int]] = {}
    for match in _KEY_AT_LINE_START.finditer(text):
        key = match[3] if match[3] is not None else match[4]
        if key and match[2].lower() not in {"string", "preamble", "comment"}:
            pos = match.start(1)
            keys.setdefault(key.casefold(), (pos, text.count("\n", 0, pos) + 1))
    return keys


KEY_PIECES = st.sampled_from(
    ["@a{", "@String(", " @ Ab ( ", "@", " ", "\t", "\n", "\n@b{", "k", "K", ",", "}", "x@c{"]
)
"""Pieces of text with entries at line starts and elsewhere, keys that run into the next
line's entry, and keys repeated in another case."""


@given(st.lists(KEY_PIECES))
def test_the_first_pass_finds_the_keys_a_multi_line_regex_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert bibtex_parts._keys(text) == _keys_by_one_regex(text)
