"""Generic topics, decided by the list: a topic that fits most papers of a list is kept only
on the papers that are about it.

In a list of LLM papers, "large language models" tags almost every record, and nobody
filters by it; in a list of 2020 papers it tags a few and says something. So which topics
are generic is a property of the list, not of the topic. The tagging stage, run with
`loose` (`bib.extract.tags.stage`), keeps every topic a paper is not about
(`bib.extract.topics._not_about`: no topic below it is tagged, the title does not name it,
and the abstract does not name it twice with once in a statement of aim) and marks it
`loose`; `GenericTopics`, the last stage, then leaves out the loose topics that are generic
for the list and cuts each record to its `max_topics`.

The engine (`bib.convert`) hands `GenericTopics` the whole run: it counts each topic's
share of the records that have a topic (`observe`), decides the generic ones once every
record is tagged (`decide`), and finishes each record with them (`finish`). Run as a plain
stage, one record at a time, it has no list to learn from and takes the vocabulary's
`generic` flags, which is what the tagger does without `loose`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bib.extract import hierarchy, topics
from bib.extract.vocabulary import Vocabulary
from bib.record import Record, Tag, TagKind, evolve

SHARE = 0.30
"""A topic is generic for a list when at least this share of its records with topics
carry it. Measured before any topic is left out: in the ICML 2026 seeds (57 records)
`large-language-models` tags 43.9 % and the next topic, `llm-agents`, 15.8 %; in ICLR 2020
(626 records of tests/data/author-keywords.json) no topic tags more than 11.5 %
(`reinforcement-learning`). The gap between 16 % and 44 % is where the line goes."""

MIN_RECORDS = 20
"""Records with topics a list needs before its shares say anything: below it, one paper
more or less moves a share by 5 points, and the vocabulary's `generic` flags decide."""

_TOPIC = TagKind.TOPIC


@dataclass(frozen=True, slots=True)
class Observed:
    """What one record tells the list: the topics it was tagged with (loose ones too), and
    those of them it is not about."""

    topics: tuple[str, ...]
    loose: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GenericTopics:
    """The list stage after a `loose` tagging stage (see the module's docstring)."""

    vocabulary: Vocabulary
    max_topics: int
    with_parents: bool = False

    def __call__(self, records: Iterable[Record]) -> Iterator[Record]:
        """One record at a time, with the vocabulary's flags (`prior`)."""
        prior = self.prior
        return (self.finish(record, prior) for record in records)

    @property
    def prior(self) -> frozenset[str]:
        """The generic topics when there is no list to count: the vocabulary's flags."""
        return self.vocabulary.generic

    def observe(self, record: Record) -> Observed:
        """The record's extracted topics and its loose ones."""
        found = [t for t in record.tags if t.kind is _TOPIC and t.evidence]
        return Observed(tuple(t.value for t in found), tuple(t.value for t in found if t.loose))

    def decide(self, counts: Counter[str], records: int) -> frozenset[str]:
        """The generic topics of a list whose `records` records with topics carry each
        topic `counts[topic]` times: those of `SHARE` or more, or the `prior` when the list
        has fewer than `MIN_RECORDS`."""
        if records < MIN_RECORDS:
            return self.prior
        return frozenset(slug for slug, n in counts.items() if n >= SHARE * records)

    def decide_all(self, records: Iterable[Record]) -> frozenset[str]:
        """`decide` for `records` tagged with `loose`, all at once (the engine counts as
        records come: `bib.convert._Listed`)."""
        counts: Counter[str] = Counter()
        tagged = 0
        for record in records:
            seen = self.observe(record).topics
            counts.update(seen)
            tagged += bool(seen)
        return self.decide(counts, tagged)

    def finish(self, record: Record, generic: frozenset[str]) -> Record:
        """The record with its loose topics in `generic` left out, at most `max_topics`
        topics (the most specific: `topics.select`), and the ancestors of its topics when
        `with_parents`."""
        found = [t for t in record.tags if t.kind is _TOPIC and t.evidence]
        if len(found) > 1 or any(t.loose for t in found):
            record = _finished(record, found, generic, self.vocabulary, self.max_topics)
        if self.with_parents:
            record = hierarchy.with_parents(record, self.vocabulary)
        return record


def _finished(
    record: Record, found: list[Tag], generic: frozenset[str], vocabulary: Vocabulary, most: int
) -> Record:
    kept = topics.select(found, generic, vocabulary, most, _value, _loose)
    named = {t.value.casefold() for t in kept if t.loose}
    keywords = named and any(not t.evidence for t in record.tags)
    if len(kept) == len(found) and not keywords:
        return record  # `select` only leaves out: nothing was
    chosen = {id(t) for t in kept}
    tags = []
    for tag in record.tags:
        if tag.kind is _TOPIC and tag.evidence:
            if id(tag) in chosen:
                tags.append(tag)
        elif not (tag.kind is _TOPIC and not tag.evidence and tag.value.casefold() in named):
            tags.append(tag)  # a keyword a kept loose topic names gives way to it
    return evolve(record, tags=tuple(tags))


def _value(tag: Tag) -> str:
    return tag.value


def _loose(tag: Tag) -> bool:
    return tag.loose
