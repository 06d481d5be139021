"""Properties of topic matching over generated text: spans always point at what matched."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from bib.extract.topics import match_topics, scan
from bib.extract.vocabulary import SCAN_TABLE, shipped

VOCABULARY = shipped()
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
    for hit in scan(text, VOCABULARY).hits:
        start, end = hit.start, hit.end
        assert 0 <= start < end <= len(text)
        key = " " + _folded(text[start:end])
        assert key in automaton, (text, text[start:end])


@given(PIECES, st.lists(GLUE, max_size=12))
def test_every_hit_is_a_whole_word(pieces: list[str], glue: list[str]) -> None:
    text = _texts(pieces, glue)
    for hit in scan(text, VOCABULARY).hits:
        start, end = hit.start, hit.end
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
