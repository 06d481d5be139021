"""The compiled CSL-JSON schema (`bib.writers.schemacheck`) says exactly what jsonschema
says, on generated items valid and invalid, and refuses schemas it cannot check."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib.writers import csljson, schemacheck

SCHEMA = csljson.item_schema()
PROPERTIES: dict[str, Any] = SCHEMA["properties"]

scalars = st.one_of(
    st.text(max_size=3),
    st.sampled_from(["book", "article-journal", "chapter", "Book", ""]),
    st.integers(-3, 3000),
    st.floats(allow_nan=False, max_value=1e6, min_value=-1e6),
    st.booleans(),
    st.none(),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["family", "given", "literal", "date-parts", "x"]), inner),
    ),
    max_leaves=8,
)
names = st.dictionaries(
    st.sampled_from(["family", "given", "literal", "suffix", "comma-suffix", "parse-names", "x"]),
    st.one_of(st.text(max_size=2), st.booleans(), st.integers(0, 2), st.none()),
)
dates = st.dictionaries(
    st.sampled_from(["date-parts", "season", "circa", "literal", "raw", "x"]),
    st.one_of(
        st.lists(
            st.lists(st.one_of(st.integers(0, 3000), st.text(max_size=2)), max_size=4), max_size=3
        ),
        scalars,
    ),
)


def value_for(name: str) -> st.SearchStrategy[Any]:
    """Mostly what the variable's schema expects (so that valid items are common), sometimes
    anything."""
    schema = PROPERTIES.get(name, {})
    if schema.get("type") == "array" and schema["items"].get("$ref", "").endswith("name-variable"):
        expected: st.SearchStrategy[Any] = st.lists(names, max_size=3)
    elif schema.get("$ref", "").endswith("date-variable"):
        expected = dates
    elif name == "type":
        expected = st.sampled_from(SCHEMA["properties"]["type"]["enum"])
    else:
        expected = scalars
    return st.one_of(expected, expected, expected, json_values)


variables = st.sampled_from([*PROPERTIES, "x-unknown", "Title"])
items = st.lists(variables, max_size=8, unique=True).flatmap(
    lambda keys: st.fixed_dictionaries({key: value_for(key) for key in keys})
)


@given(items, st.booleans(), st.booleans())
def test_compiled_schema_gives_jsonschemas_verdict_on_every_item(
    item: dict[str, Any], with_id: bool, with_type: bool
) -> None:
    check = schemacheck.compile_schema(SCHEMA)
    if with_id:
        item.setdefault("id", "a")
    if with_type:
        item.setdefault("type", "book")
    assert check(item) == csljson.validator().is_valid(item)


@given(json_values)
def test_compiled_schema_refuses_what_is_not_an_item_as_jsonschema_does(value: Any) -> None:
    assert schemacheck.compile_schema(SCHEMA)(value) == csljson.validator().is_valid(value)


def test_items_bib_writes_pass_the_compiled_schema(nasty_records) -> None:
    check = schemacheck.compile_schema(SCHEMA)
    for record in nasty_records:
        assert check(csljson.item(record))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^a"},
        {"type": "integer"},
        {"type": "array", "items": [{"type": "string"}]},
        {"$ref": "#/definitions/missing"},
        {"$ref": "#/definitions/loop", "definitions": {"loop": {"$ref": "#/definitions/loop"}}},
        {"enum": [1, 2]},
    ],
)
def test_a_schema_beyond_the_supported_keywords_is_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        schemacheck.compile_schema(schema)
