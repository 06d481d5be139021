"""The paper-list format, one behaviour per test."""

from __future__ import annotations

import pytest

from bib.errors import BibError
from bib.record import Author

ABSTRACT = "We propose FairJudge, an adaptive judge. It works well."
OTHER = "We introduce Meta Context Engineering (MCE), a bi-level framework."


def test_chinese_header_names_venue_and_year(records):
    [record] = records("l.txt", f"ICML 2026 论文列表\n\n{ABSTRACT}\n")
    assert (record.venue, record.year) == ("ICML", 2026)


def test_markdown_header_names_venue_and_year(records):
    [record] = records("l.md", f"# NeurIPS 2025 accepted papers\n\n{ABSTRACT}\n")
    assert (record.venue, record.year) == ("NeurIPS", 2025)
    assert record.container_title == "Advances in Neural Information Processing Systems"


def test_header_fills_proceedings_publisher_series_and_event(records):
    [record] = records("l.txt", f"ICML 2026 Papers\n\n{ABSTRACT}\n")
    assert record.container_title == (
        "Proceedings of the 43rd International Conference on Machine Learning"
    )
    assert record.publisher == "PMLR"
    assert record.series == "Proceedings of Machine Learning Research"
    assert record.event_title == "ICML 2026"


def test_bom_and_crlf_are_tolerated(records):
    data = f"\ufeffICML 2026 Papers\r\n\r\n{ABSTRACT}\r\n\r\n{OTHER}\r\n".encode()
    result = records("l.txt", data)
    assert [r.abstract for r in result] == [ABSTRACT, OTHER]
    assert result[0].venue == "ICML"


def test_each_paragraph_is_one_entry(records):
    result = records("l.txt", f"ICML 2026\n\n{ABSTRACT}\n\n\n{OTHER}\n")
    assert [r.abstract for r in result] == [ABSTRACT, OTHER]


def test_hard_line_breaks_are_joined(records):
    [record] = records("l.txt", "ICML 2026\n\nWe propose FairJudge,\nan adaptive judge.\n")
    assert record.abstract == "We propose FairJudge, an adaptive judge."


def test_source_line_points_at_the_entry(records):
    result = records("l.txt", f"ICML 2026\n\n{ABSTRACT}\n\n{OTHER}\n")
    assert [r.source.line for r in result] == [3, 5]


@pytest.mark.parametrize("number", ["1. ", "[12] ", "3) "])
def test_entry_numbers_are_stripped(records, number):
    [record] = records("l.txt", f"ICML 2026\n\n{number}{ABSTRACT}\n")
    assert record.abstract == ABSTRACT


def test_heading_marker_gives_title_and_runs_to_next_marker(records):
    text = (
        "ICML 2026\n\n## 1. First Paper\n\nFirst paragraph.\n\nSecond paragraph.\n\n"
        "## Second Paper\nOnly paragraph.\n"
    )
    result = records("l.md", text)
    assert [(r.title, r.abstract) for r in result] == [
        ("First Paper", "First paragraph. Second paragraph."),
        ("Second Paper", "Only paragraph."),
    ]


def test_title_authors_and_url_lines(records):
    text = (
        "ICML 2026\n\nTitle: A Paper\nAuthors: Jane Doe, John Smith and Ada Lovelace\n"
        "URL: https://arxiv.org/abs/2401.01234v2\nThe abstract.\n"
    )
    [record] = records("l.txt", text)
    assert record.title == "A Paper"
    assert [a.family for a in record.authors] == ["Doe", "Smith", "Lovelace"]
    assert record.url == "https://arxiv.org/abs/2401.01234v2"
    assert record.arxiv_id == "2401.01234"
    assert record.id == "arxiv:2401.01234"


def test_authors_separated_by_semicolons_read_family_comma_given(records):
    text = "ICML 2026\n\nAuthors: Doe, Jane; van Beethoven, Ludwig\nText.\n"
    [record] = records("l.txt", text)
    assert record.authors == (Author("Doe", "Jane"), Author("van Beethoven", "Ludwig"))


def test_author_particles_join_the_family_name(records):
    text = "ICML 2026\n\nAuthors: Ludwig van Beethoven; 张三\nText.\n"
    [record] = records("l.txt", text)
    assert record.authors == (Author("van Beethoven", "Ludwig"), Author(literal="张三"))


def test_abstract_markup_is_kept_verbatim(records):
    abstract = r"We introduce **USMoE** with $6\times$ speed, see \url{https://x.org/a_b}."
    [record] = records("l.txt", f"ICML 2026\n\n{abstract}\n")
    assert record.abstract == abstract


def test_venue_and_year_options_override_the_header(records):
    [record] = records("l.txt", f"ICML 2026\n\n{ABSTRACT}\n", venue="nips", year=2024)
    assert (record.venue, record.year, record.event_title) == ("NeurIPS", 2024, "NeurIPS 2024")


def test_options_supply_venue_and_year_without_header(records):
    [record] = records("l.txt", f"{ABSTRACT}\n", venue="ICLR", year=2026)
    assert record.container_title == (
        "The Fourteenth International Conference on Learning Representations"
    )


def test_list_without_venue_and_year_is_an_error(records):
    with pytest.raises(BibError, match="no venue and year") as error:
        records("l.txt", f"{ABSTRACT}\n\n{OTHER}\n")
    assert error.value.line == 1


def test_non_utf8_names_the_line_of_the_bad_byte(records):
    with pytest.raises(BibError, match="not UTF-8: byte 0xe9") as error:
        records("l.txt", b"ICML 2026\n\nGood line.\nBad caf\xe9 line.\n")
    assert error.value.line == 4


def test_empty_list_is_an_error(records):
    with pytest.raises(BibError, match="empty paper list"):
        records("l.txt", "ICML 2026 Papers\n\n\n")


def test_entry_without_text_is_an_error(records):
    with pytest.raises(BibError, match="entry has no text") as error:
        records("l.txt", f"ICML 2026\n\n{ABSTRACT}\n\n7.\n")
    assert error.value.line == 5


def test_iccv_in_an_even_year_is_an_error(records):
    with pytest.raises(BibError, match="odd years"):
        records("l.txt", f"ICCV 2024\n\n{ABSTRACT}\n")


def test_venue_not_in_the_table_is_kept_as_named(records):
    [record] = records("l.txt", f"MyWorkshop 2026 Papers\n\n{ABSTRACT}\n")
    assert (record.venue, record.year, record.event_title, record.container_title) == (
        "MyWorkshop",
        2026,
        "MyWorkshop 2026",
        "MyWorkshop",
    )


def test_unknown_venue_fooconf_disappears_from_the_bibtex_is_fixed(records):
    """Regression: `--venue FooConf` used to leave no booktitle and no 'FooConf' anywhere."""
    [record] = records("l.txt", f"FooConf 2026 Papers\n\n{ABSTRACT}\n")
    assert record.container_title == "FooConf"
