"""Conference venues: short names, proceedings titles and edition ordinals, from data.

The table lives in `bib/data/venues.json`; this module only resolves names (case
insensitive, aliases such as `NIPS`) and fills in the title patterns for a year.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from bib.errors import BibError

_UNITS = [
    "", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth",
]  # fmt: skip
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_TENTHS = ["", "", "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", "seventieth",
           "eightieth", "ninetieth"]  # fmt: skip


def ordinal(n: int) -> str:
    """43 -> '43rd'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def ordinal_words(n: int, sep: str = "-") -> str:
    """43 -> 'Forty-Third' (sep='-') or 'Forty Third' (sep=' '); 1..99."""
    if not 0 < n < 100:
        return ordinal(n)
    if n < 20:
        return _UNITS[n].capitalize()
    tens, unit = divmod(n, 10)
    if unit == 0:
        return _TENTHS[tens].capitalize()
    return f"{_TENS[tens].capitalize()}{sep}{_UNITS[unit].capitalize()}"


@dataclass(frozen=True, slots=True)
class Venue:
    """One venue in one year, with everything a record needs from it."""

    short: str
    year: int
    proceedings: str
    event: str
    publisher: str
    series: str
    edition: int | None

    @property
    def event_title(self) -> str:
        return f"{self.short} {self.year}"


@cache
def table() -> dict[str, dict[str, Any]]:
    text = resources.files("bib").joinpath("data/venues.json").read_text(encoding="utf-8")
    venues: dict[str, dict[str, Any]] = json.loads(text)["venues"]
    return venues


@cache
def _names() -> dict[str, str]:
    """Every spelling (casefolded) -> canonical short name."""
    names: dict[str, str] = {}
    for short, spec in table().items():
        names[short.casefold()] = short
        for alias in spec.get("aliases", ()):
            names[alias.casefold()] = short
    return names


def canonical(name: str) -> str | None:
    """The canonical short name for a spelling (`nips` -> `NeurIPS`), None if unknown."""
    return _names().get(" ".join(name.split()).casefold())


@cache
def _finder() -> re.Pattern[str]:
    spellings = sorted(_names(), key=len, reverse=True)
    alternatives = "|".join(re.escape(s) for s in spellings)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)


def find(text: str) -> str | None:
    """The first known venue named in `text` (a header line in any language)."""
    match = _finder().search(text)
    return canonical(match.group(0)) if match else None


def _fill(pattern: str, year: int, edition: int | None) -> str:
    values = {"year": str(year), "yy": f"{year % 100:02d}"}
    if edition is not None:
        values |= {
            "ordinal": ordinal(edition),
            "Ordinal": ordinal_words(edition),
            "Ordinal_spaced": ordinal_words(edition, " "),
        }
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), pattern)


def resolve(name: str, year: int) -> Venue | None:
    """The venue `name` in `year`; None for a venue not in the table.

    Raises BibError for a year the venue was not held (ICCV in an even year).
    """
    short = canonical(name)
    if short is None:
        return None
    spec = table()[short]
    parity = spec.get("years")
    if parity and (year % 2 == 1) != (parity == "odd"):
        raise BibError(f"{short} is held in {parity} years only, not in {year}")
    edition = None
    if spec.get("edition"):
        anchor = spec["edition"]
        steps, rest = divmod(year - anchor["year"], anchor["every"])
        if rest:
            raise BibError(f"{short} was not held in {year}")
        edition = anchor["number"] + steps
        if edition < 1:
            raise BibError(f"{short} did not exist yet in {year}")
    titles = [t for t in spec["titles"] if t["since"] <= year]
    return Venue(
        short=short,
        year=year,
        proceedings=_fill(titles[-1]["proceedings"], year, edition),
        event=_fill(spec.get("event", ""), year, edition),
        publisher=spec.get("publisher", ""),
        series=spec.get("series", ""),
        edition=edition,
    )
