"""A paper list cut into parts (`paperlist.split`) and parsed part by part (`paperlist.parse`)
gives what `paperlist.read` gives for the whole list: the same records, or the same error."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bib.errors import BibError
from bib.readers import paperlist
from bib.record import Record

HEADERS = ["ICML 2026 Papers\n", "# NeurIPS 2025 accepted papers\n", "\ufeffICML 2026\n", ""]
LINES = [
    "We propose FairJudge, an adaptive judge.",
    "It works well on $6\\times$ more data.",
    "## 1. Discrete Tilt Matching",
    "## ",
    "Title: Another Paper",
    "title\uff1a A third",
    "Authors: Jane Doe; van Beethoven, Ludwig",
    "URL: https://arxiv.org/abs/2501.01234",
    "[12] Numbered entry text.",
    "3) numbered too",
    "\u0663. an Arabic-Indic digit",
    "   indented line",
    "\u3000",  # blank to str.strip, not to bytes.strip
    "\xa0",
    "  \t",
    "",
    "old\rmac\rline ends",
    "caf\xe9 na\u00efve",
]
ENDS = ["\n", "\r\n"]


@st.composite
def lists(draw: st.DrawFn) -> bytes:
    header = draw(st.sampled_from(HEADERS))
    lines = draw(st.lists(st.sampled_from(LINES), max_size=40))
    end = draw(st.sampled_from(ENDS))
    data = (header + "\n" if header else "") + end.join(lines) + draw(st.sampled_from(["", end]))
    raw = data.encode("utf-8")
    if draw(st.booleans()) and raw:  # a byte that is not UTF-8, somewhere
        at = draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] + b"\xff" + raw[at:]
    return raw


def _outcome(make: object) -> list[Record] | str:
    try:
        return list(make())  # type: ignore[operator]
    except BibError as error:
        return str(error)


def _parts(data: bytes, size: int) -> list[Record]:
    listing, parts = paperlist.split(data, "l.txt", venue="ICML", year=2026, size=size)
    return [record for part in parts for record in paperlist.parse(part, listing)]


@settings(max_examples=300, deadline=None)
@given(lists(), st.integers(1, 4))
def test_a_list_parsed_part_by_part_is_the_list_read_whole(data: bytes, size: int) -> None:
    whole = _outcome(lambda: paperlist.read(data, "l.txt", venue="ICML", year=2026))
    assert _outcome(lambda: _parts(data, size)) == whole


def test_a_long_list_is_cut_into_parts_of_about_the_size_asked() -> None:
    data = "ICML 2026 Papers\n\n" + "".join(f"We propose Net{i}.\n\n" for i in range(10))
    listing, parts = paperlist.split(data.encode(), "l.txt", size=3)
    # three paragraphs a part, the header one of the first part's
    assert [part.data.count(b"We propose") for part in parts] == [2, 3, 3, 2]
    assert listing.header


def test_a_list_of_title_markers_is_cut_only_before_a_marker() -> None:
    entry = "## A title\n\nFirst paragraph.\n\nSecond paragraph.\n\n"
    listing, parts = paperlist.split(("ICML 2026\n\n" + entry * 4).encode(), "l.txt", size=1)
    assert all(part.data.lstrip().startswith(b"## A title") for part in list(parts)[1:])
    assert listing.uses_markers


def test_entries_after_old_mac_line_ends_keep_their_line_numbers_in_later_parts() -> None:
    data = b"ICML 2026\n\nOne.\rStill one.\n\nTwo.\n\nThree.\n\nFour.\n"
    listing, parts = paperlist.split(data, "l.txt", size=1)
    lines = [r.source.line for part in parts for r in paperlist.parse(part, listing)]  # type: ignore[union-attr]
    assert lines == [r.source.line for r in paperlist.read(data, "l.txt")] == [3, 6, 8, 10]  # type: ignore[union-attr]


def test_a_bad_byte_after_an_empty_entry_is_the_error_whole_and_in_parts() -> None:
    """Regression (found by the property above): read whole, the bad byte of line 6 was
    met while looking ahead for the end of the empty entry of line 3, so it won; read in
    parts cut before line 5, the empty entry's error won. The encoding is now checked
    before any entry, so both give the bad byte."""
    data = b"ICML 2026 Papers\n\nAuthors: Jane Doe\n\nTitle: Another Paper\n\xffWe propose X.\n"
    whole = _outcome(lambda: paperlist.read(data, "l.txt"))
    assert whole == "l.txt:6: not UTF-8: byte 0xff at column 1"
    assert _outcome(lambda: _parts(data, 1)) == whole


def test_a_bad_byte_anywhere_is_reported_before_an_earlier_entrys_error() -> None:
    data = b"ICML 2026\n\nAuthors: Jane Doe\n\n" + b"We propose X.\n\n" * 50 + b"caf\xe9\n"
    assert _outcome(lambda: paperlist.read(data, "l.txt")) == (
        "l.txt:105: not UTF-8: byte 0xe9 at column 4"
    )
