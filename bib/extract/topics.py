"""Topic tags: which vocabulary topics an abstract is about, and the words that say so.

Matching works on a folded copy of the abstract (lower case, hyphens and dashes as spaces)
that has the same length as the original, so every hit is already a span of the original
text. Spelling variants (plural, joined or hyphenated, British or American) were expanded
when the vocabulary was compiled, so the text itself is never rewritten word by word.
Hits must be whole words; where hits overlap the leftmost, then longest, wins ("sparse
mixture of experts" rather than "mixture of experts" and "experts").

An acronym the abstract defines after a matched long form ("Sparse Mixture of Experts
(SMoE)") carries the long form's topic to its later uses, even when the vocabulary does
not know the acronym.

Ranking weighs how often a topic is mentioned, how early, and how specific it is; a
generic topic ("machine learning", "optimization") loses weight when a more specific
topic below it in the tree is also present.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bib.extract.vocabulary import SEPARATORS, Vocabulary, fold, initials
from bib.record import Span

_ACRONYM = re.compile(
    r"((?:[\s\-]+[A-Za-z][\w\-]*){0,3}?)\s*\(\s*([A-Za-z][A-Za-z0-9\-]{0,15}?)(s)?\s*[);,]"
)

_SENTENCE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bal)[.!?](?=\s+[A-Z*\\\[(]|\s*$)")
_PASSING = re.compile(
    r"\b(?:e\.g\.?|such as|including|like|versus|vs\.?|baselines?)\b[^.;:]*$"
    r"|\b(?:unlike|compared (?:to|with)|than|instead of|rather than|outperform\w*|beyond|prior|"
    r"existing)\b[^.;:,]*$",
    re.IGNORECASE,
)
_CLAIM = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:\w+ly\s+)?(?:propose|introduce|present|develop|study|"
    r"investigate|address|formulate|formali[sz]e)",
    re.IGNORECASE,
)
PASSING_WEIGHT = 0.4
"""A topic named after `e.g.`, `unlike`, `than` ... is mentioned, not studied."""
CLAIM_WEIGHT = 1.3
"""A topic named in the first sentence or where the authors state their aim is central."""
MIN_SCORE = 1.1
"""Below this a topic is a passing mention, not what the paper is about."""
SPECIFICITY_WEIGHT = (0.25, 0.55, 0.85, 1.0, 1.1, 1.15)
"""Weight by specificity 0, 1, 2, ...: umbrella topics rank below specific ones."""


@dataclass(frozen=True, slots=True)
class TopicMatch:
    slug: str
    label: str
    evidence: tuple[Span, ...]
    score: float


def _word_char(ch: str) -> bool:
    return ch.isalnum()


def _bounded(text: str, start: int, end: int) -> bool:
    return (start == 0 or not _word_char(text[start - 1])) and (
        end == len(text) or not _word_char(text[end])
    )


def _collapse(folded: str) -> tuple[str, list[int]]:
    """Squeeze runs of whitespace to one space, keeping where each kept character came from."""
    out: list[str] = []
    where: list[int] = []
    previous_space = False
    for index, ch in enumerate(folded):
        space = ch == " "
        if space and previous_space:
            continue
        out.append(ch)
        where.append(index)
        previous_space = space
    where.append(len(folded))
    return "".join(out), where


def _folded_view(text: str) -> tuple[str, list[int] | None]:
    """The folded text and, when it is not the same length as `text`, an offset map."""
    folded = fold(text)
    if len(folded) != len(text):
        folded = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
        folded = folded.translate(str.maketrans({c: " " for c in SEPARATORS}))
    if "  " in folded:
        return _collapse(folded)
    return folded, None


def raw_hits(text: str, vocabulary: Vocabulary) -> list[tuple[int, int, str]]:
    """Every whole-word vocabulary hit as `(start, end, slug)`, overlaps resolved."""
    compiled = vocabulary.compiled
    folded, where = _folded_view(text)
    hits: list[tuple[int, int, str]] = []
    if len(compiled.folded):
        for end, (length, slug) in compiled.folded.iter(folded):
            start = end - length + 1
            if _bounded(folded, start, end + 1):
                if where is None:
                    hits.append((start, end + 1, slug))
                else:
                    hits.append((where[start], where[end] + 1, slug))
    if len(compiled.cased):
        for end, (length, slug) in compiled.cased.iter(text):
            start = end - length + 1
            if _bounded(text, start, end + 1):
                hits.append((start, end + 1, slug))
    hits.sort(key=lambda h: (h[0], h[0] - h[1]))
    kept: list[tuple[int, int, str]] = []
    reach = -1
    for hit in hits:
        if hit[0] >= reach:
            kept.append(hit)
            reach = hit[1]
    return kept


def defined_acronyms(text: str, hits: list[tuple[int, int, str]]) -> dict[str, str]:
    """Acronyms the abstract defines right after a matched long form, mapped to its topic."""
    out: dict[str, str] = {}
    for start, end, slug in hits:
        m = _ACRONYM.match(text, end)
        if not m:
            continue
        acronym = m.group(2)
        letters = "".join(c for c in acronym.upper() if c.isalpha())
        if sum(c.isupper() for c in acronym) < 2 or acronym in out:
            continue
        words = re.findall(r"[A-Za-z0-9]+", text[start : m.end(1)].lower())
        wanted = initials(words)
        if wanted and _subsequence(wanted, letters):
            out[acronym] = slug
    return out


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
    hits = raw_hits(text, vocabulary)
    spans: dict[str, set[Span]] = {}
    for start, end, slug in hits:
        spans.setdefault(slug, set()).add((start, end))
    for acronym, slug in defined_acronyms(text, hits).items():
        spans[slug].update(acronym_spans(text, acronym))
    for slug, found in (extra or {}).items():
        if slug in vocabulary.topics:
            spans.setdefault(slug, set()).update(found)
    _infer(spans, vocabulary)
    if not spans:
        return []
    scored = _rank(spans, vocabulary, text)
    asserted = set(extra or ())
    return [m for m in scored if m.score >= MIN_SCORE or m.slug in asserted][:max_topics]


def _infer(spans: dict[str, set[Span]], vocabulary: Vocabulary) -> None:
    """Add implied broader topics, then resolve context-dependent ones (`combines`).

    Context means the topics named in `combines` themselves, not topics below them: an
    abstract on test-time scaling is not thereby about LLM training.
    """
    for slug, broader in vocabulary.implications.items():
        if slug in spans:
            for other in broader:
                spans.setdefault(other, set()).update(spans[slug])
    for topic in vocabulary.combinations:
        part, *context = topic.combines
        if part not in spans or topic.slug == part:
            continue
        if any(c in spans for c in context):
            found = spans[part] if topic.keeps_parts else spans.pop(part)
            spans.setdefault(topic.slug, set()).update(found)


def _sentences(text: str) -> list[tuple[int, int, bool]]:
    """Sentence bounds, each with whether it is the first or states the authors' aim."""
    out: list[tuple[int, int, bool]] = []
    start = 0
    for m in _SENTENCE.finditer(text):
        out.append((start, m.end(), not out or bool(_CLAIM.search(text, start, m.end()))))
        start = m.end()
    if start < len(text):
        out.append((start, len(text), not out or bool(_CLAIM.search(text, start))))
    return out


def mention_weight(text: str, start: int, sentences: list[tuple[int, int, bool]]) -> float:
    """How much one mention says the paper is about its topic."""
    lo, central = 0, False
    for s_start, s_end, s_central in sentences:
        if s_start <= start < s_end:
            lo, central = s_start, s_central
            break
    if _PASSING.search(text, max(lo, start - 60), start):
        return PASSING_WEIGHT
    return CLAIM_WEIGHT if central else 1.0


def _rank(spans: dict[str, set[Span]], vocabulary: Vocabulary, text: str) -> list[TopicMatch]:
    length = len(text)
    sentences = _sentences(text)
    present = set(spans)
    covered: set[str] = set()
    for slug in present:
        covered.update(vocabulary.ancestors(slug))
    out: list[TopicMatch] = []
    for slug, found in spans.items():
        evidence = tuple(sorted(found))
        specificity = vocabulary.specificity(slug)
        weight = SPECIFICITY_WEIGHT[min(specificity, len(SPECIFICITY_WEIGHT) - 1)]
        if slug in covered and specificity <= 1:
            weight *= 0.6
        mass = sum(mention_weight(text, start, sentences) for start, _ in evidence)
        frequency = 1.0 + math.log(mass) if mass >= 1 else mass
        position = 1.0 - evidence[0][0] / max(length, 1)
        score = weight * (frequency + 0.5 * position)
        out.append(TopicMatch(slug, vocabulary.topics[slug].label, evidence, round(score, 4)))
    out.sort(key=lambda m: (-m.score, m.evidence[0][0], m.slug))
    return out
