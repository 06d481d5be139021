"""Topic tags: which vocabulary topics an abstract is about, and the words that say so.

Matching scans a copy of the abstract that is lower-cased, has every character other than
a letter or digit replaced by a space, and has the same length as the original, so every
hit is already a span of the original text (runs of whitespace, as in wrapped BibTeX
abstracts, are squeezed first and mapped back). Spelling variants (plural, joined or
hyphenated, British or American) were expanded when the vocabulary was compiled, so the
text itself is never rewritten word by word. Hits are whole words; where they overlap the
leftmost, then longest, wins ("sparse mixture of experts", not "mixture of experts").

An acronym the abstract defines after a matched long form ("Sparse Mixture of Experts
(SMoE)") or inside one ("Key-Value (KV) cache") carries the long form's topic to its later
uses, even when the vocabulary does not know the acronym.

Ranking weighs each mention (more in the first sentence or where the authors state their
aim, less after "e.g." or "unlike", after "than" up to the task compared on, or inside a
parenthetical aside), sums them with diminishing returns, favours early mentions, and
multiplies by specificity: a generic topic ("machine learning", "optimization") weighs
less, and less again when a topic below it is also present. A real title counts as one
more central mention of the topics it names. A topic that a tagged topic subsumes (LLMs
beside LLM agents) is not tagged. Mentions are weighed and grouped during the one pass of
the automaton: cues come before the mentions they reach, and a claim found later in a
sentence raises the weight of the sentence's earlier mentions.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Final, NamedTuple, Protocol, TypeVar

from bib.extract.vocabulary import (
    COMPARISON_SETTINGS,
    CUE_CLAIM,
    CUE_COMPARISON,
    CUE_CONTRAST,
    CUE_PASSING,
    FUNCTION_WORDS,
    SCAN_TABLE,
    CompiledTopics,
    TopicKey,
    Vocabulary,
    initials,
    word_view,
)
from bib.record import Span

_ACRONYM_SHAPE: Final = re.compile(r"[A-Za-z][A-Za-z0-9\-]{0,15}")

_WHITESPACE_RUN: Final = re.compile(r"\s{2,}")

_WORD: Final = re.compile(r"[A-Za-z0-9]+")
PASSING_REACH: Final = 100
"""How far (characters) a cue such as `e.g.` or `unlike` reaches forward."""
PASSING_WEIGHT: Final = 0.4
"""A topic named after `e.g.`, `unlike`, `than` ... is mentioned, not studied."""
CLAIM_WEIGHT: Final = 1.3
"""A topic named in the first sentence or where the authors state their aim is central."""
_CLAUSE_STOPS: Final = {
    CUE_PASSING: re.compile(r"[.;:)]"),
    CUE_CONTRAST: re.compile(r"[.;:,)]"),
    CUE_COMPARISON: re.compile(r"[.;:,)]| (?:" + "|".join(COMPARISON_SETTINGS) + ") "),
}
"""Where a cue's reach ends: the clause, and for a comparison also where its setting starts."""
ASIDE_REACH: Final = 160
"""A parenthesis longer than this (characters) is a clause, not an aside, gloss or acronym."""
BRIDGE_REACH: Final = 40
"""How far (characters) a long form interrupted by an acronym may reach on either side."""
TITLE_WEIGHT: Final = CLAIM_WEIGHT
"""A topic the paper's title names counts one more central mention."""
MIN_SCORE = 1.1
"""Below this a topic is a passing mention, not what the paper is about."""


class TopicMatch(NamedTuple):
    """A topic of an abstract (a named tuple: cheap to make for every record)."""

    slug: str
    label: str
    evidence: tuple[Span, ...]
    score: float
    loose: bool = False
    """The paper is not about it (`is_about`): with `match_topics(loose=True)`, a topic
    that a list's generic topics may leave out (bib.extract.generic)."""


def _bounded(text: str, start: int, end: int) -> bool:
    return (start == 0 or not text[start - 1].isalnum()) and (
        end == len(text) or not text[end].isalnum()
    )


def _whole(view: str, start: int, end: int) -> bool:
    """Whether `view[start:end]` is whole words when non-ASCII letters count as letters: the
    byte-table scan reads every non-ASCII character as a space, and would find `LLM` in
    `ÜnïLLM`."""
    if (start and view[start - 1].isalnum()) or (end < len(view) and view[end].isalnum()):
        return False
    found = view[start:end]
    return found.isascii() or not any(c.isalnum() for c in found if not c.isascii())


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


Hit = tuple[int, int, str]
"""A mention of a topic: `(start, end, slug)`. Plain tuples: a record makes a dozen, and an
object with named fields cost four times as much to make as the tuple."""


@dataclass(slots=True)
class Scan:
    """One pass over an abstract: topic hits and what weighs each mention.

    The mentions are kept by topic as two lists in step, their spans and their weights, so
    that a topic's evidence is its list of spans and its mass the sum of its weights, with
    no object per mention to read them from."""

    hits: list[Hit]
    """Whole-word hits, leftmost-longest, in original offsets."""
    spans: dict[str, list[Span]]
    """The spans of each topic's hits, in order."""
    weights: dict[str, list[float]]
    """How much each of those hits says the paper is about the topic (`spans`' order)."""
    view: str
    """The text the offsets were found in (the abstract, whitespace runs squeezed)."""
    passing: list[tuple[int, int]]
    """`[start, end)` where mentions are passing (after a cue, in an aside), view offsets."""
    central: list[tuple[int, int]]
    """`[start, end)` of the sentences that are the first or state the authors' aim."""
    marks: list[int]
    shifts: list[int]
    acronyms: dict[str, str]
    """Acronyms the abstract defines, mapped to their long form's topic."""
    intervals: tuple[Intervals, Intervals] | None = None
    """`passing` and `central` as `Intervals`, made when first asked."""

    def weight(self, position: int) -> float:
        """How much a mention at `position` (original offset) says the paper is about it."""
        if self.marks:
            position = _to_view(position, self.marks, self.shifts)
        if self.intervals is None:
            self.intervals = (Intervals(self.passing), Intervals(self.central))
        return _weight(position, *self.intervals)


_SPAN: Final[Callable[[Hit], tuple[int, int]]] = itemgetter(0, 1)
_SLUG: Final[Callable[[TopicMatch], str]] = attrgetter("slug")


class Intervals:
    """Half-open spans `[low, high)`, possibly overlapping, asked whether a position lies in
    one: a search among the lows sorted, and the highest high up to each, answers in
    logarithmic time (a mention weighed against every span made long texts quadratic)."""

    __slots__ = ("lows", "reach")

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self.lows = [low for low, _ in ordered]
        self.reach: list[int] = []
        top = -1
        for _, high in ordered:
            top = max(top, high)
            self.reach.append(top)

    def __contains__(self, position: int) -> bool:
        k = bisect.bisect_right(self.lows, position) - 1
        return k >= 0 and self.reach[k] > position


def _weight(position: int, passing: Intervals, central: Intervals) -> float:
    """The weight of a mention at `position` (view offset), from the spans that set it."""
    if position in passing:
        return PASSING_WEIGHT
    if position in central:
        return CLAIM_WEIGHT
    return 1.0


def _to_view(position: int, marks: list[int], shifts: list[int]) -> int:
    """The squeezed text's offset of an original `position` (see `_squeeze`): after the
    last mark whose original offset (`mark + shift`) it reaches, less that mark's shift."""
    k = bisect.bisect_right(range(len(marks)), position, key=lambda i: marks[i] + shifts[i]) - 1
    return position - shifts[k] if k >= 0 else position


def _clause_end(view: str, start: int, stops: re.Pattern[str], limit: int) -> int:
    found = stops.search(view, start, limit)
    return found.start() if found else min(limit, len(view))


def _sentence_end(view: str, position: int) -> int:
    end = view.find(". ", position)
    return len(view) if end < 0 else end + 1


def _parentheses(
    view: str, compiled: CompiledTopics
) -> tuple[list[tuple[int, int]], list[tuple[int, int, str]]]:
    """Read every short parenthesis once: the asides, and the acronyms that may be defined.

    An aside is an example, a list or a gloss ("tasks (instruction following, arithmetic
    reasoning)"): its mentions are passing. A name spelled out after the name (`S2L-PO
    (Small-to-Large Policy Optimization)`) is the authors' own description, not an aside.
    A parenthesis holding one acronym-shaped word unknown to the vocabulary may define it
    (see `_acronyms`).
    """
    asides: list[tuple[int, int]] = []
    acronyms: list[tuple[int, int, str]] = []
    opened = view.find("(")
    while opened >= 0:
        closed = view.find(")", opened + 1, opened + ASIDE_REACH)
        if closed <= opened + 1:
            opened = view.find("(", opened + 1)
            continue
        inner = view.find("(", opened + 1, closed)
        if inner >= 0:
            opened = inner
            continue
        content = view[opened + 1 : closed]
        if " " in content:
            if not content[0].isupper() or "," in content or not _is_gloss(content):
                asides.append((opened + 1, closed))
        else:
            asides.append((opened + 1, closed))
            acronym = content[:-1] if content[-1] == "s" and content[:-1].isupper() else content
            if (
                acronym[0].isalpha()
                and acronym not in compiled.abbreviations
                and _ACRONYM_SHAPE.fullmatch(acronym)
                and sum(map(str.isupper, acronym)) >= 2
            ):
                acronyms.append((opened, closed + 1, acronym))
        opened = view.find("(", closed + 1)
    return asides, acronyms


def _acronyms(
    view: str,
    lowered: str,
    candidates: list[tuple[int, int, str]],
    compiled: CompiledTopics,
    hits: list[Hit],
) -> tuple[dict[str, str], bool]:
    """The acronyms the abstract defines, mapped to their long form's topic, and whether
    `hits` changed.

    An acronym is defined after a matched long form (`Sparse Mixture of Experts (SMoE)`)
    or inside one (`Key-Value (KV) cache`, found here and added to `hits`); either way its
    later uses count for the long form's topic.
    """
    acronyms: dict[str, str] = {}
    changed = False
    ends: list[int] | None = None
    for opened, closed, acronym in candidates:
        if ends is None:
            ends = [end for _, end, _ in hits]
        index = bisect.bisect_right(ends, opened) - 1
        if index >= 0 and opened - ends[index] <= 48 and view.find(acronym, closed) >= 0:
            start, end, slug = hits[index]
            if len(view[end:opened].split()) <= 3 and _abbreviates(acronym, view, start, opened):
                acronyms.setdefault(acronym, slug)
                continue
        found = _bridge(view, lowered, opened, closed, compiled, hits)
        if found is not None:
            ends = None
            changed = True
            if _abbreviates(acronym, view, found[0], opened):
                acronyms.setdefault(acronym, found[2])
    return acronyms, changed


def _is_gloss(content: str) -> bool:
    words = content.split()
    return len(words) > 1 and all(w[0].isupper() or w in FUNCTION_WORDS for w in words)


def _abbreviates(acronym: str, view: str, start: int, end: int) -> bool:
    """Whether the acronym's letters contain the initials of `view[start:end]` in order."""
    wanted = initials(_WORD.findall(view, start, end))
    if not wanted:
        return False
    letters = iter(acronym.upper())
    return all(c in letters for c in wanted)


def _bridge(
    view: str,
    lowered: str,
    opened: int,
    closed: int,
    compiled: CompiledTopics,
    hits: list[Hit],
) -> Hit | None:
    """The long form that the parenthesis `view[opened:closed]` interrupts, if any, added
    to `hits` (spanning the parenthesis, replacing hits inside it).

    Only words that can go on in a vocabulary phrase on both sides are read again, so this
    costs next to nothing on most parentheses.
    """
    before = lowered.rfind(" ", 0, opened)
    if lowered[before + 1 : opened + 1].strip() not in compiled.continued:
        return None
    after = closed + 1
    while lowered[after] == " " and after < len(lowered) - 1:
        after += 1
    tail = lowered.find(" ", after)
    if tail < 0 or lowered[after:tail] not in compiled.continuing:
        return None
    left = lowered.rfind(" ", 0, max(before - BRIDGE_REACH, 0)) + 1
    head = lowered[left : opened + 1].strip(" ")
    left = lowered.find(head, left)
    cut = lowered.rfind(" ", tail, after + BRIDGE_REACH)
    joined = " " + head + " " + lowered[after : max(cut, tail)] + " "
    gap = len(head) + 1
    for last, (length, slug, _, cue) in compiled.automaton.iter_long(joined):
        end = last + 1
        start = end - length
        if cue or slug is None or start >= gap or end <= gap + 1 or joined[end] != " ":
            continue
        hit = (left + start - 2, after + end - gap - 2, slug)
        low, high = hit[0], hit[1]
        kept = [h for h in hits if h[1] <= low or h[0] >= high]
        hits[:] = sorted([*kept, hit], key=_SPAN)
        return hit
    return None


def scan(text: str, vocabulary: Vocabulary, text_view: str | None = None) -> Scan:
    """Find every vocabulary phrase and weighing cue in one pass of the automaton.

    The scanned text is the abstract lower-cased with every other character than a letter or
    digit as a space, padded with a space at both ends: a key (which starts with a space)
    can only match where a word starts, and a match is a whole word when a space follows.
    `text_view`: `word_view(text)`, when the caller made it already.
    """
    automaton = vocabulary.compiled.automaton
    marks: list[int] = []
    shifts: list[int] = []
    view = text
    if ("  " in text or "\n" in text or "\t" in text) and _WHITESPACE_RUN.search(text):
        view, marks, shifts = _squeeze(text)
    odd = not view.isascii()
    if not odd or vocabulary.compiled.ascii:
        if text_view is None or marks:
            text_view = word_view(view)
        lowered = text_view + " "
    else:
        odd = False
        lowered = " " + view.translate(SCAN_TABLE).lower() + " "
        if len(lowered) != len(view) + 2:
            scanned = " " + view.translate(SCAN_TABLE) + " "
            lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in scanned)
        lowered = "".join(c if c.isalnum() else " " for c in lowered)
    asides: list[tuple[int, int]] = []
    candidates: list[tuple[int, int, str]] = []
    if "(" in view:
        asides, candidates = _parentheses(view, vocabulary.compiled)
    first = _sentence_end(view, 0)
    central = [(0, first)]
    claimed = first  # mentions before this offset (unless passing) are in a central sentence
    reach = -1  # mentions before this offset are passing: cues come before what they reach
    claim_opening = claim_closing = -1  # the sentence of the last claim
    raised = 0  # the hits before this index have been raised by a claim in that sentence
    asides.append((len(view), len(view)))
    aside, (aside_start, aside_end) = 0, asides[0]
    hits: list[Hit] = []
    spans: dict[str, list[Span]] = {}
    weights: dict[str, list[float]] = {}
    passing: list[tuple[int, int]] = []
    # typed, so that compiled code reads each hit's fields without asking the objects
    found_keys: Iterator[tuple[int, TopicKey]] = automaton.iter_long(lowered)
    for last, (length, slug, exact, cue) in found_keys:
        # the key ends at `lowered[last]`, so the phrase is `view[last - length : last]`
        if lowered[last + 1] != " ":
            continue
        start = last - length
        if cue:
            if cue == CUE_CLAIM:
                # a sentence's bounds are found once, and its mentions raised once: a
                # paragraph repeating a claim costs linear time
                if start >= claim_closing:
                    opening = view.rfind(". ", 0, start)
                    claim_opening = 0 if opening < 0 else opening + 2
                    claim_closing = _sentence_end(view, start)
                    central.append((claim_opening, claim_closing))
                    claimed = max(claimed, claim_closing)
                    raised = 0
                # a topic's weights are in the order of its hits, so the hit `k` is the
                # one `later[slug]` from the end of them
                k = len(hits) - 1
                later: dict[str, int] = {}
                while k >= raised and hits[k][0] >= claim_opening:
                    mentioned = hits[k][2]
                    back = later[mentioned] = later.get(mentioned, 0) + 1
                    mentions = weights[mentioned]
                    if mentions[-back] == 1.0:
                        mentions[-back] = CLAIM_WEIGHT
                    k -= 1
                raised = len(hits)
            else:
                after = last
                while after < len(view) and view[after] in ".,":
                    after += 1
                stop = _clause_end(view, after, _CLAUSE_STOPS[cue], last + PASSING_REACH)
                passing.append((last, stop))
                reach = max(reach, stop)
            continue
        if odd and not _whole(view, start, last):
            continue
        if exact is not None:
            written = view[start:last]
            found = exact.get(written)
            if found is None and not written.isalnum():
                found = exact.get(written.translate(SCAN_TABLE))
            if found is not None:
                slug = found
            elif slug is None:
                continue
        elif slug is None:
            continue
        if start < reach:
            weight = PASSING_WEIGHT
        else:
            while aside_end <= start:
                aside += 1
                aside_start, aside_end = asides[aside]
            if aside_start <= start:
                weight = PASSING_WEIGHT
            else:
                weight = CLAIM_WEIGHT if start < claimed else 1.0
        hits.append((start, last, slug))
        own = spans.get(slug)
        if own is None:
            spans[slug] = [(start, last)]
            weights[slug] = [weight]
        else:
            own.append((start, last))
            weights[slug].append(weight)
    asides.pop()
    passing += asides
    acronyms: dict[str, str] = {}
    if candidates:
        acronyms, changed = _acronyms(view, lowered, candidates, vocabulary.compiled, hits)
        if changed:
            spans, weights = {}, {}
            intervals = Intervals(passing), Intervals(central)
            for start, end, slug in hits:
                spans.setdefault(slug, []).append((start, end))
                weights.setdefault(slug, []).append(_weight(start, *intervals))
    if marks:
        hits = [
            (_original(start, marks, shifts), _original(end - 1, marks, shifts) + 1, slug)
            for start, end, slug in hits
        ]
        spans = {}
        for start, end, slug in hits:
            spans.setdefault(slug, []).append((start, end))
    return Scan(hits, spans, weights, view, passing, central, marks, shifts, acronyms)


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


class _Topical(Protocol):
    """A topic with its evidence: a `TopicMatch`, or a topic `Tag` (`value` its slug)."""

    @property
    def evidence(self) -> tuple[Span, ...]: ...


Topical = TypeVar("Topical", bound=_Topical)


def match_topics(
    text: str,
    vocabulary: Vocabulary,
    *,
    max_topics: int = 8,
    extra: Mapping[str, Iterable[Span]] | None = None,
    title: str = "",
    view: str | None = None,
    loose: bool = False,
) -> list[TopicMatch]:
    """The abstract's topics, best first, at most `max_topics`, each with its evidence.

    `extra` adds topics found by other means (a benchmark contribution is evaluation); they
    are kept whatever their score, since what found them already judged them central.
    `title` is the paper's own title (not one derived from the abstract): a topic it names
    ranks higher, as if the abstract stated it as its aim once more. A topic only the title
    names is not tagged, since its evidence must point into the abstract. `view`:
    `word_view(text)`, when the caller made it already.

    Generic topics (`generic` in the vocabulary) the paper is not about are left out. With
    `loose`, which topics are generic is the list's to say (bib.extract.generic): every
    topic the paper is not about is kept, marked `loose`, beyond the `max_topics` that are
    not, and nothing is cut yet; `select` then gives what this call gives without `loose`
    for any set of generic topics.
    """
    return topics_made(
        TopicMatch,
        _SLUG,
        text,
        vocabulary,
        max_topics=max_topics,
        extra=extra,
        title=title,
        view=view,
        loose=loose,
    )


def topics_made(
    make: Callable[[str, str, tuple[Span, ...], float, bool], Topical],
    slug_of: Callable[[Topical], str],
    text: str,
    vocabulary: Vocabulary,
    *,
    max_topics: int = 8,
    extra: Mapping[str, Iterable[Span]] | None = None,
    title: str = "",
    view: str | None = None,
    loose: bool = False,
) -> list[Topical]:
    """`match_topics`, each topic made by `make(slug, label, evidence, score, loose)` (whose
    slug `slug_of` reads back): the tagging stage makes its tags straight away, where a
    `TopicMatch` made first and a tag made from it cost one object more per topic."""
    if not text:
        return []
    scanned = scan(text, vocabulary, view)
    spans, weights = scanned.spans, scanned.weights
    touched: set[str] = set()
    for acronym, slug in scanned.acronyms.items():
        own = spans[slug]
        found = [s for s in acronym_spans(text, acronym) if not _inside(s, own)]
        _add(scanned, slug, found, touched)
    for slug, given in (extra or {}).items():
        if slug in vocabulary.topics:
            _add(scanned, slug, given, touched)
    _infer(spans, weights, vocabulary, touched)
    asserted = extra.keys() if extra else ()
    labels = vocabulary.topics
    titled = _title_topics(title, vocabulary, spans) if title else ()
    ranked = _rank(spans, weights, vocabulary, len(text), touched, titled)
    tagged = {slug for score, _, slug in ranked if score >= MIN_SCORE}
    redundant = _subsumed(tagged, vocabulary.subsumers)
    if loose:
        unsure = _not_about(tagged, tagged, vocabulary, weights, titled)
    else:
        unsure = set()
        if not vocabulary.generic.isdisjoint(tagged):
            redundant |= _demoted(tagged, vocabulary, weights, titled)
    out: list[Topical] = []
    firm = 0
    for score, _, slug in ranked:
        if firm == max_topics or (score < MIN_SCORE and not asserted):
            break
        if (score >= MIN_SCORE or slug in asserted) and slug not in redundant:
            own = spans[slug]
            evidence = tuple(sorted(set(own))) if slug in touched else tuple(own)
            unsure_here = slug in unsure
            out.append(make(slug, labels[slug].label, evidence, score, unsure_here))
            firm += not unsure_here
    if loose:
        return out
    return most_specific(out, vocabulary, slug_of) if len(out) > 1 else out


def select(
    found: Sequence[Topical],
    generic: Collection[str],
    vocabulary: Vocabulary,
    max_topics: int,
    slug_of: Callable[[Topical], str],
    loose_of: Callable[[Topical], bool],
) -> list[Topical]:
    """What `match_topics` without `loose` keeps of what it gives with `loose` (`found`,
    best first) when the topics in `generic` are generic: the loose ones among them left
    out, at most `max_topics`, then `most_specific`."""
    kept = [t for t in found if not (loose_of(t) and slug_of(t) in generic)][:max_topics]
    return most_specific(kept, vocabulary, slug_of) if len(kept) > 1 else kept


def most_specific(
    found: list[Topical],
    vocabulary: Vocabulary,
    slug_of: Callable[[Topical], str] = attrgetter("slug"),
) -> list[Topical]:
    """The topics without those that only a more specific one found says: a topic above
    another tagged topic whose every span is that topic's words (PEFT from `LoRA`, AI
    safety from `jailbreak`) is implied by the tree, and `--with-parents` brings it back.
    A broader topic that the abstract names in its own words stays."""
    descendants = vocabulary.descendants
    slugs = [slug_of(match) for match in found]
    kept = []
    # indices, not `zip(..., strict=True)`: compiled, that zip is a generic call
    for index, match in enumerate(found):
        below = descendants[slugs[index]]
        if not below.isdisjoint(slugs):
            cover = [
                s for other, o in enumerate(found) if slugs[other] in below for s in o.evidence
            ]
            if _covered(match.evidence, cover):
                continue
        kept.append(match)
    return kept


def _covered(spans: Iterable[Span], cover: list[Span]) -> bool:
    """Whether every span lies within one of `cover` (plain loops: no generator frame made
    for each span)."""
    for start, end in spans:
        for low, high in cover:
            if low <= start and end <= high:
                break
        else:
            return False
    return True


def _demoted(
    tagged: set[str],
    vocabulary: Vocabulary,
    weights: Mapping[str, list[float]],
    titled: Iterable[str],
) -> set[str]:
    """Generic topics (those that fit most papers of a list, `generic` in the vocabulary)
    that this paper is not about (`_not_about`)."""
    return _not_about(vocabulary.generic & tagged, tagged, vocabulary, weights, titled)


def _not_about(
    slugs: Iterable[str],
    tagged: Collection[str],
    vocabulary: Vocabulary,
    weights: Mapping[str, list[float]],
    titled: Iterable[str],
) -> set[str]:
    """The topics of `slugs` this paper is not about: a more specific topic below it is
    `tagged`, or neither the title names it nor does the abstract name it at least twice,
    once where it states its aim (the first sentence or a `we propose`-like claim).
    `weights`: each topic's mentions' weights (`Scan.weights`)."""
    out = set()
    for slug in slugs:
        below = vocabulary.descendants[slug]
        if not below.isdisjoint(tagged):
            out.add(slug)
            continue
        mentions = weights[slug]
        if slug not in titled and not (CLAIM_WEIGHT in mentions and len(mentions) >= 2):
            out.add(slug)
    return out


def _inside(span: Span, spans: Iterable[Span]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in spans)


def _subsumed(tagged: set[str], subsumers: Mapping[str, frozenset[str]]) -> set[str]:
    """The `tagged` topics that a tagged topic already says (an LLM agent is an LLM)."""
    return {slug for slug in subsumers.keys() & tagged if not subsumers[slug].isdisjoint(tagged)}


def _add(scanned: Scan, slug: str, found: Iterable[Span], touched: set[str]) -> None:
    """Add the mentions at `found` to the topic's, but for those it has."""
    own = scanned.spans.setdefault(slug, [])
    mentions = scanned.weights.setdefault(slug, [])
    have = set(own)
    for start, end in found:
        if (start, end) not in have:
            own.append((start, end))
            mentions.append(scanned.weight(start))
            touched.add(slug)


def _infer(
    spans: dict[str, list[Span]],
    weights: dict[str, list[float]],
    vocabulary: Vocabulary,
    touched: set[str],
) -> None:
    """Add implied broader topics, then resolve context-dependent ones (`combines`).

    Context means the topics named in `combines` themselves, not topics below them: an
    abstract on test-time scaling is not thereby about LLM training.
    """
    implications = vocabulary.implications
    if not implications.keys().isdisjoint(spans):
        for slug, broader in implications.items():
            if slug in spans:
                for other in broader:
                    spans.setdefault(other, []).extend(spans[slug])
                    weights.setdefault(other, []).extend(weights[slug])
                    touched.add(other)
    for slug, part, context, keeps in vocabulary.combinations:
        if part in spans and not context.isdisjoint(spans):
            if keeps:
                found, mentions = spans[part], weights[part]
            else:
                found, mentions = spans.pop(part), weights.pop(part)
            spans.setdefault(slug, []).extend(found)
            weights.setdefault(slug, []).extend(mentions)
            touched.add(slug)


def _title_topics(title: str, vocabulary: Vocabulary, spans: Mapping[str, list[Span]]) -> set[str]:
    """The abstract's topics that the title names too (or a topic that implies them)."""
    named = {slug for _, _, slug in scan(title, vocabulary).hits}
    implications = vocabulary.implications
    for slug in list(named):
        named.update(implications.get(slug, ()))
    for slug, part, _, _ in vocabulary.combinations:
        if part in named:
            named.add(slug)
    return named & spans.keys()


def _rank(
    spans: dict[str, list[Span]],
    weights: Mapping[str, list[float]],
    vocabulary: Vocabulary,
    length: int,
    touched: set[str],
    titled: Iterable[str] = (),
) -> list[tuple[float, int, str]]:
    """`(score, -first position, slug)` per topic, best first (earlier first on a tie)."""
    specificity, umbrellas = vocabulary.ranking
    below = vocabulary.descendants
    out = []
    late = 0.5 / length
    for slug, found in spans.items():
        weight = specificity[slug]
        if slug in umbrellas and not below[slug].isdisjoint(spans):
            weight *= 0.6
        mentions = weights[slug]
        if len(mentions) == 1:
            first, mass = found[0][0], mentions[0]
        else:
            # a plain loop, not `sum`: compiled, it adds floats with no call (the same sum)
            mass = 0.0
            for mention in mentions:
                mass += mention
            first = min(found)[0] if slug in touched else found[0][0]
        if titled and slug in titled:
            mass += TITLE_WEIGHT
        frequency = 1.0 + math.log(mass) if mass >= 1 else mass
        out.append((weight * (frequency + 0.5 - late * first), -first, slug))
    out.sort(reverse=True)
    return out
