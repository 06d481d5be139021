"""Deprecated calls in our own packages fail the suite (pyproject.toml filterwarnings)."""

from __future__ import annotations

import warnings

import pytest


@pytest.mark.parametrize("module", ["bib", "bib.cli.convert", "annotations.sqlite"])
def test_deprecation_warning_from_our_code_is_an_error(module):
    with pytest.raises(DeprecationWarning):
        warnings.warn_explicit("old API", DeprecationWarning, "x.py", 1, module=module)


def test_deprecation_warning_from_a_dependency_is_not_an_error():
    with pytest.warns(DeprecationWarning):
        warnings.warn_explicit("old API", DeprecationWarning, "x.py", 1, module="bibtexparser.x")


def test_stdin_conversion_raises_no_deprecation_warning(cli):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        result = cli(
            "convert", "-", "--from", "bibtex", "-f", "bibtex", input="@misc{a, title={A}}\n"
        )
    assert result.exit_code == 0, result.output
