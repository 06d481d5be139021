"""Properties of topic matching over generated text: spans always point at what matched."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from bib.extract.topics import match_topics, scan
from bib.extract.vocabulary import SCAN_TABLE, shipped

VOCABULARY = shipped()
EVALUATES = re.compile(r"bench|evaluat|test ?bed|leaderboard", re.IGNORECASE)
"""The words of a benchmark contribution that make it evaluation (bib/extract/tags.py)."""
PHRASES = sorted(
    {p for t in VOCABULARY.topics.values() for p in (t.label, *t.synonyms, *t.abbreviations)}
)
GLUE = st.sampled_from([" ", "  ", "\n    ", ", ", " (", ") ", "-", " \u2013 ", ". ", "\t", " é "])
WORDS = st.sampled_from(["the", "We", "model", "naïve", "data", "Ünïcode", "x", "42", "İstanbul"])
PIECES = st.lists(st.one_of(st.sampled_from(PHRASES), WORDS), min_size=1, max_size=12)


def _texts(pieces: list[str], glue: list[str]) -> str:
    return "".join(p + g for p, g in zip(pieces, glue + [" "] * len(pieces), strict=False))


def _folded(text: str) -> str:
    return " ".join(text.translate(SCAN_TABLE).lower().split())


@given(PIECES, st.lists(GLUE, max_size=12))
def test_every_hit_span_covers_a_vocabulary_form(pieces: list[str], glue: list[str]) -> None:
    text = _texts(pieces, glue)
    automaton = VOCABULARY.compiled.automaton
    for start, end, _ in scan(text, VOCABULARY).hits:
        assert 0 <= start < end <= len(text)
        key = " " + _folded(text[start:end])
        assert key in automaton, (text, text[start:end])


@given(PIECES, st.lists(GLUE, max_size=12))
def test_every_hit_is_a_whole_word(pieces: list[str], glue: list[str]) -> None:
    text = _texts(pieces, glue)
    for start, end, _ in scan(text, VOCABULARY).hits:
        assert start == 0 or not text[start - 1].isalnum()
        assert end == len(text) or not text[end].isalnum()


@given(PIECES, st.lists(GLUE, max_size=12), st.integers(min_value=0, max_value=8))
def test_topic_evidence_is_sorted_and_in_range(pieces, glue, max_topics) -> None:
    text = _texts(pieces, glue)
    found = match_topics(text, VOCABULARY, max_topics=max_topics)
    assert len(found) <= max_topics
    for match in found:
        assert list(match.evidence) == sorted(set(match.evidence))
        assert all(0 <= s < e <= len(text) for s, e in match.evidence)
        assert all(re.search(r"\w", text[s:e]) for s, e in match.evidence)


def _related(slug: str) -> set[str]:
    """The topics whose words may be a topic's evidence: it, the topics below it, and those
    that imply it or stand for a part of it in context (`combines`)."""
    found = {slug, *VOCABULARY.descendants[slug]}
    for topic in VOCABULARY.topics.values():
        if slug in topic.implies or (topic.combines and topic.slug == slug):
            found.add(topic.slug)
            found.update(topic.combines[:1])
    for other in list(found):
        found.update(VOCABULARY.descendants.get(other, ()))
    return found


def _names_topic(text: str, span: tuple[int, int], related: set[str]) -> bool:
    written = text[span[0] : span[1]]
    if "(" in written:  # a long form around the acronym it defines: `Key-Value (KV) cache`
        written = re.sub(r"\s*\([^()]*\)\s*", " ", written)
    value = VOCABULARY.compiled.automaton.get(" " + _folded(written), None)
    if value is not None:
        exact = value.exact or {}
        # an exact form (an abbreviation's case) is kept with its separators made spaces
        as_written = " ".join(written.translate(SCAN_TABLE).split())
        if value.slug in related or exact.get(as_written) in related:
            return True
    # a benchmark contribution says the paper is about evaluation: its word is the evidence
    if "evaluation" in related and EVALUATES.search(written):
        return True
    # an acronym the abstract defines in a parenthesis carries its long form's topic
    bare = written[:-1] if written.endswith("s") else written
    return f"({bare})" in text or f"({bare}s)" in text


KEY_WORDS = st.sampled_from(
    ["reward shaping", "Reward-Shaping", "token budget", "Direct Preference Optimization",
     "(DPO)", "we call this", "called", "novel framework", "extensive experiments"]
)  # fmt: skip
ABSTRACT_PIECES = st.lists(st.one_of(st.sampled_from(PHRASES), WORDS, KEY_WORDS), max_size=16)


@given(ABSTRACT_PIECES, st.lists(GLUE, max_size=16))
def test_every_evidence_span_matches_the_words_of_its_tag(pieces, glue) -> None:
    """Point 5 of issue 17: spans point at the tag's own words in the verbatim abstract."""
    from bib.extract.keyphrases import fold
    from bib.extract.tags import tag_records
    from bib.record import Record, TagKind

    text = _texts(pieces, glue)
    kinds = {TagKind.TOPIC, TagKind.KEYPHRASE}
    (record,) = tag_records([Record(id="r", abstract=text)], vocabulary=VOCABULARY, kinds=kinds)
    for tag in record.tags:
        for span in tag.evidence:
            assert 0 <= span[0] < span[1] <= len(text)
            if tag.kind is TagKind.KEYPHRASE:
                assert fold(text[span[0] : span[1]]) == tag.value, (text, span, tag)
            else:
                assert _names_topic(text, span, _related(tag.value)), (text, span, tag)


def test_a_hyphenated_abbreviation_is_evidence_of_its_topic() -> None:
    """Regression (found by hypothesis): `ZS-CIR` names Zero-Shot Composed Image Retrieval;
    the check had looked its exact form up with the hyphen the vocabulary keeps as a space."""
    text = "ZS-CIR "
    related = _related("zero-shot-composed-image-retrieval")
    assert _names_topic(text, (0, 6), related)
    assert not _names_topic("zs-cir ", (0, 6), related)


def test_every_evidence_span_of_the_seed_abstracts_matches_its_tag() -> None:
    """The same check on the 57 real seed abstracts, as the pipeline tags them."""
    from pathlib import Path

    from bib import convert as engine
    from bib.extract.keyphrases import fold
    from bib.extract.tags import tag_records
    from bib.record import TagKind

    seeds = Path(__file__).resolve().parents[2] / "seeds"
    kinds = {TagKind.TOPIC, TagKind.KEYPHRASE}
    records = tag_records(engine.load([seeds]), vocabulary=VOCABULARY, kinds=kinds)
    checked = 0
    for record in records:
        text = record.abstract
        for tag in record.tags:
            for span in tag.evidence:
                checked += 1
                if tag.kind is TagKind.KEYPHRASE:
                    assert fold(text[span[0] : span[1]]) == tag.value, (record.key, tag)
                else:
                    assert _names_topic(text, span, _related(tag.value)), (record.key, span, tag)
    assert checked > 300
