"""The venue table: names, aliases, proceedings titles and edition ordinals."""

from __future__ import annotations

import pytest

from bib import venues
from bib.errors import BibError


@pytest.mark.parametrize(
    ("name", "year", "edition", "proceedings"),
    [
        ("ICML", 2026, 43, "Proceedings of the 43rd International Conference on Machine Learning"),
        ("NeurIPS", 2025, 39, "Advances in Neural Information Processing Systems"),
        ("ICLR", 2026, 14, "The Fourteenth International Conference on Learning Representations"),
        ("AAAI", 2026, 40, "Proceedings of the AAAI Conference on Artificial Intelligence"),
        (
            "ACL",
            2025,
            63,
            "Proceedings of the 63rd Annual Meeting of the Association for Computational "
            "Linguistics",
        ),
        (
            "CVPR",
            2025,
            None,
            "Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition "
            "(CVPR)",
        ),
        (
            "IJCAI",
            2024,
            33,
            "Proceedings of the Thirty-Third International Joint Conference on Artificial "
            "Intelligence, IJCAI-24",
        ),
        (
            "UAI",
            2024,
            40,
            "Proceedings of the Fortieth Conference on Uncertainty in Artificial Intelligence",
        ),
    ],
)
def test_edition_and_proceedings_title(name, year, edition, proceedings):
    venue = venues.resolve(name, year)
    assert (venue.edition, venue.proceedings) == (edition, proceedings)


def test_icml_is_published_by_pmlr_in_its_series():
    venue = venues.resolve("ICML", 2026)
    assert (venue.publisher, venue.series) == ("PMLR", "Proceedings of Machine Learning Research")


def test_every_required_venue_is_in_the_table():
    required = "ICML NeurIPS ICLR ACL EMNLP NAACL CVPR ICCV ECCV AAAI IJCAI KDD COLT AISTATS UAI"
    assert set(required.split()) <= set(venues.table())


@pytest.mark.parametrize(
    ("spelling", "short"), [("nips", "NeurIPS"), ("Icml", "ICML"), ("SIGKDD", "KDD")]
)
def test_names_resolve_case_insensitively_with_aliases(spelling, short):
    assert venues.canonical(spelling) == short


def test_event_title_is_short_name_and_year():
    assert venues.resolve("neurips", 2025).event_title == "NeurIPS 2025"


@pytest.mark.parametrize(("name", "year"), [("ICCV", 2024), ("ECCV", 2025)])
def test_biennial_venue_in_an_off_year_is_an_error(name, year):
    with pytest.raises(BibError, match="years only"):
        venues.resolve(name, year)


def test_unknown_venue_resolves_to_none():
    assert venues.resolve("MyWorkshop", 2026) is None


def test_venue_is_found_in_a_header_in_any_language():
    assert venues.find("ICML 2026 论文列表") == "ICML"


def test_unknown_venue_is_kept_as_given_with_its_name_as_proceedings():
    venue = venues.given("FooConf", 2026)
    assert (venue.short, venue.proceedings, venue.event_title, venue.known) == (
        "FooConf",
        "FooConf",
        "FooConf 2026",
        False,
    )


def test_unknown_venue_is_reported_once_with_the_hint():
    told: list[str] = []
    venues.given("FooConf", 2026, report=told.append)
    assert told == [
        "warning: venue 'FooConf' is not in the venue table; kept as given "
        "(use --venue-title to name the proceedings)"
    ]


def test_venue_title_names_the_proceedings_of_an_unknown_venue_without_a_warning():
    told: list[str] = []
    venue = venues.given("FooConf", 2026, title="Proceedings of FooConf 2026", report=told.append)
    assert (venue.proceedings, told) == ("Proceedings of FooConf 2026", [])


def test_venue_title_replaces_the_proceedings_title_of_a_known_venue():
    venue = venues.given("icml", 2026, title="ICML 2026 Workshop on Cats")
    assert (venue.short, venue.proceedings, venue.publisher) == (
        "ICML",
        "ICML 2026 Workshop on Cats",
        "PMLR",
    )


def test_known_venue_is_not_reported():
    told: list[str] = []
    assert venues.given("ICML", 2026, report=told.append).known
    assert told == []
