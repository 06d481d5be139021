"""Scoring candidates against a record, and the three-way verdict.

A wrong match is worse than none, so a candidate is accepted only when its abstract (or,
with no abstract, its title, year and authors) is close to the record's *and* it stands clear
of every other paper found: look-alikes on the same topic score in the middle band and are
held for review instead of applied.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rapidfuzz import fuzz

from bib.resolve.candidate import Candidate
from bib.resolve.text import normalize

RESOLVED = 0.85
"""At or above: applied. The same abstract scores about 1.0, a reworded arXiv version of it
0.85 or more; a different paper on the same topic stays below 0.6 (tests/resolve/corpus.py)."""
AMBIGUOUS = 0.6
"""At or above (and below RESOLVED, or too close to a runner-up): listed for review."""
MARGIN = 0.1
"""The best paper must beat the next different paper by this much to be applied."""
YEAR_PENALTY = 0.75
"""Factor for a candidate more than a year away from the record's year: another edition."""


class Verdict(StrEnum):
    RESOLVED = "resolved"
    AMBIGUOUS = "ambiguous"
    UNRESOLVED = "unresolved"


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a record is matched on; `title` is empty when the record's title was derived."""

    abstract: str = ""
    title: str = ""
    year: int | None = None
    authors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Scored:
    candidate: Candidate
    score: float


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Verdict
    best: Scored | None
    candidates: tuple[Scored, ...]


def bigrams(text: str) -> set[tuple[str, str]]:
    tokens = text.split()
    return set(itertools.pairwise(tokens))


def text_similarity(a: str, b: str) -> float:
    """Mean of character-level similarity (rapidfuzz Indel ratio) and word-bigram Dice overlap
    of the normalized texts: rewording lowers the first a little, a new paper lowers both."""
    left, right = normalize(a), normalize(b)
    if not left or not right:
        return 0.0
    chars = fuzz.ratio(left, right) / 100.0
    lb, rb = bigrams(left), bigrams(right)
    dice = 2 * len(lb & rb) / (len(lb) + len(rb)) if lb and rb else chars
    return (chars + dice) / 2


def family(name: str) -> str:
    parts = normalize(name).split()
    return parts[-1] if parts else ""


def author_overlap(ours: Sequence[str], theirs: Sequence[str]) -> float:
    mine, other = {family(a) for a in ours} - {""}, {family(a) for a in theirs} - {""}
    if not mine or not other:
        return 1.0
    return len(mine & other) / min(len(mine), len(other))


def score(evidence: Evidence, candidate: Candidate) -> float:
    if evidence.abstract and candidate.abstract:
        value = text_similarity(evidence.abstract, candidate.abstract)
        if evidence.title and candidate.title:
            value = 0.7 * value + 0.3 * text_similarity(evidence.title, candidate.title)
    elif evidence.title and candidate.title:
        value = text_similarity(evidence.title, candidate.title)
        if evidence.year is None:
            value = min(value, RESOLVED - 0.01)
    else:
        return 0.0
    if evidence.authors and candidate.authors:
        value *= 0.5 + 0.5 * author_overlap(evidence.authors, candidate.authors)
    if evidence.year and candidate.year and abs(evidence.year - candidate.year) > 1:
        value *= YEAR_PENALTY
    return value


def same_paper(a: Candidate, b: Candidate) -> bool:
    """Two sources' descriptions of one paper (not a rival): shared id or the same title."""
    if a.arxiv_id and a.arxiv_id == b.arxiv_id:
        return True
    if a.doi and a.doi.casefold() == b.doi.casefold():
        return True
    return bool(a.title) and normalize(a.title) == normalize(b.title)


def decide(evidence: Evidence, candidates: Sequence[Candidate]) -> Decision:
    ranked = sorted(
        (Scored(c, round(score(evidence, c), 4)) for c in candidates),
        key=lambda s: (-s.score, s.candidate.source, s.candidate.source_id),
    )
    if not ranked or ranked[0].score < AMBIGUOUS:
        return Decision(Verdict.UNRESOLVED, ranked[0] if ranked else None, tuple(ranked))
    best = ranked[0]
    rival = next((s for s in ranked[1:] if not same_paper(s.candidate, best.candidate)), None)
    clear = rival is None or best.score - rival.score >= MARGIN
    verdict = Verdict.RESOLVED if best.score >= RESOLVED and clear else Verdict.AMBIGUOUS
    return Decision(verdict, best, tuple(ranked))
