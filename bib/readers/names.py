"""Author names as people type them in paper lists: split into family and given parts."""

from __future__ import annotations

import re

from bib.record import Author

_PARTICLES = frozenset(
    "van von der den de del della di da dos das du la le ter ten zu bin ibn al el".split()  # noqa: SIM905
)
_SEPARATORS = re.compile(r"\s*;\s*|\s+and\s+|\s*&\s*", re.IGNORECASE)
_LATIN = re.compile(r"[A-Za-zÀ-ɏ]")


def split_name(name: str) -> Author:
    """`Jane Q. Doe` -> Doe / Jane Q.; `Doe, Jane` -> Doe / Jane; `Ludwig van Beethoven`
    -> van Beethoven / Ludwig; a name without Latin letters or without spaces stays literal."""
    name = " ".join(name.split()).strip(" ,")
    if not name:
        return Author()
    if "," in name:
        family, _, given = name.partition(",")
        return Author(family=family.strip(), given=given.strip())
    words = name.split(" ")
    if len(words) == 1 or not _LATIN.search(name):
        return Author(literal=name)
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _PARTICLES:
        start -= 1
    return Author(family=" ".join(words[start:]), given=" ".join(words[:start]))


def split_authors(line: str) -> tuple[Author, ...]:
    """Split an `Authors:` line on `;`, ` and ` or `,`.

    With `;` present, commas are read as `Family, Given` inside each name.
    """
    line = line.strip()
    if not line:
        return ()
    parts = _SEPARATORS.split(line)
    if ";" not in line:
        parts = [p for part in parts for p in part.split(",")]
    return tuple(a for a in (split_name(p) for p in parts) if a.display)
