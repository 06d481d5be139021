"""bib.writers.render and format_for_path."""

from __future__ import annotations

import pytest

from bib.errors import BibError
from bib.writers import FORMATS, format_for_path, render


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("refs.bib", "bibtex"),
        ("out/REFS.BIB", "bibtex"),
        ("refs.biblatex.bib", "biblatex"),
        ("refs.json", "csl-json"),
    ],
)
def test_format_follows_the_file_name(name: str, fmt: str) -> None:
    assert format_for_path(name) == fmt


def test_unknown_suffix_is_an_error() -> None:
    with pytest.raises(BibError, match=r"refs\.txt"):
        format_for_path("refs.txt")


def test_unknown_format_is_an_error(record) -> None:
    with pytest.raises(BibError, match="unknown output format 'endnote'"):
        render([record], "endnote")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders_an_empty_list(fmt: str) -> None:
    assert render([], fmt) in ("", "[]\n")
