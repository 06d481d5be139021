"""biblatex's title parts as CSL's one title: `title`, `subtitle` and `titleaddon` (and the
`book...` and `journal...` parts of a container) joined as pandoc joins them.

CSL has no subtitle variable that styles print (citeproc-js reads `title` whole), so a
subtitle left in `custom` would never be printed: it is part of the title instead."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

_PUNCTUATION = tuple("!?.,:;")


class TitleParts(NamedTuple):
    """Which fields hold the subtitle and the title addon of a title."""

    subtitle: str
    addon: str


TITLE = TitleParts("subtitle", "titleaddon")
CONTAINER = (TitleParts("booksubtitle", "booktitleaddon"), TitleParts("journalsubtitle", ""))
PART_FIELDS = frozenset(name for parts in (TITLE, *CONTAINER) for name in parts if name)
"""The fields that are part of a CSL title (never a variable of their own)."""


def concat(separator: str, first: str, second: str) -> str:
    """`first` and `second` joined by `separator` and a space, or by a space alone when
    `first` ends in punctuation (pandoc's concatWith)."""
    if not second:
        return first
    if not first:
        return second
    if first.rstrip().endswith(_PUNCTUATION):
        return f"{first.rstrip()} {second}"
    return f"{first.rstrip()}{separator} {second}"


def joined(title: str, fields: Mapping[str, str], parts: TitleParts) -> str:
    """`title: subtitle. addon`."""
    text = concat(":", title, fields.get(parts.subtitle, ""))
    return concat(".", text, fields.get(parts.addon, "")) if parts.addon else text
