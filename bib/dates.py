"""Whole dates: year, month, day and ranges, between BibLaTeX's ISO 8601 / EDTF level 0
(`date = {2019-06}`, `{2019-06-01/2019-06-05}`), BibTeX's `year` and `month`, and CSL's
`date-parts` (string parts accepted, as citeproc-js accepts them).

A Record keeps `year` as a number and, when a source says more, the whole date in
Record.fields under its BibLaTeX name (`date`, `urldate`, `origdate`, `eventdate`) as ISO
text: the one form every writer reads.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

_ISO = re.compile(r"(-?\d{1,4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}


MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
"""The English names: what a `.bib` month reads as (`dec`, `{12}`, `December` alike), and
what BibTeX output writes."""


def month_name(text: str) -> str:
    """`dec`, `12`, `December` -> December (one value however a `.bib` wrote it, so that
    BibLaTeX's `month = {12}` reads back as the `month = dec` it was written from); any
    other text (`Summer`) as it is."""
    number = month_number(text)
    return text if number is None else MONTH_NAMES[number - 1]


def month_number(text: str) -> int | None:
    """`jul`, `July`, `7`, `07` -> 7; None for anything else (`Summer`)."""
    text = text.strip().strip("{}").strip().rstrip(".").lower()
    if text.isdigit():
        number = int(text)
        return number if 1 <= number <= 12 else None
    return _MONTHS.get(text)


def parts(text: str) -> list[list[int]] | None:
    """ISO text (`2019`, `2019-06`, `2019-06-01/2019-06-05`) as CSL date-parts; None when it
    is not such a date."""
    pieces = text.strip().split("/")
    if len(pieces) > 2:
        return None
    out = []
    for piece in pieces:
        match = _ISO.fullmatch(piece.strip())
        if match is None:
            return None
        date = [int(g) for g in match.groups() if g is not None]
        if (len(date) > 1 and not 1 <= date[1] <= 12) or (len(date) > 2 and not 1 <= date[2] <= 31):
            return None
        out.append(date)
    return out


_YEAR_RANGE = re.compile(r"\s*(\d{4})\s*(?:--|-|\u2013|\u2014|/)\s*(\d{4})\s*")


def year_range(text: str) -> str | None:
    """`year = {1965--1981}` as the ISO range `1965/1981`; None for anything else (one
    year, a range that runs backwards or stays in one year). biber keeps such a year as
    text and prints it as the span it is; the range is how CSL and BibLaTeX say that."""
    match = _YEAR_RANGE.fullmatch(text)
    if match is None or int(match.group(2)) <= int(match.group(1)):
        return None
    return f"{match.group(1)}/{match.group(2)}"


def iso(date_parts: list[list[int]]) -> str:
    """CSL date-parts as ISO text (the inverse of `parts`)."""
    return "/".join(
        "-".join(f"{p:04d}" if i == 0 else f"{p:02d}" for i, p in enumerate(date))
        for date in date_parts
    )


def from_csl(value: Any) -> str:
    """A CSL date object as ISO text ("" when it has none): `date-parts` (string parts
    accepted), else `raw` or `literal` as written."""
    if not isinstance(value, dict):
        return ""
    found = []
    for date in value.get("date-parts") or []:
        numbers = []
        for part in date if isinstance(date, list) else []:
            try:
                numbers.append(int(str(part).strip()))
            except ValueError:
                break
        if numbers:
            found.append(numbers[:3])
    if found:
        return iso(found)
    return str(value.get("raw") or value.get("literal") or "").strip()


def to_csl(text: str) -> dict[str, Any]:
    """ISO text as a CSL date: `date-parts`, or `literal` when it is not ISO."""
    found = parts(text)
    return {"date-parts": found} if found else {"literal": text.strip()}


def year_of(text: str) -> int | None:
    found = parts(text)
    return found[0][0] if found else None


@cache
def mapping() -> dict[str, dict[str, str]]:
    """The CSL <-> BibLaTeX table (bib/data/csl_biblatex.json): `fields`, `dates`, `names`,
    `article_fields`."""
    path = resources.files("bib").joinpath("data/csl_biblatex.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    return {part: data[part] for part in ("fields", "dates", "names", "article_fields")}
