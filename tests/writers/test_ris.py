"""RIS output, read back by an independent RIS reader (rispy) and held to Zotero's RIS mapping.

Zotero's RIS translator (zotero/translators, RIS.js) exports a conference paper's conference
name as T2, its proceedings title as C3 and its series as T3, a journal article's journal as
T2, authors as AU `Family, Given`, and RIS types from `exportTypeMap` (conferencePaper CONF,
journalArticle JOUR, book BOOK, bookSection CHAP, thesis THES, report RPRT).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import rispy
from click.testing import Result

from bib import writers
from bib.record import Author, EntryType, Record

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def seeds_both(cli: Callable[..., Result], tmp_path: Path) -> tuple[list[dict], list[dict]]:
    ris, csl = tmp_path / "seeds.ris", tmp_path / "seeds.json"
    result = cli("convert", ROOT / "seeds", ROOT / "tests/data/stress.txt", "-o", ris, "-o", csl)
    assert result.exit_code == 0, result.stderr
    return rispy.load(ris.open(encoding="utf-8")), json.loads(csl.read_text(encoding="utf-8"))


def test_every_record_reads_back_with_its_key_title_and_abstract(seeds_both) -> None:
    entries, items = seeds_both
    assert [e["id"] for e in entries] == [i["id"] for i in items]
    for entry, item in zip(entries, items, strict=True):
        assert entry["title"] == " ".join(item["title"].split())
        assert entry.get("abstract") == (
            " ".join(item["abstract"].split()) if "abstract" in item else None
        )


def test_keywords_are_one_tag_each(seeds_both) -> None:
    entries, items = seeds_both
    for entry, item in zip(entries, items, strict=True):
        expected = [w.strip() for w in item.get("keyword", "").split(",") if w.strip()]
        assert entry.get("keywords", []) == expected


def test_a_conference_paper_follows_zoteros_conf_mapping(seeds_both) -> None:
    entries, items = seeds_both
    entry, item = entries[0], items[0]
    assert entry["type_of_reference"] == "CONF"
    assert entry["secondary_title"] == item["event-title"]  # T2: conferenceName
    assert entry["custom3"] == item["container-title"]  # C3: proceedingsTitle
    assert entry["year"] == str(item["issued"]["date-parts"][0][0])


def _one(record: Record) -> dict:
    [entry] = rispy.loads(writers.render([record], "ris"))
    return entry


def test_a_journal_article_puts_its_journal_in_t2_and_authors_family_first() -> None:
    record = Record(
        id="x",
        key="smith2020",
        entry_type=EntryType.ARTICLE,
        title="On Things",
        authors=(Author(family="Smith", given="Ann"), Author(family="Ngo", given="B.")),
        container_title="Journal of Things",
        year=2020,
        doi="10.1000/XyZ",
    )
    entry = _one(record)
    assert entry["type_of_reference"] == "JOUR"
    assert entry["secondary_title"] == "Journal of Things"
    assert entry["authors"] == ["Smith, Ann", "Ngo, B."]
    assert entry["doi"] == "10.1000/XyZ"


@pytest.mark.parametrize(
    ("kind", "ty"),
    [
        (EntryType.BOOK, "BOOK"),
        (EntryType.INCOLLECTION, "CHAP"),
        (EntryType.THESIS, "THES"),
        (EntryType.REPORT, "RPRT"),
    ],
)
def test_types_follow_zoteros_export_type_map(kind: EntryType, ty: str) -> None:
    assert _one(Record(id="x", key="k", entry_type=kind, title="T"))["type_of_reference"] == ty


def test_a_line_break_in_a_value_cannot_start_a_new_tag() -> None:
    entry = _one(Record(id="x", key="k", title="Two\nER  - lines", abstract="a\r\nTY  - JOUR"))
    assert entry["title"] == "Two ER - lines"
    assert entry["type_of_reference"] == "CONF"


def test_the_suffix_and_the_flag_both_choose_ris(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    by_suffix = tmp_path / "a.ris"
    assert cli("convert", ROOT / "seeds", "-o", by_suffix).exit_code == 0
    by_flag = cli("convert", ROOT / "seeds", "-f", "ris")
    assert by_flag.exit_code == 0
    assert by_flag.stdout_bytes == by_suffix.read_bytes()
