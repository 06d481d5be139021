"""Abstract text without its markup, with a map back to the verbatim source.

Extractors match patterns on the plain text (`**USMoE**` reads as `USMoE`) but report
evidence as spans into the abstract as written, so every tag points at the real words.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from bib.record import Span

_MARKUP = re.compile(
    r"\\(?:textbf|textit|emph|texttt|textsc|underline)\s*\{(?P<inner>[^{}]*)\}"
    r"|\*{1,3}"
)


_STARS = re.compile(r"\*{1,3}")


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
        starts, origins = self._segments()
        return (
            _origin(starts, origins, start),
            _origin(starts, origins, end - 1) + 1
            if end > start
            else _origin(starts, origins, start),
        )

    def _segments(self) -> tuple[list[int], list[int]]:
        """Where each unmarked segment starts, in the plain text and in the source."""
        assert self.pattern is not None
        starts, origins = [0], [0]
        length = last = 0
        for match in self.pattern.finditer(self.source):
            for cut_start, cut_end in _cuts(match):
                length += cut_start - last
                last = cut_end
                starts.append(length)
                origins.append(cut_end)
        return starts, origins


def _cuts(match: re.Match[str]) -> list[tuple[int, int]]:
    if match.re is _STARS or match.group("inner") is None:
        return [match.span()]
    return [(match.start(), match.start("inner")), (match.end("inner"), match.end())]


def _origin(starts: list[int], origins: list[int], pos: int) -> int:
    segment = bisect_right(starts, pos) - 1
    return origins[segment] + pos - starts[segment]


def plain(abstract: str) -> Plain:
    """Drop markdown emphasis markers and LaTeX emphasis commands, keeping their words."""
    if "\\" in abstract:
        return Plain(_MARKUP.sub(_keep_inner, abstract), abstract, _MARKUP)
    if "*" in abstract:
        return Plain(_STARS.sub("", abstract), abstract, _STARS)
    return Plain(abstract)


def _keep_inner(match: re.Match[str]) -> str:
    return match.group("inner") or ""


def anchored(pattern: re.Pattern[str], text: str, anchors: tuple[str, ...]) -> list[re.Match[str]]:
    """Matches of `pattern` starting where one of the lower-case `anchors` occurs.

    Scanning a long abstract with a case-insensitive alternation costs tens of
    microseconds; `str.find` for a few anchor words and a `match` there costs one.
    """
    lowered = text.lower()
    starts: set[int] = set()
    for anchor in anchors:
        pos = lowered.find(anchor)
        while pos >= 0:
            if pos == 0 or not lowered[pos - 1].isalnum():
                starts.add(pos)
            pos = lowered.find(anchor, pos + 1)
    found = []
    last_end = -1
    for start in sorted(starts):
        if start < last_end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            found.append(match)
            last_end = match.end()
    return found
