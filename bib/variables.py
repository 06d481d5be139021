"""The CSL variables, by kind, as the official CSL-JSON schema (schema/csl-data.json) types
them: name lists, dates, and the rest (text or numbers).

A variable that bib/data/csl_biblatex.json does not map keeps its CSL name as a Record
field; these kinds say how the CSL-JSON reader stores it (a name list in the canonical
BibTeX form, a date as ISO text) and how the writer gives it back, so that no variable of
the schema is dropped or changes its shape."""

from __future__ import annotations

import json
from functools import cache
from typing import Literal

import schema

Kind = Literal["name", "date", "text"]
_OWN = frozenset({"id", "type", "custom", "citation-key", "categories"})
"""Members of an item that are not bibliographic variables (or are ours)."""


@cache
def kinds() -> dict[str, Kind]:
    """Every CSL variable of the schema and its kind."""
    properties = schema.load("csl-data.json")["items"]["properties"]
    out: dict[str, Kind] = {}
    for name, spec in properties.items():
        if name in _OWN:
            continue
        text = json.dumps(spec)
        out[name] = (
            "name" if "name-variable" in text else "date" if "date-variable" in text else "text"
        )
    return out


@cache
def by_field() -> dict[str, str]:
    """Lower-cased CSL variable -> the variable (Record.fields names are lower case)."""
    return {name.lower(): name for name in kinds()}


def of_kind(kind: Kind) -> frozenset[str]:
    return frozenset(name for name, found in kinds().items() if found == kind)
