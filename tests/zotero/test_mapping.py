"""Records and annotations become valid Zotero JSON (checked against the Zotero schema)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bib.record import Author, EntryType, Link, Record, Tag, TagKind
from bib.zotero import mapping
from tests.helpers import note_id_of

FIELDS = json.loads(
    (Path(__file__).parent / "data" / "zotero-item-fields.json").read_text(encoding="utf-8")
)["itemTypes"]
ALLOWED = {name: frozenset(spec["fields"]) for name, spec in FIELDS.items()}
META = {"itemType", "creators", "tags", "collections"}


class Everything(frozenset):
    """A field list that accepts any name, so that the mapping shows all it would send."""

    def __contains__(self, name: object) -> bool:
        return True


def full_record(entry_type: EntryType, **changes) -> Record:
    base = Record(
        id="r1",
        key="smith2026moe",
        entry_type=entry_type,
        title="Mixture of Experts",
        abstract="We route *tokens* with **linear programming** and `code`.",
        authors=(Author(family="Smith", given="Ada"), Author(literal="DeepMind Team")),
        venue="ICML",
        container_title="Proceedings of ICML",
        event_title="ICML 2026",
        publisher="PMLR",
        year=2026,
        links=(Link("https://example.org/paper"),),
        doi="10.1/abc",
        arxiv_id="2601.00001",
        tags=(Tag(TagKind.TOPIC, "mixture-of-experts"),),
        fields=(("volume", "235"), ("pages", "1--10"), ("number", "3"), ("address", "Vienna")),
    )
    return Record(**{**{f: getattr(base, f) for f in base.__slots__}, **changes})


@pytest.mark.parametrize(
    "entry_type", [EntryType.INPROCEEDINGS, EntryType.ARTICLE, EntryType.PREPRINT]
)
def test_every_mapped_field_exists_in_the_zotero_schema(entry_type):
    paper = mapping.Paper(full_record(entry_type, title_derived=True))
    everything = {t: Everything() for t in ALLOWED}  # nothing dropped: every name shows
    data = mapping.item_data(paper, allowed=everything, options=mapping.Options())
    unknown = set(data) - META - set(FIELDS[data["itemType"]]["fields"])
    assert unknown == set()
    assert {c["creatorType"] for c in data["creators"]} <= set(
        FIELDS[data["itemType"]]["creatorTypes"]
    )


def test_note_items_carry_only_note_fields():
    data = mapping.note_data(mapping.Note("n1", "hi"), "ABCD2345")
    assert set(data) == {"itemType", "note", "parentItem", "tags"}


def test_item_types_by_kind_of_record():
    assert mapping.item_type(full_record(EntryType.INPROCEEDINGS)) == "conferencePaper"
    assert mapping.item_type(full_record(EntryType.ARTICLE)) == "journalArticle"
    arxiv_only = full_record(EntryType.INPROCEEDINGS, venue="", container_title="", event_title="")
    assert mapping.item_type(arxiv_only) == "preprint"


def test_conference_paper_fields():
    data = mapping.item_data(
        mapping.Paper(full_record(EntryType.INPROCEEDINGS)),
        allowed=ALLOWED,
        options=mapping.Options(),
    )
    assert data["proceedingsTitle"] == "Proceedings of ICML"
    assert data["conferenceName"] == "ICML 2026"
    assert data["date"] == "2026"
    assert data["DOI"] == "10.1/abc"
    assert data["url"] == "https://example.org/paper"
    assert data["citationKey"] == "smith2026moe"
    assert data["pages"] == "1--10"
    assert "arXiv: 2601.00001" in data["extra"]


def test_preprint_names_the_arxiv_repository():
    data = mapping.item_data(
        mapping.Paper(full_record(EntryType.PREPRINT)), allowed=ALLOWED, options=mapping.Options()
    )
    assert data["repository"] == "arXiv"
    assert data["archiveID"] == "arXiv:2601.00001"


def test_creators_split_or_single_field():
    data = mapping.item_data(
        mapping.Paper(full_record(EntryType.INPROCEEDINGS)),
        allowed=ALLOWED,
        options=mapping.Options(),
    )
    assert data["creators"] == [
        {"creatorType": "author", "firstName": "Ada", "lastName": "Smith"},
        {"creatorType": "author", "name": "DeepMind Team"},
    ]


def test_tags_automatic_manual_status_and_rating():
    paper = mapping.Paper(
        full_record(EntryType.INPROCEEDINGS),
        rating=4,
        status="reading",
        personal_tags=("to-discuss",),
    )
    tags = mapping.tags(paper, mapping.Options(tag_prefix="/"))
    assert {"tag": "mixture-of-experts", "type": 1} in tags
    assert {"tag": "to-discuss", "type": 0} in tags
    assert {"tag": "/reading", "type": 0} in tags
    assert {"tag": "/rating:4", "type": 0} in tags


def test_abstract_is_plain_text():
    data = mapping.item_data(
        mapping.Paper(full_record(EntryType.INPROCEEDINGS)),
        allowed=ALLOWED,
        options=mapping.Options(),
    )
    assert data["abstractNote"] == "We route tokens with linear programming and code."


def test_abstract_math_is_rendered_as_unicode():
    record = full_record(EntryType.INPROCEEDINGS, abstract=r"Error drops by $\alpha$ points.")
    data = mapping.item_data(mapping.Paper(record), allowed=ALLOWED, options=mapping.Options())
    assert data["abstractNote"] == "Error drops by \u03b1 points."


def test_note_html_escapes_raw_html_and_carries_the_note_id():
    html = mapping.note_html(mapping.Note('id"1', "**bold** <script>x</script> & co"))
    assert "<strong>bold</strong>" in html
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert note_id_of(html) == 'id"1'


def test_citation_key_goes_to_extra_when_the_server_lacks_the_field():
    allowed = {t: f - {"citationKey"} for t, f in ALLOWED.items()}
    data = mapping.item_data(
        mapping.Paper(full_record(EntryType.INPROCEEDINGS)),
        allowed=allowed,
        options=mapping.Options(),
    )
    assert "citationKey" not in data
    assert data["extra"].splitlines()[0] == "Citation Key: smith2026moe"


def test_derived_title_is_marked_in_extra():
    data = mapping.item_data(
        mapping.Paper(full_record(EntryType.INPROCEEDINGS, title_derived=True)),
        allowed=ALLOWED,
        options=mapping.Options(),
    )
    assert mapping.DERIVED_TITLE_LINE in data["extra"].splitlines()


def test_fields_unknown_to_the_server_are_dropped_and_reported():
    allowed = {t: f - {"conferenceName"} for t, f in ALLOWED.items()}
    dropped = mapping.Dropped()
    data = mapping.item_data(
        mapping.Paper(full_record(EntryType.INPROCEEDINGS)),
        allowed=allowed,
        options=mapping.Options(),
        dropped=dropped,
    )
    assert "conferenceName" not in data
    assert dropped.fields == {"conferencePaper": {"conferenceName"}}


def test_collection_per_venue_edition():
    assert mapping.collection_name(full_record(EntryType.INPROCEEDINGS)) == "ICML 2026"


def zotero_column_names() -> set[str]:
    """Every `name` in the Zotero column of the field-mapping table of docs/formats.md."""
    doc = Path(__file__).resolve().parents[2] / "docs" / "formats.md"
    table = doc.read_text(encoding="utf-8").split("## Field mapping", 1)[1].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    return {name for row in rows[1:] for name in re.findall(r"`([^`]+)`", row.split(" | ")[-1])}


@pytest.mark.parametrize(
    "entry_type", [EntryType.INPROCEEDINGS, EntryType.ARTICLE, EntryType.PREPRINT]
)
def test_formats_doc_names_every_field_the_mapping_sends(entry_type):
    extra = (("isbn", "1"), ("issn", "2"), ("series", "S"), ("volume", "3"), ("address", "W"))
    record = full_record(entry_type, title_derived=True, fields=(*extra, ("number", "4")))
    everything = {t: Everything() for t in ALLOWED}
    data = mapping.item_data(mapping.Paper(record), allowed=everything, options=mapping.Options())
    assert set(data) - {"collections"} <= zotero_column_names()
