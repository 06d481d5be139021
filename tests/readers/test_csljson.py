"""CSL-JSON input: arrays or one item, schema errors by item, types, dates, names."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schema
from bib.errors import BibError
from bib.readers import csljson as csljson_reader
from bib.record import Author, EntryType, LinkRole

ITEM = {
    "id": "doe2024",
    "type": "paper-conference",
    "title": "A Study",
    "author": [
        {"family": "Müller", "given": "Jörg", "non-dropping-particle": "von"},
        {"literal": "The ACME Team"},
    ],
    "container-title": "Proceedings of the 63rd Annual Meeting of the ACL",
    "issued": {"date-parts": [[2025, 7]]},
    "keyword": "alignment, judges",
    "note": "Read again",
    "page": "1-10",
    "custom": {"ranking": "5"},
}


def test_array_of_items_is_read(records):
    result = records("r.json", json.dumps([ITEM, {**ITEM, "id": "b", "title": "B"}]))
    assert [r.key for r in result] == ["doe2024", "b"]


def test_single_object_is_read(records):
    [record] = records("r.json", json.dumps(ITEM))
    assert record.title == "A Study"


def test_issued_date_parts_give_the_year(records):
    [record] = records("r.json", json.dumps(ITEM))
    assert record.year == 2025


def test_authors_family_given_particle_and_literal(records):
    [record] = records("r.json", json.dumps(ITEM))
    assert record.authors == (Author("von Müller", "Jörg"), Author(literal="The ACME Team"))


def test_keyword_string_becomes_tags_and_note_is_kept(records):
    [record] = records("r.json", json.dumps(ITEM))
    assert [t.label for t in record.tags] == ["alignment", "judges"]
    assert record.note == "Read again"


def test_known_variables_and_custom_go_into_fields(records):
    [record] = records("r.json", json.dumps(ITEM))
    assert dict(record.fields) == {"date": "2025-07", "pages": "1-10", "ranking": "5"}


@pytest.mark.parametrize(
    ("csl_type", "expected"),
    [
        ("paper-conference", EntryType.INPROCEEDINGS),
        ("article-journal", EntryType.ARTICLE),
        ("article", EntryType.PREPRINT),
        ("chapter", EntryType.INCOLLECTION),
        ("webpage", EntryType.ONLINE),
        ("software", EntryType.SOFTWARE),
        ("document", EntryType.MISC),
    ],
)
def test_types_are_mapped(records, csl_type, expected):
    [record] = records("r.json", json.dumps({**ITEM, "type": csl_type}))
    assert record.entry_type is expected


def test_schema_violation_names_the_item_and_its_line(records):
    bad = {**ITEM, "id": "bad", "issued": {"date-parts": "2024"}}
    text = json.dumps([ITEM, bad], indent=1)
    with pytest.raises(BibError, match=r"invalid CSL-JSON item 1 \(bad\): issued") as error:
        records("r.json", text)
    assert error.value.line == text.splitlines().index('  "id": "bad",') + 1


def test_unknown_key_is_a_schema_violation(records):
    with pytest.raises(BibError, match="item 0"):
        records("r.json", json.dumps([{**ITEM, "colour": "red"}]))


def test_invalid_json_names_the_line(records):
    with pytest.raises(BibError, match="not valid JSON") as error:
        records("r.json", '[\n {"id": "a",\n  "type": }\n]')
    assert error.value.line == 3


def test_empty_array_is_an_error(records):
    with pytest.raises(BibError, match="no CSL-JSON items"):
        records("r.json", "[]")


def test_own_derived_title_note_is_taken_back(records):
    note = "Title derived from the abstract by bib; not the published title. Code: https://github.com/a/b"
    [record] = records("r.json", json.dumps({**ITEM, "note": note}))
    assert (record.title_derived, record.note) == (True, "")
    assert record.urls(LinkRole.CODE) == ["https://github.com/a/b"]


def _values(*choices: object) -> st.SearchStrategy[object]:
    return st.sampled_from(choices)


_VARIABLES = {
    "id": _values("a", "b", 7),
    "type": _values("book", "book", "article-journal", "no-such-type", 3),
    "title": _values("A", "B", "C", 3, None),
    "issued": _values(
        {"date-parts": [[2020]]},
        {"date-parts": [[2021]]},
        {"date-parts": [[2020, 1]]},
        {"date-parts": [[2020, 1, 2, 3]]},
        {"date-parts": [["2020"]]},
        {"date-parts": [[True]]},
        {"date-parts": []},
        "2020",
    ),
    "author": _values(
        [{"family": "X"}],
        [{"family": "Y"}],
        [{"family": "X", "given": "Y"}],
        [{"family": 3}],
        [{"literal": None}],
        [],
        [{"family": "X"}, {"family": "Y"}],
    ),
    "page": _values("1-2", "3", 12, 1.5, True, ["1"]),
}


@st.composite
def _files(draw: st.DrawFn) -> list[dict[str, object]]:
    """Items over one set of variables (as a file bib wrote has), each value drawn anew."""
    names = ["id", "type", *draw(st.lists(st.sampled_from(list(_VARIABLES)[2:]), unique=True))]
    count = draw(st.integers(1, 8))
    return [{name: draw(_VARIABLES[name]) for name in names} for _ in range(count)]


@settings(max_examples=200, deadline=None)
@given(_files())
def test_validity_by_shape_agrees_with_jsonschema_on_every_item(items) -> None:
    """A file's items are checked once per shape (`_schema_error`); the oracle is jsonschema
    on each item alone, with the official schema."""
    oracle = jsonschema.Draft7Validator(schema.load("csl-data.json"))
    valid_shapes: set = set()
    for item in items:
        expected = next(iter(oracle.iter_errors([item])), None)
        found = csljson_reader._schema_error(item, valid_shapes)
        assert (found is None) == (expected is None), item
        if expected is not None:
            assert found.message == expected.message


def test_rereading_our_own_output_checks_each_shape_once(records, monkeypatch) -> None:
    """Items bib wrote share their shape: jsonschema runs once for many items, and an invalid
    item after them is still refused, by its index."""
    calls = []
    real = csljson_reader._validator()

    class Counting:
        def iter_errors(self, instance):
            calls.append(instance)
            return real.iter_errors(instance)

    monkeypatch.setattr(csljson_reader, "_validator", lambda: Counting())
    items = [{**ITEM, "id": f"k{i}", "title": f"T {i}"} for i in range(50)]
    assert len(records("r.json", json.dumps(items))) == 50
    assert len(calls) == 1
    bad = [*items, {**ITEM, "id": "bad", "issued": {"date-parts": [[2025, 7, 1, 1]]}}]
    with pytest.raises(BibError, match=r"invalid CSL-JSON item 50 \(bad\)"):
        records("r.json", json.dumps(bad))
