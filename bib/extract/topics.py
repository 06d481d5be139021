"""Topic tags: which vocabulary topics an abstract is about, and the words that say so.

Matching scans a copy of the abstract that is lower-cased, has every character other than
a letter or digit replaced by a space, and has the same length as the original, so every
hit is already a span of the original text (runs of whitespace, as in wrapped BibTeX
abstracts, are squeezed first and mapped back). Spelling variants (plural, joined or
hyphenated, British or American) were expanded when the vocabulary was compiled, so the
text itself is never rewritten word by word. Hits are whole words; where they overlap the
leftmost, then longest, wins ("sparse mixture of experts", not "mixture of experts").

An acronym the abstract defines after a matched long form ("Sparse Mixture of Experts
(SMoE)") carries the long form's topic to its later uses, even when the vocabulary does
not know the acronym.

Ranking weighs each mention (more in the first sentence or where the authors state their
aim, less after "e.g." or "unlike"), sums them with diminishing returns, favours early
mentions, and multiplies by specificity: a generic topic ("machine learning",
"optimization") weighs less, and less again when a topic below it is also present.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bib.extract.vocabulary import (
    CUE_CLAIM,
    CUE_PASSING,
    FUNCTION_WORDS,
    SCAN_BYTES_LOWER,
    SCAN_TABLE,
    Vocabulary,
    initials,
)
from bib.record import Span

_ACRONYM_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9\-]{0,15}")

_WHITESPACE_RUN = re.compile(r"\s{2,}")
_NOT_LETTER = re.compile(r"[^A-Z]")
_WORD = re.compile(r"[A-Za-z0-9]+")
PASSING_REACH = 60
"""How far (characters) a cue such as `e.g.` or `unlike` reaches forward."""
PASSING_WEIGHT = 0.4
"""A topic named after `e.g.`, `unlike`, `than` ... is mentioned, not studied."""
CLAIM_WEIGHT = 1.3
"""A topic named in the first sentence or where the authors state their aim is central."""
ASIDE_REACH = 160
"""The longest parenthesis (characters) read as an aside rather than as a clause."""
MIN_SCORE = 1.1
"""Below this a topic is a passing mention, not what the paper is about."""


@dataclass(frozen=True, slots=True)
class TopicMatch:
    slug: str
    label: str
    evidence: tuple[Span, ...]
    score: float


def _bounded(text: str, start: int, end: int) -> bool:
    return (start == 0 or not text[start - 1].isalnum()) and (
        end == len(text) or not text[end].isalnum()
    )


def _squeeze(text: str) -> tuple[str, list[int], list[int]]:
    """Runs of whitespace (a BibTeX abstract wrapped over lines) as one space, and where the
    squeezed text's positions came from: after `marks[k]`, add `shifts[k]`."""
    parts: list[str] = []
    marks: list[int] = []
    shifts: list[int] = []
    last = removed = length = 0
    for m in _WHITESPACE_RUN.finditer(text):
        parts += (text[last : m.start()], " ")
        length += m.start() - last + 1
        removed += m.end() - m.start() - 1
        marks.append(length)
        shifts.append(removed)
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), marks, shifts


def _original(position: int, marks: list[int], shifts: list[int]) -> int:
    k = bisect.bisect_right(marks, position)
    return position + (shifts[k - 1] if k else 0)


Hit = tuple[int, int, str, float]
"""`(start, end, slug, weight)`: a mention, its topic and how much it says."""


@dataclass(slots=True)
class Scan:
    """One pass over an abstract: topic hits and what weighs each mention."""

    hits: list[tuple[int, int, str, float]]
    """Whole-word hits `(start, end, slug, weight)`, leftmost-longest, in original offsets."""
    groups: dict[str, list[Hit]]
    """The hits by topic, in order."""
    view: str
    """The text the offsets were found in (the abstract, whitespace runs squeezed)."""
    passing: list[tuple[int, int]]
    """`(cue end, reach end)` of every passing cue, in view offsets."""
    central: list[tuple[int, int]]
    """`[start, end)` of the sentences that are the first or state the authors' aim."""
    marks: list[int]
    shifts: list[int]

    def weight(self, position: int) -> float:
        """How much a mention at `position` (original offset) says the paper is about it."""
        if self.marks:
            position = _to_view(position, self.marks, self.shifts)
        for cue_end, reach in reversed(self.passing):
            if cue_end <= position < reach:
                return PASSING_WEIGHT
            if cue_end <= position - PASSING_REACH:
                break
        if any(low <= position < high for low, high in self.central):
            return CLAIM_WEIGHT
        return 1.0


def _to_view(position: int, marks: list[int], shifts: list[int]) -> int:
    for mark, shift in zip(reversed(marks), reversed(shifts), strict=True):
        if position - shift >= mark:
            return position - shift
    return position


def _clause_end(view: str, start: int, stops: str, limit: int) -> int:
    end = min(limit, len(view))
    for stop in stops:
        found = view.find(stop, start, end)
        if found != -1:
            end = found
    return end


def _sentence_end(view: str, position: int) -> int:
    end = view.find(". ", position)
    return len(view) if end < 0 else end + 1


def _asides(view: str) -> list[tuple[int, int]]:
    """`[start, end)` inside every short parenthesis: an example, a list or a gloss
    ("tasks (instruction following, arithmetic reasoning)"), not what the paper is about."""
    out: list[tuple[int, int]] = []
    opened = view.find("(")
    while opened >= 0:
        closed = view.find(")", opened, opened + ASIDE_REACH)
        if closed < 0:
            opened = view.find("(", opened + 1)
        else:
            if not _is_gloss(view, opened + 1, closed):
                out.append((opened + 1, closed))
            opened = view.find("(", closed)
    return out


def _is_gloss(view: str, start: int, end: int) -> bool:
    """A name spelled out (`S2L-PO (Small-to-Large Policy Optimization)`): several words,
    every content word capitalised, no list. The authors' own description, not an aside."""
    words = _WORD.findall(view, start, end)
    if len(words) < 2 or "," in view[start:end]:
        return False
    return all(w[0].isupper() or w.lower() in FUNCTION_WORDS for w in words)


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping `[start, end)` ranges merged, in order."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _central_sentences(view: str, claims: list[int]) -> list[tuple[int, int]]:
    """`[start, end)` of the first sentence and of every sentence stating the authors' aim."""
    out = [(0, _sentence_end(view, 0))]
    for claim in claims:
        start = view.rfind(". ", 0, claim)
        out.append((0 if start < 0 else start + 2, _sentence_end(view, claim)))
    return out


def scan(text: str, vocabulary: Vocabulary) -> Scan:
    """Find every vocabulary phrase and weighing cue in one pass of the automaton.

    The scanned text is the abstract lower-cased with every other character than a letter or
    digit as a space, padded with a space at both ends: a key (which starts with a space)
    can only match where a word starts, and a match is a whole word when a space follows.
    """
    automaton = vocabulary.compiled.automaton
    marks: list[int] = []
    shifts: list[int] = []
    view = text
    if ("  " in text or "\n" in text or "\t" in text) and _WHITESPACE_RUN.search(text):
        view, marks, shifts = _squeeze(text)
    if view.isascii() or vocabulary.compiled.ascii:
        raw = b" " + view.encode("ascii", "replace") + b" "
        lowered = raw.translate(SCAN_BYTES_LOWER).decode()
    else:
        lowered = " " + view.translate(SCAN_TABLE).lower() + " "
        if len(lowered) != len(view) + 2:
            scanned = " " + view.translate(SCAN_TABLE) + " "
            lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in scanned)
        lowered = "".join(c if c.isalnum() else " " for c in lowered)
    size = len(lowered) - 1
    hits: list[tuple[int, int, str]] = []
    passing: list[tuple[int, int]] = []
    claims: list[int] = []
    add = hits.append
    for last, (length, slug, exact, cue) in automaton.iter_long(lowered):
        end = last + 1
        if lowered[end] != " ":
            continue
        start = end - length
        if cue:
            if cue == CUE_CLAIM:
                claims.append(start - 1)
            else:
                after = end - 1
                while after < len(view) and view[after] in ".,":
                    after += 1
                stops = ".;:" if cue == CUE_PASSING else ".;:,"
                passing.append((end - 1, _clause_end(view, after, stops, end - 1 + PASSING_REACH)))
            continue
        if exact is not None:
            found = exact.get(view[start - 1 : end - 1].translate(SCAN_TABLE))
            if found is not None:
                add((start - 1, end - 1, found))
                continue
        if slug is not None:
            add((start - 1, end - 1, slug))
    passing += _asides(view)
    central = _central_sentences(view, claims)
    weak, strong = _union(passing), _union(central)
    weak.append((size, size))
    strong.append((size, size))
    i = j = 0
    low, high = weak[0]
    claim_low, claim_high = strong[0]
    weighted: list[tuple[int, int, str, float]] = []
    groups: dict[str, list[Hit]] = {}
    keep = weighted.append
    for start, end, slug in hits:
        while high <= start:
            i += 1
            low, high = weak[i]
        if low <= start:
            weight = PASSING_WEIGHT
        else:
            while claim_high <= start:
                j += 1
                claim_low, claim_high = strong[j]
            weight = CLAIM_WEIGHT if claim_low <= start else 1.0
        if marks:
            start, end = _original(start, marks, shifts), _original(end - 1, marks, shifts) + 1
        hit = (start, end, slug, weight)
        keep(hit)
        group = groups.get(slug)
        if group is None:
            groups[slug] = [hit]
        else:
            group.append(hit)
    return Scan(weighted, groups, view, passing, central, marks, shifts)


def defined_acronyms(text: str, hits: Sequence[tuple]) -> dict[str, str]:
    """Acronyms the abstract defines right after a matched long form, mapped to its topic.

    `Sparse Mixture of Experts (SMoE)`: the acronym follows the long form (at most three
    more words in between) and its letters contain the long form's initials in order.
    """
    out: dict[str, str] = {}
    paren = text.find("(")
    if paren < 0:
        return out
    ends: list[int] | None = None
    while paren >= 0:
        if not text[paren + 1 : paren + 2].isalpha():
            paren = text.find("(", paren + 1)
            continue
        if ends is None:
            ends = [hit[1] for hit in hits]
        index = bisect.bisect_right(ends, paren) - 1
        if index >= 0 and paren - ends[index] <= 48:
            hit = hits[index]
            found = _defined_at(text, hit[0], hit[1], paren)
            if found and found not in out:
                out[found] = hit[2]
        paren = text.find("(", paren + 1)
    return out


def _defined_at(text: str, start: int, end: int, paren: int) -> str | None:
    """The acronym in the parenthesis at `paren` if it abbreviates `text[start:paren]`."""
    close = text.find(")", paren, paren + 20)
    if close < 0:
        return None
    acronym = text[paren + 1 : close].strip()
    if acronym.endswith("s") and acronym[:-1].isupper():
        acronym = acronym[:-1]
    if not _ACRONYM_SHAPE.fullmatch(acronym) or sum(map(str.isupper, acronym)) < 2:
        return None
    if len(text[end:paren].split()) > 3:
        return None
    wanted = initials(_WORD.findall(text, start, paren))
    if wanted and _subsequence(wanted, _NOT_LETTER.sub("", acronym.upper())):
        return acronym
    return None


def _subsequence(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(c in it for c in needle)


def acronym_spans(text: str, acronym: str) -> list[Span]:
    spans: list[Span] = []
    start = text.find(acronym)
    while start != -1:
        end = start + len(acronym)
        if end < len(text) and text[end] == "s":
            end += 1
        if _bounded(text, start, end):
            spans.append((start, end))
        start = text.find(acronym, start + 1)
    return spans


def match_topics(
    text: str,
    vocabulary: Vocabulary,
    *,
    max_topics: int = 8,
    extra: Mapping[str, Iterable[Span]] | None = None,
) -> list[TopicMatch]:
    """The abstract's topics, best first, at most `max_topics`, each with its evidence.

    `extra` adds topics found by other means (a benchmark contribution is evaluation); they
    are kept whatever their score, since what found them already judged them central.
    """
    if not text:
        return []
    scanned = scan(text, vocabulary)
    groups = scanned.groups
    touched: set[str] = set()
    for acronym, slug in defined_acronyms(text, scanned.hits).items():
        if acronym not in vocabulary.compiled:
            _add(groups, slug, acronym_spans(text, acronym), scanned, touched)
    for slug, found in (extra or {}).items():
        if slug in vocabulary.topics:
            _add(groups, slug, found, scanned, touched)
    _infer(groups, vocabulary, touched)
    asserted = extra.keys() if extra else ()
    labels = vocabulary.topics
    ranked = _rank(groups, vocabulary, len(text), touched)
    redundant = _subsumed(ranked, vocabulary.subsumers)
    out: list[TopicMatch] = []
    for score, _, slug in ranked:
        if len(out) == max_topics or (score < MIN_SCORE and not asserted):
            break
        if (score >= MIN_SCORE or slug in asserted) and slug not in redundant:
            group = groups[slug]
            if slug in touched:
                evidence = tuple(sorted({(h[0], h[1]) for h in group}))
            else:
                evidence = tuple([(h[0], h[1]) for h in group])
            out.append(TopicMatch(slug, labels[slug].label, evidence, score))
    return out


def _subsumed(
    ranked: list[tuple[float, int, str]], subsumers: Mapping[str, frozenset[str]]
) -> set[str]:
    """Topics that a topic being tagged already says (an LLM agent is an LLM)."""
    if not subsumers:
        return set()
    tagged = {slug for score, _, slug in ranked if score >= MIN_SCORE}
    return {slug for slug in tagged & subsumers.keys() if not subsumers[slug].isdisjoint(tagged)}


def _add(
    groups: dict[str, list[Hit]],
    slug: str,
    spans: Iterable[Span],
    scanned: Scan,
    touched: set[str],
) -> None:
    items = groups.setdefault(slug, [])
    have = {(h[0], h[1]) for h in items}
    for start, end in spans:
        if (start, end) not in have:
            items.append((start, end, slug, scanned.weight(start)))
            touched.add(slug)


def _infer(groups: dict[str, list[Hit]], vocabulary: Vocabulary, touched: set[str]) -> None:
    """Add implied broader topics, then resolve context-dependent ones (`combines`).

    Context means the topics named in `combines` themselves, not topics below them: an
    abstract on test-time scaling is not thereby about LLM training.
    """
    for slug, broader in vocabulary.implications.items():
        if slug in groups:
            for other in broader:
                groups.setdefault(other, []).extend(groups[slug])
                touched.add(other)
    for slug, part, context, keeps in vocabulary.combinations:
        if part in groups and not context.isdisjoint(groups):
            found = groups[part] if keeps else groups.pop(part)
            groups.setdefault(slug, []).extend(found)
            touched.add(slug)


def _rank(
    groups: dict[str, list[Hit]], vocabulary: Vocabulary, length: int, touched: set[str]
) -> list[tuple[float, int, str]]:
    """`(score, -first position, slug)` per topic, best first (earlier first on a tie)."""
    weights = vocabulary.weights
    below = vocabulary.descendants
    out = []
    log = math.log
    for slug, items in groups.items():
        weight, generic = weights[slug]
        if generic and not below[slug].isdisjoint(groups):
            weight *= 0.6
        if len(items) == 1:
            mass, first = items[0][3], items[0][0]
        else:
            mass = sum([h[3] for h in items])
            first = min([h[0] for h in items]) if slug in touched else items[0][0]
        frequency = 1.0 + log(mass) if mass >= 1 else mass
        out.append((weight * (frequency + 0.5 - 0.5 * first / length), -first, slug))
    out.sort(reverse=True)
    return out
