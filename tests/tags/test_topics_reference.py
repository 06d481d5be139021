"""The topic ranking over plain tuples and lists gives what it gave over `Hit` objects.

`bib.extract.topics` keeps each topic's mentions as two lists in step (spans, weights) and
its hits as tuples, where it made a mutable `Hit` object per mention and grouped them by
topic (tagstage5). The code below is that earlier scan and ranking, kept as the reference:
`match_topics` must give what `plain_match_topics` gives, score and evidence alike, on
generated abstracts that mix vocabulary phrases, abbreviations, the cues that weigh a
mention, claims after the mentions they raise, parentheses that define acronyms or bridge
a long form, wrapped lines and non-ASCII letters.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bib.extract import topics
from bib.extract.topics import (
    _CLAUSE_STOPS,
    _WHITESPACE_RUN,
    BRIDGE_REACH,
    CLAIM_WEIGHT,
    MIN_SCORE,
    PASSING_REACH,
    PASSING_WEIGHT,
    TITLE_WEIGHT,
    Intervals,
    TopicMatch,
    _abbreviates,
    _clause_end,
    _original,
    _parentheses,
    _sentence_end,
    _squeeze,
    _subsumed,
    _to_view,
    _weight,
    _whole,
    acronym_spans,
    most_specific,
)
from bib.extract.vocabulary import (
    CUE_CLAIM,
    SCAN_TABLE,
    CompiledTopics,
    Vocabulary,
    shipped,
    word_view,
)
from bib.record import Span


@dataclass(slots=True)
class Hit:
    """A mention of a topic and how much it says (mutable: a claim later in the sentence
    raises the weight of the mentions before it)."""

    start: int
    end: int
    slug: str
    weight: float


_START: Callable[[Hit], int] = attrgetter("start")
"""With `map`, a group's first mention and its mass are found in C (a list comprehension
is a call of its own and a loop in Python)."""
_WEIGHT: Callable[[Hit], float] = attrgetter("weight")


def _hit_order(hit: Hit) -> tuple[int, int]:
    return hit.start, hit.end


@dataclass(slots=True)
class Scan:
    """One pass over an abstract: topic hits and what weighs each mention."""

    hits: list[Hit]
    """Whole-word hits, leftmost-longest, in original offsets."""
    groups: dict[str, list[Hit]]
    """The hits by topic, in order."""
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
    spans: tuple[Intervals, Intervals] | None = None
    """`passing` and `central` as `Intervals`, made when first asked."""

    def weight(self, position: int) -> float:
        """How much a mention at `position` (original offset) says the paper is about it."""
        if self.marks:
            position = _to_view(position, self.marks, self.shifts)
        if self.spans is None:
            self.spans = (Intervals(self.passing), Intervals(self.central))
        return _weight(position, *self.spans)


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
            ends = [hit.end for hit in hits]
        index = bisect.bisect_right(ends, opened) - 1
        if index >= 0 and opened - ends[index] <= 48 and view.find(acronym, closed) >= 0:
            start, end, slug = hits[index].start, hits[index].end, hits[index].slug
            if len(view[end:opened].split()) <= 3 and _abbreviates(acronym, view, start, opened):
                acronyms.setdefault(acronym, slug)
                continue
        found = _bridge(view, lowered, opened, closed, compiled, hits)
        if found is not None:
            ends = None
            changed = True
            if _abbreviates(acronym, view, found.start, opened):
                acronyms.setdefault(acronym, found.slug)
    return acronyms, changed


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
        hit = Hit(left + start - 2, after + end - gap - 2, slug, 1.0)
        kept = [h for h in hits if h.end <= hit.start or h.start >= hit.end]
        hits[:] = sorted([*kept, hit], key=_hit_order)
        return hit
    return None


def plain_scan(text: str, vocabulary: Vocabulary, text_view: str | None = None) -> Scan:
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
    groups: dict[str, list[Hit]] = {}
    passing: list[tuple[int, int]] = []
    for last, (length, slug, exact, cue) in automaton.iter_long(lowered):
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
                k = len(hits) - 1
                while k >= raised and hits[k].start >= claim_opening:
                    if hits[k].weight == 1.0:
                        hits[k].weight = CLAIM_WEIGHT
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
        hit = Hit(start, last, slug, weight)
        hits.append(hit)
        group = groups.get(slug)
        if group is None:
            groups[slug] = [hit]
        else:
            group.append(hit)
    asides.pop()
    passing += asides
    acronyms: dict[str, str] = {}
    if candidates:
        acronyms, changed = _acronyms(view, lowered, candidates, vocabulary.compiled, hits)
        if changed:
            groups = {}
            spans = Intervals(passing), Intervals(central)
            for hit in hits:
                hit.weight = _weight(hit.start, *spans)
                groups.setdefault(hit.slug, []).append(hit)
    if marks:
        for hit in hits:
            hit.end = _original(hit.end - 1, marks, shifts) + 1
            hit.start = _original(hit.start, marks, shifts)
    return Scan(hits, groups, view, passing, central, marks, shifts, acronyms)


def plain_match_topics(
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
    if not text:
        return []
    scanned = plain_scan(text, vocabulary, view)
    groups = scanned.groups
    touched: set[str] = set()
    for acronym, slug in scanned.acronyms.items():
        spans = acronym_spans(text, acronym)
        _add(groups, slug, [s for s in spans if not _inside(s, groups[slug])], scanned, touched)
    for slug, found in (extra or {}).items():
        if slug in vocabulary.topics:
            _add(groups, slug, found, scanned, touched)
    _infer(groups, vocabulary, touched)
    asserted = extra.keys() if extra else ()
    labels = vocabulary.topics
    titled = _title_topics(title, vocabulary, groups) if title else ()
    ranked = _rank(groups, vocabulary, len(text), touched, titled)
    tagged = {slug for score, _, slug in ranked if score >= MIN_SCORE}
    redundant = _subsumed(tagged, vocabulary.subsumers)
    if loose:
        unsure = _not_about(tagged, tagged, vocabulary, groups, titled)
    else:
        unsure = set()
        if not vocabulary.generic.isdisjoint(tagged):
            redundant |= _demoted(tagged, vocabulary, groups, titled)
    out: list[TopicMatch] = []
    firm = 0
    for score, _, slug in ranked:
        if firm == max_topics or (score < MIN_SCORE and not asserted):
            break
        if (score >= MIN_SCORE or slug in asserted) and slug not in redundant:
            group = groups[slug]
            if slug in touched:
                evidence = tuple(sorted({(h.start, h.end) for h in group}))
            else:
                evidence = tuple([(h.start, h.end) for h in group])
            unsure_here = slug in unsure
            out.append(TopicMatch(slug, labels[slug].label, evidence, score, unsure_here))
            firm += not unsure_here
    if loose:
        return out
    return most_specific(out, vocabulary) if len(out) > 1 else out


def _demoted(
    tagged: set[str],
    vocabulary: Vocabulary,
    groups: Mapping[str, list[Hit]],
    titled: Iterable[str],
) -> set[str]:
    """Generic topics (those that fit most papers of a list, `generic` in the vocabulary)
    that this paper is not about (`_not_about`)."""
    return _not_about(vocabulary.generic & tagged, tagged, vocabulary, groups, titled)


def _not_about(
    slugs: Iterable[str],
    tagged: Collection[str],
    vocabulary: Vocabulary,
    groups: Mapping[str, list[Hit]],
    titled: Iterable[str],
) -> set[str]:
    """The topics of `slugs` this paper is not about: a more specific topic below it is
    `tagged`, or neither the title names it nor does the abstract name it at least twice,
    once where it states its aim (the first sentence or a `we propose`-like claim)."""
    out = set()
    for slug in slugs:
        below = vocabulary.descendants[slug]
        if not below.isdisjoint(tagged):
            out.add(slug)
            continue
        hits = groups[slug]
        central = any(h.weight == CLAIM_WEIGHT for h in hits)
        if slug not in titled and not (central and len(hits) >= 2):
            out.add(slug)
    return out


def _inside(span: Span, hits: Iterable[Hit]) -> bool:
    return any(h.start <= span[0] and span[1] <= h.end for h in hits)


def _add(
    groups: dict[str, list[Hit]],
    slug: str,
    spans: Iterable[Span],
    scanned: Scan,
    touched: set[str],
) -> None:
    items = groups.setdefault(slug, [])
    have = {(h.start, h.end) for h in items}
    for start, end in spans:
        if (start, end) not in have:
            items.append(Hit(start, end, slug, scanned.weight(start)))
            touched.add(slug)


def _infer(groups: dict[str, list[Hit]], vocabulary: Vocabulary, touched: set[str]) -> None:
    """Add implied broader topics, then resolve context-dependent ones (`combines`).

    Context means the topics named in `combines` themselves, not topics below them: an
    abstract on test-time scaling is not thereby about LLM training.
    """
    implications = vocabulary.implications
    if not implications.keys().isdisjoint(groups):
        for slug, broader in implications.items():
            if slug in groups:
                for other in broader:
                    groups.setdefault(other, []).extend(groups[slug])
                    touched.add(other)
    for slug, part, context, keeps in vocabulary.combinations:
        if part in groups and not context.isdisjoint(groups):
            found = groups[part] if keeps else groups.pop(part)
            groups.setdefault(slug, []).extend(found)
            touched.add(slug)


def _title_topics(title: str, vocabulary: Vocabulary, groups: Mapping[str, list[Hit]]) -> set[str]:
    """The abstract's topics that the title names too (or a topic that implies them)."""
    named = {hit.slug for hit in plain_scan(title, vocabulary).hits}
    implications = vocabulary.implications
    for slug in list(named):
        named.update(implications.get(slug, ()))
    for slug, part, _, _ in vocabulary.combinations:
        if part in named:
            named.add(slug)
    return named & groups.keys()


def _rank(
    groups: dict[str, list[Hit]],
    vocabulary: Vocabulary,
    length: int,
    touched: set[str],
    titled: Iterable[str] = (),
) -> list[tuple[float, int, str]]:
    """`(score, -first position, slug)` per topic, best first (earlier first on a tie)."""
    weights, umbrellas = vocabulary.ranking
    below = vocabulary.descendants
    out = []
    log = math.log
    late = 0.5 / length
    for slug, items in groups.items():
        weight = weights[slug]
        if slug in umbrellas and not below[slug].isdisjoint(groups):
            weight *= 0.6
        if len(items) == 1:
            first, mass = items[0].start, items[0].weight
        else:
            mass = sum(map(_WEIGHT, items))
            first = min(map(_START, items)) if slug in touched else items[0].start
        if titled and slug in titled:
            mass += TITLE_WEIGHT
        frequency = 1.0 + log(mass) if mass >= 1 else mass
        out.append((weight * (frequency + 0.5 - late * first), -first, slug))
    out.sort(reverse=True)
    return out


VOCABULARY = shipped()


def _phrases(slugs: Iterable[str]) -> list[str]:
    found = (VOCABULARY.topics[slug] for slug in slugs if slug in VOCABULARY.topics)
    return sorted({p for t in found for p in (t.label, *t.synonyms, *t.abbreviations)})


RELATED = {
    *VOCABULARY.implications,
    *(slug for broader in VOCABULARY.implications.values() for slug in broader),
    *(slug for slug, part, _, _ in VOCABULARY.combinations for slug in (slug, part)),
    *(slug for _, _, context, _ in VOCABULARY.combinations for slug in sorted(context)[:4]),
    *VOCABULARY.generic,
    *VOCABULARY.subsumers,
    *(slug for found in VOCABULARY.subsumers.values() for slug in sorted(found)[:6]),
    *VOCABULARY.ranking[1],
}
"""Topics that the ranking treats apart: implied and implying, combined, generic, subsumed,
umbrellas; drawn often, so that one abstract names several of them."""
PIECES = st.one_of(
    st.sampled_from(_phrases(sorted(RELATED))),
    st.sampled_from(_phrases(VOCABULARY.topics)),
    st.sampled_from(
        [
            "We propose", "we study", "We revisit", "e.g.,", "such as", "including",
            "unlike", "instead of", "than", "outperforms", "compared with", "on", "in",
            "across", "the", "model", "data", "naïve", "Ünïcode", "x", "42",
            "Sparse Mixture of Experts (SMoE)", "SMoE", "Key-Value (KV) cache", "KV",
            "Retrieval-Augmented Generation (RAGX)", "RAGX", "(LoRA)", "(Tool-Use Agent)",
            "(instruction following, arithmetic reasoning)", "benchmark", "evaluation",
        ]
    ),
)  # fmt: skip
GLUE = st.sampled_from([" ", "  ", "\n    ", ", ", ". ", " (", ") ", "; ", "-", "\t", " é "])


@st.composite
def abstracts(draw: st.DrawFn, most: int = 14) -> str:
    pieces = draw(st.lists(PIECES, min_size=1, max_size=most))
    glue = draw(st.lists(GLUE, min_size=len(pieces), max_size=len(pieces)))
    return "".join(p + g for p, g in zip(pieces, glue, strict=True))


@st.composite
def asserted(draw: st.DrawFn, text: str) -> dict[str, tuple[Span, ...]] | None:
    """Evaluation evidence as the tagging stage asserts it (a benchmark contribution)."""
    if not text or draw(st.booleans()):
        return None
    starts = draw(st.lists(st.integers(0, len(text) - 1), min_size=1, max_size=3))
    return {"evaluation": tuple((s, min(len(text), s + 5)) for s in starts)}


@settings(max_examples=400)
@given(abstracts())
@example("We compress the Key-Value (KV) cache. Our KV eviction halves the KV footprint.")
@example("Sparse Mixture of Experts (SMoE) scales.  SMoE\n  routing. We propose SMoE x.")
@example("LoRA adapters, e.g., GRPO. We study reinforcement learning for large language models.")
@example("Models differ. Model merging, then model merging again, as we propose here.")
def test_scan_keeps_each_topics_mentions_as_the_hit_objects_held_them(text: str) -> None:
    scanned, plain = topics.scan(text, VOCABULARY), plain_scan(text, VOCABULARY)
    assert scanned.hits == [(h.start, h.end, h.slug) for h in plain.hits]
    assert list(scanned.spans) == list(plain.groups) == list(scanned.weights)
    for slug, hits in plain.groups.items():
        assert scanned.spans[slug] == [(h.start, h.end) for h in hits]
        assert scanned.weights[slug] == [h.weight for h in hits]


@settings(max_examples=400)
@given(
    abstracts(), st.one_of(st.just(""), abstracts(4)), st.integers(0, 8), st.booleans(), st.data()
)
@example(
    "We propose GRPO for large language models. LoRA (e.g., PEFT) helps LLM agents.",
    "GRPO for LLM agents",
    8,
    False,
    None,
)
def test_topics_are_what_the_ranking_over_hit_objects_gives(
    text: str, title: str, most: int, loose: bool, data: st.DataObject | None
) -> None:
    extra = data.draw(asserted(text)) if data is not None else None
    view = word_view(text) if text.isascii() else None
    found = topics.match_topics(
        text, VOCABULARY, max_topics=most, extra=extra, title=title, view=view, loose=loose
    )
    assert found == plain_match_topics(
        text, VOCABULARY, max_topics=most, extra=extra, title=title, view=view, loose=loose
    )
