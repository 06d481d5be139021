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


_STARS = re.compile(r"(?P<inner>)\*{1,3}")


@dataclass(frozen=True, slots=True)
class Plain:
    """`text` is the abstract without markup; segment i starts at `starts[i]` in `text`
    and at `origins[i]` in the abstract."""

    text: str
    starts: tuple[int, ...] = (0,)
    origins: tuple[int, ...] = (0,)

    def source_span(self, start: int, end: int) -> Span:
        """The span in the verbatim abstract of plain `[start, end)`."""
        if end <= start:
            return (self._origin(start), self._origin(start))
        return (self._origin(start), self._origin(end - 1) + 1)

    def _origin(self, pos: int) -> int:
        segment = bisect_right(self.starts, pos) - 1
        return self.origins[segment] + pos - self.starts[segment]


def plain(abstract: str) -> Plain:
    """Drop markdown emphasis markers and LaTeX emphasis commands, keeping their words."""
    if "*" not in abstract and "\\" not in abstract:
        return Plain(abstract)
    cuts: list[tuple[int, int]] = []
    pattern = _MARKUP if "\\" in abstract else _STARS
    for match in pattern.finditer(abstract):
        if match.group("inner") is None or pattern is _STARS:
            cuts.append(match.span())
        else:
            cuts.append((match.start(), match.start("inner")))
            cuts.append((match.end("inner"), match.end()))
    pieces, starts, origins = [], [0], [0]
    last = length = 0
    for start, end in cuts:
        pieces.append(abstract[last:start])
        length += start - last
        last = end
        starts.append(length)
        origins.append(end)
    pieces.append(abstract[last:])
    return Plain("".join(pieces), tuple(starts), tuple(origins))


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
