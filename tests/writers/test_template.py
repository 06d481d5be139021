"""Entry templates: a record rendered before its key is known, then joined with the key."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib.errors import BibError
from bib.writers import FORMATS, Layout, layout, stream, template

from .test_properties import records, texts

keys = st.from_regex(r"[a-z][a-z0-9]{0,20}", fullmatch=True)


@pytest.mark.parametrize("fmt", FORMATS)
@given(title=texts, abstract=texts, family=texts, key=keys)
def test_a_template_joined_with_a_key_is_the_entry_written_with_that_key(
    fmt, title, abstract, family, key
):
    record = dataclasses.replace(records(title, abstract, family)[0], key=key)
    entries = list(stream([record], fmt))
    assert layout(fmt).first + key.join(template(record, fmt)) == entries[0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_templates_in_their_layout_are_the_whole_output(fmt, make_record):
    written = [make_record(key="a2026"), make_record(key="b2026", id="doi:10.1/b", doi="10.1/b")]
    pieces = layout(fmt).wrap(r.key.join(template(r, fmt)) for r in written)
    assert "".join(pieces) == "".join(stream(written, fmt))


def test_ascii_and_tag_kinds_reach_the_template(make_record):
    record = make_record(key="usmoe2026")
    cut = template(record, "bibtex", ascii=True, tag_kinds=())
    text = "usmoe2026".join(cut)
    assert text.isascii()
    assert "keywords" not in text


def test_a_template_cuts_the_entry_wherever_the_key_goes(make_record):
    """CSL-JSON names the key twice: as `id` and as `citation-key`."""
    record = make_record(key="usmoe2026")
    assert len(template(record, "csl-json")) == 3
    assert len(template(record, "bibtex")) == 2


def test_an_invalid_record_is_named_by_the_key_it_would_have_alone(make_record):
    """Its own key from a .bib here; a paper list's record has none yet."""
    with pytest.raises(BibError, match=r"record usmoe2026: invalid CSL-JSON at issued"):
        template(make_record(key="usmoe2026", year=True), "csl-json")


def test_an_unknown_format_has_no_template(make_record):
    with pytest.raises(BibError, match="unknown output format 'endnote'"):
        template(make_record(), "endnote")


def test_a_layout_without_entries_is_its_empty_text():
    assert "".join(Layout("[", ",", "]", "[]").wrap([])) == "[]"


def test_a_layout_puts_its_parts_around_and_between_entries():
    assert "".join(Layout("[", ",", "]", "[]").wrap(["a", "b"])) == "[a,b]"
