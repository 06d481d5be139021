"""The topic hierarchy at work: ancestors added to a record's topics, and a topic's subtree.

Topics are tagged at their most specific (`bib.extract.topics`); a broader topic is implied
by the tree. Two places need the tree itself: writing keywords with `--with-parents` (a
record tagged `grpo` also says `rlvr`, `llm-reinforcement-learning`, `reinforcement-learning`
...), and searching a library or Zotero for a topic, which should find every paper tagged
with a topic below it (`--tag reinforcement-learning` finds the `rlvr` papers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from bib.extract.vocabulary import Vocabulary
from bib.record import Record, Span, Tag, TagKind, evolve

_TOPIC = TagKind.TOPIC


def ancestor_tags(record: Record, vocabulary: Vocabulary) -> list[Tag]:
    """Topic tags for the ancestors of the record's topics that it does not carry, nearest
    first, less the umbrellas marked `specificity: 0` (machine learning, deep learning: in
    a library of ML papers they name every record). An ancestor's evidence is the evidence
    of the tags below it: the words that say the paper is about it."""
    carried = {t.value for t in record.tags if t.kind is _TOPIC}
    spans: dict[str, set[Span]] = {}
    for tag in record.tags:
        if tag.kind is _TOPIC and tag.value in vocabulary.topics:
            for ancestor in vocabulary.ancestors(tag.value):
                if ancestor not in carried and vocabulary.topics[ancestor].specificity != 0:
                    spans.setdefault(ancestor, set()).update(tag.evidence)
    topics = vocabulary.topics
    return [
        Tag(_TOPIC, slug, topics[slug].label, tuple(sorted(found))) for slug, found in spans.items()
    ]


def with_parents(record: Record, vocabulary: Vocabulary) -> Record:
    """The record with the ancestors of its topics added after its own topics."""
    extra = ancestor_tags(record, vocabulary)
    if not extra:
        return record
    tags = list(record.tags)
    last = max((i for i, t in enumerate(tags) if t.kind is _TOPIC), default=len(tags) - 1)
    tags[last + 1 : last + 1] = extra
    return evolve(record, tags=tuple(tags))


def parents_stage(vocabulary: Vocabulary) -> Callable[[Iterable[Record]], Iterator[Record]]:
    """A pipeline stage adding ancestors to every record's topics (`--with-parents`)."""

    def run(records: Iterable[Record]) -> Iterator[Record]:
        return (with_parents(record, vocabulary) for record in records)

    return run


def subtree(value: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The topics below `value` (a slug, or a topic's label, synonym or abbreviation, in
    any case), sorted; empty when it names no topic."""
    slug = resolve(value, vocabulary)
    if slug is None:
        return ()
    return tuple(sorted(vocabulary.descendants[slug]))


def resolve(value: str, vocabulary: Vocabulary) -> str | None:
    """The topic that `value` names: its slug, or a label, synonym or abbreviation."""
    if value in vocabulary.topics:
        return value
    folded = " ".join(value.casefold().replace("-", " ").split())
    for topic in vocabulary.topics.values():
        names = (topic.slug.replace("-", " "), topic.label, *topic.synonyms)
        if any(" ".join(n.casefold().replace("-", " ").split()) == folded for n in names):
            return topic.slug
        if value in topic.abbreviations:
            return topic.slug
    return None
