"""bib.writers.csljson: mapping to CSL variables and validation against the official schema."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft7Validator

import schema
from bib.errors import BibError
from bib.record import Author, EntryType, Link, LinkRole
from bib.writers import DERIVED_TITLE_NOTE, csljson, render


def test_items_validate_against_the_official_schema(nasty_records) -> None:
    validator = csljson.validator()
    for record in nasty_records:
        assert list(validator.iter_errors(csljson.item(record))) == []


def test_paper_conference_item_has_the_agreed_variables(record) -> None:
    out = csljson.item(record)
    assert out["id"] == out["citation-key"] == "usmoe2026"
    assert out["type"] == "paper-conference"
    assert out["title"] == "USMoE: Unified Sparse Mixture of Experts"
    assert out["container-title"] == record.container_title
    assert out["event-title"] == record.event_title
    assert out["publisher"] == "PMLR"
    assert out["issued"] == {"date-parts": [[2026]]}
    assert out["URL"] == "https://openreview.net/forum?id=abc"
    assert out["DOI"] == "10.5555/usmoe"
    assert out["keyword"] == "mixture of experts, USMoE"
    assert out["author"] == [
        {"family": "Müller", "given": "Jürgen"},
        {"family": "Nguyen", "given": "Thi Minh"},
    ]


def test_abstract_is_plain_unicode_with_math_rendered(record) -> None:
    abstract = csljson.item(record)["abstract"]
    assert abstract == "We introduce Unified Sparse Mixture of Experts (USMoE), 6× faster."  # noqa: RUF001


def test_note_marks_derived_title_and_lists_code_link(record) -> None:
    assert csljson.item(record)["note"] == (
        f"{DERIVED_TITLE_NOTE} Code: https://github.com/lab/usmoe"
    )


def test_literal_author_stays_literal(make_record) -> None:
    out = csljson.item(make_record(authors=(Author(literal="OpenAI"),)))
    assert out["author"] == [{"literal": "OpenAI"}]


@pytest.mark.parametrize(
    ("kind", "csl_type"),
    [
        (EntryType.ARTICLE, "article-journal"),
        (EntryType.PREPRINT, "article"),
        (EntryType.BOOK, "book"),
        (EntryType.INCOLLECTION, "chapter"),
        (EntryType.THESIS, "thesis"),
        (EntryType.REPORT, "report"),
        (EntryType.MISC, "document"),
    ],
)
def test_entry_types_map_to_csl_types(make_record, kind, csl_type) -> None:
    assert csljson.item(make_record(entry_type=kind))["type"] == csl_type


def test_preprint_carries_arxiv_number(make_record) -> None:
    out = csljson.item(make_record(entry_type=EntryType.PREPRINT, publisher=""))
    assert (out["number"], out["publisher"]) == ("arXiv:2601.01234", "arXiv")


def test_known_fields_map_to_csl_variables(make_record) -> None:
    record = make_record(
        entry_type=EntryType.ARTICLE,
        fields=(("volume", "3"), ("number", "2"), ("pages", "1--9"), ("address", "Paris")),
    )
    out = csljson.item(record)
    assert (out["volume"], out["issue"], out["page"], out["publisher-place"]) == (
        "3",
        "2",
        "1--9",
        "Paris",
    )


def test_editor_field_becomes_names(make_record) -> None:
    out = csljson.item(make_record(fields=(("editor", "Doe, Jane and John Smith"),)))
    assert out["editor"] == [
        {"family": "Doe", "given": "Jane"},
        {"family": "Smith", "given": "John"},
    ]


def test_unknown_fields_go_to_custom(make_record) -> None:
    out = csljson.item(make_record(fields=(("ranking", "A*"), ("readstatus", "read"))))
    assert out["custom"] == {"ranking": "A*", "readstatus": "read", "arxiv": "2601.01234"}


def test_invalid_item_is_an_error_naming_the_record() -> None:
    with pytest.raises(BibError, match=r"record broken.*issued"):
        csljson.dumps([{"id": "broken", "type": "book", "issued": {"date-parts": "2026"}}])


def test_unknown_variable_is_an_error() -> None:
    with pytest.raises(BibError, match="record x"):
        csljson.dumps([{"id": "x", "type": "book", "code": "https://github.com/a/b"}])


def test_unknown_type_is_an_error() -> None:
    with pytest.raises(BibError, match="record x"):
        csljson.dumps([{"id": "x", "type": "inproceedings"}])


def test_invalid_item_is_refused_even_after_a_valid_one_of_the_same_keys() -> None:
    csljson.dumps([{"id": "a", "type": "book", "issued": {"date-parts": [[2026]]}}])
    with pytest.raises(BibError):
        csljson.dumps([{"id": "b", "type": "book", "issued": {"date-parts": [[2026, 1, 1, 1]]}}])


def test_schema_constrains_values_only_by_type_so_shape_caching_is_exact() -> None:
    """csljson caches validity by shape; that is exact only while this holds."""
    value_keywords = {"enum", "const", "pattern", "format", "minimum", "maximum",
                      "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
                      "maxLength", "uniqueItems", "contains", "propertyNames", "if", "not",
                      "dependencies", "patternProperties"}  # fmt: skip
    found = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("properties", "definitions"):
                    for name, sub in value.items():
                        walk(sub, f"{path}/{name}")
                elif key not in ("examples", "description", "title"):
                    if key in value_keywords:
                        found.append(f"{path}:{key}")
                    walk(value, path)
        elif isinstance(node, list):
            for sub in node:
                walk(sub, path)

    walk(schema.load("csl-data.json"), "")
    assert found == ["/type:enum"]


def test_dumps_matches_the_standard_json_encoder(nasty_records) -> None:
    items = [csljson.item(r) for r in nasty_records]
    assert csljson.dumps(items) == json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def test_json_output_is_utf8_text_with_trailing_newline(record) -> None:
    text = render([record], "csl-json")
    assert "Müller" in text and text.endswith("]\n")
    assert json.loads(text)[0]["id"] == "usmoe2026"


def test_items_are_ordered_by_key(make_record) -> None:
    text = render([make_record(key="zeta2026"), make_record(id="b", key="alpha2026")], "csl-json")
    assert [i["id"] for i in json.loads(text)] == ["alpha2026", "zeta2026"]


def test_code_url_is_the_url_without_paper_link(make_record) -> None:
    out = csljson.item(make_record(links=(Link("https://github.com/a/b", LinkRole.CODE),)))
    assert out["URL"] == "https://github.com/a/b"


def test_item_schema_is_a_valid_draft7_schema() -> None:
    """csljson.validator() trusts the shipped schema file; this checks it."""
    Draft7Validator.check_schema(csljson.item_schema())


def test_invalid_record_is_an_error_naming_it_after_valid_ones_of_the_same_keys(
    make_record,
) -> None:
    """A bool is no JSON number: same keys as a valid item, another shape, refused."""
    csljson.item(make_record(year=2026))
    with pytest.raises(BibError, match=r"record usmoe2026: invalid CSL-JSON at issued"):
        list(csljson.stream([make_record(year=True)]))
