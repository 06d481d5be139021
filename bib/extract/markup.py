"""Abstract text without its markup, with a map back to the verbatim source.

Extractors match patterns on the plain text (`**USMoE**` reads as `USMoE`) but report
evidence as spans into the abstract as written, so every tag points at the real words.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from bib.record import Span

_MARKUP = re.compile(
    r"\\(?:textbf|textit|emph|texttt|textsc|underline)\s*\{(?P<inner>[^{}]*)\}"
    r"|\*{1,3}"
)


_STARS = re.compile(r"\*{1,3}")
_COMMAND = re.compile(r"\\(?:textbf|textit|emph|texttt|textsc|underline)")
"""The commands `_MARKUP` strips: an abstract without any has only stars to drop. (A regex
that starts with a literal `\\` searches fast; one that cannot, like `_STARS`, is slow.)"""


@dataclass(frozen=True, slots=True)
class Plain:
    """`text` is `source` without markup; spans in `text` map back to `source`."""

    text: str
    source: str = ""
    pattern: re.Pattern[str] | None = None

    def source_span(self, start: int, end: int) -> Span:
        """The span in the verbatim abstract of plain `[start, end)`."""
        if self.pattern is None:
            return (start, end)
        if self.pattern is _STARS:
            source = self.source
            if end > start:
                return _after_stars(source, start), _after_stars(source, end - 1) + 1
            return (_after_stars(source, start),) * 2
        starts, origins = self._segments()
        return (
            _origin(starts, origins, start),
            _origin(starts, origins, end - 1) + 1
            if end > start
            else _origin(starts, origins, start),
        )

    def _segments(self) -> tuple[list[int], list[int]]:
        """Where each unmarked segment starts, in the plain text and in the source."""
        starts, origins = [0], [0]
        length = last = 0
        for cut_start, cut_end in self._cuts():
            length += cut_start - last
            last = cut_end
            starts.append(length)
            origins.append(cut_end)
        return starts, origins

    def _cuts(self) -> Iterator[tuple[int, int]]:
        """The ranges of `source` that `text` leaves out, in order."""
        assert self.pattern is not None
        for match in self.pattern.finditer(self.source):
            if match.group("inner") is None:
                yield match.span()
            else:
                yield match.start(), match.start("inner")
                yield match.end("inner"), match.end()


def _after_stars(source: str, pos: int) -> int:
    """Where plain `pos` is in `source` when the plain text is `source` without its stars:
    the segments `_STARS` leaves, walked only up to `pos` and without building them (a
    star run cut in pieces of up to three maps the same), found with `str.find` as a regex
    scan of the whole abstract costs ten times more."""
    removed = 0
    star = source.find("*")
    while 0 <= star <= pos + removed:  # the run starts at or before plain `pos`
        end = star + 1
        while source.startswith("*", end):
            end += 1
        removed += end - star
        star = source.find("*", end)
    return pos + removed


def _origin(starts: list[int], origins: list[int], pos: int) -> int:
    segment = bisect_right(starts, pos) - 1
    return origins[segment] + pos - starts[segment]


def plain(abstract: str) -> Plain:
    """Drop markdown emphasis markers and LaTeX emphasis commands, keeping their words.

    `str.replace` drops every star as `_STARS` would, in a tenth of the time of a regex
    scan; the regex runs only when an emphasis command is there to strip.
    """
    if "\\" in abstract and _COMMAND.search(abstract):
        return Plain(_MARKUP.sub(_keep_inner, abstract), abstract, _MARKUP)
    if "*" in abstract:
        return Plain(abstract.replace("*", ""), abstract, _STARS)
    return Plain(abstract)


def _keep_inner(match: re.Match[str]) -> str:
    return match.group("inner") or ""


def anchored(pattern: re.Pattern[str], text: str, anchors: tuple[str, ...]) -> list[re.Match[str]]:
    """Matches of `pattern` starting where one of the lower-case `anchors` occurs.

    Scanning a long abstract with a case-insensitive alternation costs tens of
    microseconds; `str.find` for a few anchor words and a `match` there costs one.
    """
    found = []
    last_end = -1
    for start in anchor_starts(text, anchors):
        if start < last_end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            found.append(match)
            last_end = match.end()
    return found


def anchor_starts(text: str, anchors: tuple[str, ...]) -> list[int]:
    """Where one of the lower-case `anchors` starts a word of `text`, in order.

    Each scan costs half a microsecond: an anchor ending in a line break is looked for
    only in a text that has one, and the first scan of every anchor runs in one `map`,
    so that only the few anchors found cost a Python loop.
    """
    lowered = text.lower()
    if "\n" not in lowered:
        anchors = _within_lines(anchors)
    starts: list[int] = []
    found = 0
    for anchor, pos in zip(anchors, map(lowered.find, anchors), strict=True):
        if pos < 0:
            continue
        found += 1
        while pos >= 0:
            if pos == 0 or not lowered[pos - 1].isalnum():
                starts.append(pos)
            pos = lowered.find(anchor, pos + 1)
    return starts if found < 2 else sorted(set(starts))


def _within_lines(anchors: tuple[str, ...]) -> tuple[str, ...]:
    """The anchors that do not end in a line break."""
    return tuple(anchor for anchor in anchors if anchor[-1] != "\n")
