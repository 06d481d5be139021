"""Copies of records: every stage makes one of every record it changes."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib.record import Author, Record, Tag, TagKind, evolve

text = st.text(max_size=30)
records = st.builds(
    Record,
    id=text,
    key=text,
    title=text,
    authors=st.lists(st.builds(Author, text, text), max_size=2).map(tuple),
    tags=st.lists(st.builds(Tag, st.sampled_from(TagKind), text), max_size=2).map(tuple),
)


@given(records, text, st.booleans())
def test_evolve_makes_the_copy_dataclasses_replace_makes(
    record: Record, title: str, derived: bool
) -> None:
    assert evolve(record, title=title, title_derived=derived) == dataclasses.replace(
        record, title=title, title_derived=derived
    )


def test_evolve_refuses_a_name_that_is_no_field() -> None:
    with pytest.raises(TypeError, match="no field 'titel'"):
        evolve(Record(id="abs:1"), titel="x")
