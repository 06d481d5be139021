"""JSON as the standard defines it, read with bounds, for every JSON file a user hands `bib`.

Python's `json` accepts what RFC 8259 does not (`NaN`, `Infinity`), turns `1e999` into
infinity, keeps the last of two equal keys without a word, fails on integers of more than
4,300 digits with a bare ValueError, and on deep nesting with a RecursionError. Each of these
becomes a `BibError` that names the file and the line of the offending text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from bib.errors import BibError

MAX_INTEGER_DIGITS = 64
"""Longer integers are no volume, page or year: refused before Python's own limit bites."""

MAX_DEPTH = 200
"""CSL-JSON and annotation files nest a handful of levels. The parser itself stops at the
interpreter's recursion limit; the error then points at the line where nesting passed this."""

_TOKEN = re.compile(rf'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity)|(-?\d{{{MAX_INTEGER_DIGITS + 1},}})')
_OPEN_CLOSE = re.compile(r'"(?:[^"\\]|\\.)*"|([\[{])|([\]}])')


class _Refused(Exception):
    """Raised inside a json hook; located in the text afterwards (the hooks get no position)."""

    def __init__(self, message: str, needle: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.needle = needle


def _constant(name: str) -> float:
    raise _Refused(f"{name} is not a JSON number", "constant")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise _Refused(
            f"an integer of {len(text)} digits (at most {MAX_INTEGER_DIGITS})", "integer"
        )
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(f"{text} is too large for a number", text)
    return value


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {json.dumps(key)} appears twice in one object", key)
            seen.add(key)
    return obj


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _locate(text: str, refused: _Refused) -> int | None:
    """The line of the text a hook refused: found by a second, linear look at the text."""
    if refused.needle in ("constant", "integer"):
        group = 1 if refused.needle == "constant" else 2
        for match in _TOKEN.finditer(text):
            if match.group(group):
                return _line(text, match.start())
        return None
    if refused.needle is None:
        return None
    quoted = json.dumps(refused.needle) if refused.needle[:1].isalpha() else refused.needle
    first = text.find(quoted)
    second = text.find(quoted, first + 1) if first >= 0 else -1
    found = second if second >= 0 else first
    return _line(text, found) if found >= 0 else None


def _too_deep_line(text: str) -> int | None:
    depth = 0
    for match in _OPEN_CLOSE.finditer(text):
        if match.group(1):
            depth += 1
            if depth > MAX_DEPTH:
                return _line(text, match.start())
        elif match.group(2):
            depth -= 1
    return None


def loads(text: str, path: str) -> Any:
    """The JSON value in `text`, or a BibError naming `path` and the line of the problem."""
    try:
        return json.loads(
            text,
            parse_constant=_constant,
            parse_int=_integer,
            parse_float=_float,
            object_pairs_hook=_pairs,
        )
    except json.JSONDecodeError as exc:
        raise BibError(
            f"not valid JSON: {exc.msg} (column {exc.colno})", path, exc.lineno
        ) from None
    except _Refused as exc:
        raise BibError(f"not valid JSON: {exc.message}", path, _locate(text, exc)) from None
    except RecursionError:
        line = _too_deep_line(text)
        raise BibError(f"JSON nested more than {MAX_DEPTH} levels deep", path, line) from None
