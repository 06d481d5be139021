"""The tagging stage: topics, the method, datasets, models, code and contribution type.

`tag_records` is pure: it returns new Records whose tags are recomputed from the abstract,
`Record.method` and `Record.links`, and keeps tags it does not produce (keywords read from
a BibTeX file, say). Every tag it adds carries evidence: spans of the abstract.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

from bib.extract.entities import finditer_at, match_entities
from bib.extract.topics import match_topics
from bib.extract.vocabulary import Vocabulary, shipped
from bib.record import LinkRole, Record, Span, Tag, TagKind

DEFAULT_MAX_TOPICS = 8
EVALUATION_TOPIC = "evaluation"
"""The topic a paper that contributes a benchmark or dataset is about, whatever else it is."""
EXTRACTED_KINDS = frozenset(TagKind)
"""Kinds this stage owns: earlier tags of these kinds are replaced, not duplicated."""

_WE = re.compile(r"\bwe\b", re.IGNORECASE)
_EVALUATES = re.compile(r"bench|evaluat|test ?bed|leaderboard", re.IGNORECASE)
"""A benchmark contribution is about evaluation when its cue says so: a dataset built to
train the proposed method is not."""
_VERB = r"we\s+(?:\w+ly\s+|also\s+|further\s+|then\s+|first\s+)?"


def _cue(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_CONTRIBUTIONS: tuple[
    tuple[str, str, re.Pattern[str], re.Pattern[str] | None, tuple[str, ...], tuple[str, ...]], ...
] = (
    (
        "benchmark",
        "new benchmark or dataset",
        _cue(
            _VERB + r"(?:introduce|present|propose|construct|build|release|curate|create|collect)"
            r"\b[^.;]{0,80}?(?:\b(?:benchmarks?|datasets?|corpus|corpora|test ?beds?|"
            r"evaluation suite)|[\w-]bench)\b"
        ),
        _cue(r"\brelease\s+of\s+our\b[^.;]{0,40}\bdatasets?\b"),
        ("release of our",),
        ("release",),
    ),
    (
        "system",
        "system or infrastructure",
        _cue(
            _VERB + r"(?:introduce|present|build|develop|release|design)\b[^.;]{0,80}?"
            r"\b(?:system|pipeline|infrastructure|library|toolkit|engine|platform|simulator)s?\b"
        ),
        None,
        (),
        (),
    ),
    (
        "method",
        "new method",
        _cue(
            _VERB + r"(?:(?:propose|introduce|present|develop|design|derive)\b[^.;]{0,100}?"
            r"\b(?:method|framework|approach|algorithm|technique|architecture|strategy|mechanism|"
            r"objective|paradigm|model|operator|detector|metric|layer|loss|procedure|scheme|"
            r"rule|policy|estimator|sampler|attack|defen[cs]e|formulation|module|network)s?\b"
            r"|propose\b(?![^.;]{0,80}\b(?:benchmarks?|datasets?|corpus|corpora)\b)"
            r"|(?:introduce|present)\s+(?-i:[A-Z][a-z]+[A-Z][\w-]*|[A-Z][A-Z0-9]+[a-z]*[\w-]*)\b)"
        ),
        _cue(r"\b(?:this|our)\s+(?:paper|work)\s+(?:proposes|introduces|presents)\b"),
        ("this paper", "this work", "our paper", "our work"),
        ("this", "our"),
    ),
    (
        "theory",
        "theory",
        _cue(
            _VERB + r"(?:prove|derive|establish)\b(?!\s+(?:a|an)\s+(?:new|novel))"
            r"|we\s+(?:\w+\s+)?show\s+theoretically\b"
        ),
        _cue(
            r"\btheoretical(?:ly)?\s+(?:analysis|account|framework|characteri[sz]ation|"
            r"justification|foundation|guarantees?|results?|derive)\b"
            r"|\b(?:generali[sz]ation|regret|error)\s+bounds?\b|\bprovabl[ey]\b|\btheorems?\b"
        ),
        ("theoretical", "bound", "provabl", "theorem"),
        (
            "theoretical",
            "generalisation",
            "generalization",
            "regret",
            "error",
            "provabl",
            "theorem",
        ),
    ),
    (
        "analysis",
        "analysis or empirical study",
        _cue(_VERB + r"(?:study|analy[sz]e|investigate|examine|compare)\b"),
        _cue(
            r"\b(?:empirical|systematic|comprehensive)\s+(?:study|analysis|investigation|"
            r"comparison)\b|\bour\s+(?:analysis|study|findings|experiments)\s+"
            r"(?:reveal|show|suggest|yield)s?\b"
        ),
        ("empirical", "systematic", "comprehensive", "our "),
        ("empirical", "systematic", "comprehensive", "our"),
    ),
)
"""(value, label, cue matched where a `we` starts, cue searched anywhere, words without one of
which (lower case) the anywhere-cue is not tried, and the words (lower case) one of which every
match of the anywhere-cue starts with: it is tried only where they start a word)."""

_ODD_CASE = re.compile("[\u0130\u0131\u017f]")
"""The only characters that `re.IGNORECASE` matches to an ASCII letter but `str.lower` does not
turn into it (U+0130, U+0131, U+017F); text with one of them takes the plain regex scan."""


def whole_word_spans(text: str, name: str) -> list[Span]:
    """Where `name` occurs in `text` as a whole word (a plural or possessive may follow)."""
    if not name:
        return []
    spans: list[Span] = []
    start = text.find(name)
    while start != -1:
        end = start + len(name)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if (not (before.isalnum() or before in "-_") and not (after.isalnum() or after == "_")) or (
            after == "s" and (end + 1 == len(text) or not text[end + 1].isalnum())
        ):
            spans.append((start, end))
        start = text.find(name, start + 1)
    return spans


def _method_tag(record: Record) -> Tag | None:
    if not record.method:
        return None
    earlier = [t for t in record.tags if t.kind is TagKind.METHOD and t.value == record.method]
    spans = set(whole_word_spans(record.abstract, record.method))
    for tag in earlier:
        spans.update(tag.evidence)
    label = next((t.label for t in earlier if t.label), "") or record.method
    return Tag(TagKind.METHOD, record.method, label, tuple(sorted(spans)))


def _code_tag(record: Record) -> Tag | None:
    urls = [link.url for link in record.links if link.role in (LinkRole.CODE, LinkRole.PROJECT)]
    if not urls:
        return None
    spans: set[Span] = set()
    for url in urls:
        for variant in dict.fromkeys((url, url.rstrip("/"), url.split("://", 1)[-1])):
            start = record.abstract.find(variant)
            if start != -1:
                spans.add((start, start + len(variant)))
                break
    kept = _outermost(spans)
    return Tag(TagKind.CODE, "code", urls[0], tuple(sorted(kept)))


def _outermost(spans: Iterable[Span]) -> list[Span]:
    ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
    out: list[Span] = []
    for span in ordered:
        if out and span[0] < out[-1][1]:
            continue
        out.append(span)
    return out


def contribution_tags(text: str) -> list[Tag]:
    """What kind of contribution the abstract claims, from cue phrases."""
    tags = []
    lowered = text.lower()
    if len(lowered) != len(text) or _ODD_CASE.search(text):
        return _contribution_tags_scanned(text)
    starts = list(_words_at(text, lowered, ("we",)))
    for value, label, after_we, anywhere, needed, first_words in _CONTRIBUTIONS:
        spans = [m.span() for at in starts if (m := after_we.match(text, at))]
        if anywhere is not None and any(word in lowered for word in needed):
            at = sorted(_words_at(text, lowered, first_words))
            spans += [m.span() for m in finditer_at(anywhere, text, at)]
        if spans:
            tags.append(Tag(TagKind.CONTRIBUTION, value, label, tuple(sorted(spans))))
    return tags


def _words_at(text: str, lowered: str, words: Iterable[str]) -> Iterator[int]:
    """Where one of `words` starts a word of `text` (`lowered`: `text.lower()`, as long)."""
    for word in words:
        at = lowered.find(word)
        while at != -1:
            if not at or not (text[at - 1].isalnum() or text[at - 1] == "_"):
                yield at
            at = lowered.find(word, at + 1)


def _contribution_tags_scanned(text: str) -> list[Tag]:
    """`contribution_tags` with every regex scanning the whole text."""
    tags = []
    starts = [m.start() for m in _WE.finditer(text)]
    lowered = text.lower()
    for value, label, after_we, anywhere, needed, _ in _CONTRIBUTIONS:
        spans = [m.span() for at in starts if (m := after_we.match(text, at))]
        if anywhere is not None and any(word in lowered for word in needed):
            spans += [m.span() for m in anywhere.finditer(text)]
        if spans:
            tags.append(Tag(TagKind.CONTRIBUTION, value, label, tuple(sorted(spans))))
    return tags


def tag_record(
    record: Record, vocabulary: Vocabulary, *, max_topics: int = DEFAULT_MAX_TOPICS
) -> Record:
    """One record with its extracted tags recomputed."""
    text = record.abstract
    produced: list[Tag] = []
    method = _method_tag(record)
    if method is not None:
        produced.append(method)
    contributions = contribution_tags(text)
    benchmark = [t for t in contributions if t.value == "benchmark"]
    evaluates = [s for t in benchmark for s in t.evidence if _EVALUATES.search(text, *s)]
    extra = {EVALUATION_TOPIC: tuple(evaluates)} if evaluates else None
    title = "" if record.title_derived else record.title
    for topic in match_topics(text, vocabulary, max_topics=max_topics, extra=extra, title=title):
        produced.append(Tag(TagKind.TOPIC, topic.slug, topic.label, topic.evidence))
    datasets, models = match_entities(text, vocabulary, method=record.method)
    produced.extend(Tag(TagKind.DATASET, d.value, d.label, d.evidence) for d in datasets)
    produced.extend(Tag(TagKind.MODEL, m.value, m.label, m.evidence) for m in models)
    code = _code_tag(record)
    if code is not None:
        produced.append(code)
    produced.extend(contributions)
    kept = [t for t in record.tags if t.kind not in EXTRACTED_KINDS or not t.evidence]
    # a keyword read from the input that a produced tag names again (in any kind and case)
    # gives way to it: the produced tag carries the evidence, and keywords stay in tag order
    seen = {t.value.casefold() for t in produced}
    kept = [t for t in kept if t.value.casefold() not in seen]
    return replace(record, tags=(*kept, *produced))


def tag_records(
    records: Iterable[Record],
    *,
    vocabulary: Vocabulary | None = None,
    max_topics: int = DEFAULT_MAX_TOPICS,
) -> list[Record]:
    """Records with topic, method, dataset, model, code and contribution tags (the agreed API)."""
    return list(tag_stream(records, vocabulary=vocabulary, max_topics=max_topics))


def tag_stream(
    records: Iterable[Record],
    *,
    vocabulary: Vocabulary | None = None,
    max_topics: int = DEFAULT_MAX_TOPICS,
) -> Iterator[Record]:
    """`tag_records` one record at a time, for pipelines that stream."""
    vocabulary = vocabulary or shipped()
    for record in records:
        yield tag_record(record, vocabulary, max_topics=max_topics)


def stage(
    vocabulary: Vocabulary | None = None, max_topics: int = DEFAULT_MAX_TOPICS
) -> Callable[[Iterable[Record]], Iterator[Record]]:
    """A pipeline stage with these settings (see `bib.pipeline.Stage`)."""

    def run(records: Iterable[Record]) -> Iterator[Record]:
        return tag_stream(records, vocabulary=vocabulary, max_topics=max_topics)

    return run
