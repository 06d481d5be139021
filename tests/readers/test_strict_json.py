"""JSON input is read as RFC 8259 defines it, with bounds: each refusal names file and line."""

from __future__ import annotations

import pytest

from bib.errors import BibError
from bib.strict_json import MAX_INTEGER_DIGITS, loads


def _refusal(text: str) -> BibError:
    with pytest.raises(BibError) as caught:
        loads(text, "in.json")
    return caught.value


def test_nan_is_refused_with_its_line() -> None:
    error = _refusal('[\n {"id": "a",\n  "volume": NaN}]')
    assert (error.path, error.line) == ("in.json", 3)
    assert "NaN" in error.message


def test_infinity_is_refused() -> None:
    assert "Infinity" in _refusal('{"x": -Infinity}').message


def test_a_number_too_large_for_a_float_is_refused() -> None:
    error = _refusal('{"volume":\n 1e999}')
    assert error.line == 2


def test_an_integer_with_thousands_of_digits_is_refused_without_valueerror() -> None:
    error = _refusal('{"page": ' + "9" * 5000 + "}")
    assert "digits" in error.message


def test_integers_of_ordinary_length_are_kept() -> None:
    assert loads('{"n": ' + "9" * MAX_INTEGER_DIGITS + "}", "x") == {
        "n": int("9" * MAX_INTEGER_DIGITS)
    }


def test_a_key_given_twice_is_refused_at_its_second_line() -> None:
    error = _refusal('{"id": "a",\n "title": "x",\n "title": "y"}')
    assert error.line == 3
    assert "twice" in error.message


def test_deep_nesting_is_refused_with_a_line_not_a_recursion_error() -> None:
    error = _refusal("[" * 100_000 + "]" * 100_000)
    assert "nested" in error.message
    assert error.line == 1


def test_strings_that_look_like_constants_are_text() -> None:
    assert loads('{"title": "NaN and Infinity", "note": "\\"x\\": 1"}', "x")["title"] == (
        "NaN and Infinity"
    )


def test_syntax_errors_keep_their_line() -> None:
    assert _refusal('{\n\n "a": }').line == 3
