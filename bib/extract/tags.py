"""The tagging stage: topics, the method, datasets, models, code and contribution type.

`tag_records` is pure: it returns new Records whose tags are recomputed from the abstract,
`Record.method` and `Record.links`, and keeps tags it does not produce (keywords read from
a BibTeX file, say). Every tag it adds carries evidence: spans of the abstract.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Container, Iterable, Iterator
from operator import attrgetter
from typing import Final, NamedTuple

import ahocorasick

from bib import parallel
from bib.extract.entities import WordKey, finditer_at, match_entities
from bib.extract.keyphrases import keyphrases
from bib.extract.topics import topics_made
from bib.extract.vocabulary import Vocabulary, shipped, word_view
from bib.record import LinkRole, Record, Span, Tag, TagKind, evolve

DEFAULT_MAX_TOPICS = 8
_METHOD: Final = TagKind.METHOD
_TOPIC: Final = TagKind.TOPIC
_DATASET: Final = TagKind.DATASET
_MODEL: Final = TagKind.MODEL
_KEYPHRASE: Final = TagKind.KEYPHRASE
_CODE: Final = TagKind.CODE
_CONTRIBUTION: Final = TagKind.CONTRIBUTION
"""The kinds as module constants: a member read from the enum class costs five of these."""
EVALUATION_TOPIC: Final = "evaluation"
"""The topic a paper that contributes a benchmark or dataset is about, whatever else it is."""
EXTRACTED_KINDS: Final = frozenset(TagKind)
"""Kinds this stage owns: earlier tags of these kinds are replaced, not duplicated."""
DEFAULT_KINDS = EXTRACTED_KINDS - {TagKind.KEYPHRASE}
"""Kinds the stage makes unless asked for others: key phrases only on request (`bib tags`,
`--tags keyphrase`), since no writer writes them by default."""
BENCHMARK_CUES: Final = ("benchmark",)
"""The contribution cues that topics need (see `EVALUATION_TOPIC`)."""

_WE = re.compile(r"\bwe\b", re.IGNORECASE)
_WE_WORDS: Final = re.compile(r"we(?=\s+(\w+)(?:\s+(\w+))?)")
"""A `we` and the two words after it (in the lowered text): every cue after `we` has its
verb there."""
_EVALUATES: Final = re.compile(r"bench|evaluat|test ?bed|leaderboard", re.IGNORECASE)
"""A benchmark contribution is about evaluation when its cue says so: a dataset built to
train the proposed method is not."""
_VERB = r"we\s+(?:\w+ly\s+|also\s+|further\s+|then\s+|first\s+)?"
_NAMING = r"(?:introduce|present)\s+(?-i:[A-Z][a-z]+[A-Z][\w-]*|[A-Z][A-Z0-9]+[a-z]*[\w-]*)\b"
"""`we introduce FooNet`: the one cue that reads the text's case."""
OBJECT_REACH: Final = 100
"""Characters after a verb within which a cue's object word (`dataset`, `system`) must start
and end: its regex allows 80 characters before the object, and no object is longer than 17."""


def _one_of(alternatives: str) -> str:
    """`(?:a|b|...)` for the space-separated regexes, behind a lookahead for their first
    letters: the engine then tries the alternatives only where one can start (a third
    faster where a cue scans up to 100 characters for one)."""
    words = alternatives.split()
    firsts = "".join(sorted({word[0] for word in words}))
    return f"(?=[{firsts}])(?:{'|'.join(words)})"


class _Cue(NamedTuple):
    """A contribution kind and the cue phrases that claim it.

    Each cue is a case-insensitive regex, compiled twice: as written, for any text, and
    case-sensitive, for the lowered text of an abstract that lower-casing changes in no
    offset and no match (faster; see `contribution_tags`).
    """

    value: str
    label: str
    after_we: re.Pattern[str]
    """Matched where a `we` starts."""
    after_we_lowered: re.Pattern[str]
    verbs: frozenset[str]
    """The verbs `after_we` can match: the first or second word after `we` is one of them."""
    cased: re.Pattern[str] | None
    """The part of `after_we` that reads the text's case (`we introduce FooNet`), tried
    after `after_we_lowered` finds nothing: it comes last in `after_we`."""
    objects: tuple[str, ...]
    """Words (lower case) one of which every match of `after_we` has within OBJECT_REACH
    characters after its verb (empty: no such word)."""
    anywhere: re.Pattern[str] | None
    """Searched anywhere."""
    anywhere_lowered: re.Pattern[str] | None
    needed: tuple[str, ...]
    """Words (lower case) without one of which in the text a match of `anywhere` does not
    count."""
    first_words: tuple[str, ...]
    """Words (lower case) one of which every match of `anywhere` starts with."""


def _cue(
    value: str,
    label: str,
    after_we: str,
    verbs: str,
    objects: tuple[str, ...] = (),
    anywhere: str | None = None,
    needed: tuple[str, ...] = (),
    first_words: tuple[str, ...] = (),
    *,
    cased: str | None = None,
) -> _Cue:
    return _Cue(
        value,
        label,
        re.compile(after_we, re.IGNORECASE),
        re.compile(after_we),
        frozenset(verbs.split()),
        None if cased is None else re.compile(cased, re.IGNORECASE),
        objects,
        None if anywhere is None else re.compile(anywhere, re.IGNORECASE),
        None if anywhere is None else re.compile(anywhere),
        needed,
        first_words,
    )


_CUES: Final[tuple[_Cue, ...]] = (
    _cue(
        "benchmark",
        "new benchmark or dataset",
        _VERB + r"(?:introduce|present|propose|construct|build|release|curate|create|collect)"
        r"\b[^.;]{0,80}?(?:\b(?:benchmarks?|datasets?|corpus|corpora|test ?beds?|"
        r"evaluation suite)|[\w-]bench)\b",
        "introduce present propose construct build release curate create collect",
        ("bench", "dataset", "corpus", "corpora", "test", "evaluation suite"),
        r"\brelease\s+of\s+our\b[^.;]{0,40}\bdatasets?\b",
        ("release of our",),
        ("release",),
    ),
    _cue(
        "system",
        "system or infrastructure",
        _VERB + r"(?:introduce|present|build|develop|release|design)\b[^.;]{0,80}?"
        r"\b(?:system|pipeline|infrastructure|library|toolkit|engine|platform|simulator)s?\b",
        "introduce present build develop release design",
        (
            "system",
            "pipeline",
            "infrastructure",
            "library",
            "toolkit",
            "engine",
            "platform",
            "simulator",
        ),
    ),
    _cue(
        "method",
        "new method",
        _VERB + r"(?:(?:propose|introduce|present|develop|design|derive)\b[^.;]{0,100}?"
        r"\b"
        + _one_of(
            "method framework approach algorithm technique architecture strategy mechanism "
            "objective paradigm model operator detector metric layer loss procedure scheme "
            "rule policy estimator sampler attack defen[cs]e formulation module network"
        )
        + r"s?\b"
        r"|propose\b(?![^.;]{0,80}\b(?:benchmarks?|datasets?|corpus|corpora)\b)"
        r"|" + _NAMING + ")",
        "propose introduce present develop design derive",
        (),
        r"\b(?:this|our)\s+(?:paper|work)\s+(?:proposes|introduces|presents)\b",
        ("this paper", "this work", "our paper", "our work"),
        ("this", "our"),
        cased=_VERB + _NAMING,
    ),
    _cue(
        "theory",
        "theory",
        _VERB + r"(?:prove|derive|establish)\b(?!\s+(?:a|an)\s+(?:new|novel))"
        r"|we\s+(?:\w+\s+)?show\s+theoretically\b",
        "prove derive establish show",
        (),
        r"\btheoretical(?:ly)?\s+(?:analysis|account|framework|characteri[sz]ation|"
        r"justification|foundation|guarantees?|results?|derive)\b"
        r"|\b(?:generali[sz]ation|regret|error)\s+bounds?\b|\bprovabl[ey]\b|\btheorems?\b",
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
    _cue(
        "analysis",
        "analysis or empirical study",
        _VERB + r"(?:study|analy[sz]e|investigate|examine|compare)\b",
        "study analyze analyse investigate examine compare",
        (),
        r"\b(?:empirical|systematic|comprehensive)\s+(?:study|analysis|investigation|"
        r"comparison)\b|\bour\s+(?:analysis|study|findings|experiments)\s+"
        r"(?:reveal|show|suggest|yield)s?\b",
        ("empirical", "systematic", "comprehensive", "our "),
        ("empirical", "systematic", "comprehensive", "our"),
    ),
)
_BY_VERB: Final[dict[str, tuple[int, ...]]] = {
    verb: tuple(i for i, cue in enumerate(_CUES) if verb in cue.verbs)
    for cue in _CUES
    for verb in cue.verbs
}
"""Verb -> the cues (indices into _CUES) whose `after_we` it can start."""

_ALL_CUES: Final = tuple(range(len(_CUES)))
_BENCHMARK_CUES: Final = tuple(i for i, cue in enumerate(_CUES) if cue.value in BENCHMARK_CUES)

_ODD_CASE: Final = ("\u0130", "\u0131", "\u017f")
"""The only characters that `re.IGNORECASE` matches to an ASCII letter but `str.lower` does not
turn into it (U+0130, U+0131, U+017F); text with one of them takes the plain regex scan. Looked
for with `in`, one at a time: a regex's character class read every character at 30 times the
cost."""


def _setter(name: str) -> Callable[[Tag, object], None]:
    """What sets `Tag`'s slot `name` on an instance (its member descriptor's `__set__`)."""
    setter: Callable[[Tag, object], None] = getattr(Tag, name).__set__
    return setter


_SET_KIND: Final = _setter("kind")
_SET_VALUE: Final = _setter("value")
_SET_LABEL: Final = _setter("label")
_SET_EVIDENCE: Final = _setter("evidence")
_SET_LOOSE: Final = _setter("loose")


def _tag(
    kind: TagKind, value: str, label: str, evidence: tuple[Span, ...], loose: bool = False
) -> Tag:
    """`Tag(kind, value, label, evidence, loose)` at 60% of the cost, for the tags of every
    record: a frozen dataclass's `__init__` sets each field through `object.__setattr__`,
    where this sets the slots straight (the same tag; tests/tags/test_tags.py checks the
    fields)."""
    tag = object.__new__(Tag)
    _SET_KIND(tag, kind)
    _SET_VALUE(tag, value)
    _SET_LABEL(tag, label)
    _SET_EVIDENCE(tag, evidence)
    _SET_LOOSE(tag, loose)
    return tag


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
    method = record.method
    if not method:
        return None
    spans = set(whole_word_spans(record.abstract, method))
    label = ""
    for tag in record.tags:
        if tag.kind is _METHOD and tag.value == method:
            spans.update(tag.evidence)
            label = label or tag.label
    return _tag(_METHOD, method, label or method, tuple(sorted(spans)))


_CODE_ROLES: Final = frozenset([LinkRole.CODE, LinkRole.PROJECT])


def _code_tag(record: Record) -> Tag | None:
    if not record.links:
        return None
    urls = [link.url for link in record.links if link.role in _CODE_ROLES]
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
    return _tag(_CODE, "code", urls[0], tuple(sorted(kept)))


def _outermost(spans: Iterable[Span]) -> list[Span]:
    ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
    out: list[Span] = []
    for span in ordered:
        if out and span[0] < out[-1][1]:
            continue
        out.append(span)
    return out


def contribution_tags(
    text: str,
    words: Iterable[tuple[int, WordKey]] | None = None,
    values: Collection[str] | None = None,
) -> list[Tag]:
    """What kind of contribution the abstract claims, from cue phrases (only the cues whose
    value is in `values`, when given).

    `words`: the hits over `word_view(text)` of an automaton holding `_STARTS`'s keys (and
    others, whose values start no cue), for a caller that scanned already.
    """
    allowed = _ALL_CUES
    if values is not None:
        allowed = tuple(i for i, cue in enumerate(_CUES) if cue.value in values)
    return _contributions(text, allowed, words)


def _contributions(
    text: str, allowed: tuple[int, ...], words: Iterable[tuple[int, WordKey]] | None
) -> list[Tag]:
    """`contribution_tags` for the cues `allowed` (indices into `_CUES`, found once).

    Where lower-casing keeps every offset and every match, the cues run on the lowered text,
    and a cue after `we` only where its verb (and object) is: trying every cue at every
    `we` cost more than the rest of the tagging.
    """
    lowered = text.lower()
    if not text.isascii() and (len(lowered) != len(text) or any(map(text.__contains__, _ODD_CASE))):
        return _contribution_tags_scanned(text, allowed)
    # not Optional, and `positions` not `at` below: compiled, a loop over an Optional, or
    # a name given values of two types, reads its values as objects, with generic operations
    hits: Iterable[tuple[int, WordKey]] = _STARTS.iter(word_view(text)) if words is None else words
    found: dict[int, list[Span]] = {}  # cue (index into _CUES) -> spans
    starts: dict[int, list[int]] = {}  # cue -> where its anywhere-regex may match
    for end, (back, _, kinds, _) in hits:
        if kinds is None:
            continue
        at = end - back
        if kinds:
            for kind in kinds:
                if kind in allowed:
                    starts.setdefault(kind, []).append(at)
            continue
        if at and (text[at - 1].isalnum() or text[at - 1] == "_"):
            continue
        after = _WE_WORDS.match(lowered, at)
        if after is not None:
            _after_we(text, lowered, at, after, found, allowed)
    for kind, positions in starts.items():
        cue = _CUES[kind]
        if cue.anywhere_lowered is None:
            continue
        # tried where it may start first, and its needed words looked for in the whole
        # text only then: most tries fail at once, where the look-up reads every character
        positions.sort()
        spans = [m.span() for m in finditer_at(cue.anywhere_lowered, lowered, positions)]
        if spans and any(word in lowered for word in cue.needed):
            found.setdefault(kind, []).extend(spans)
    return [
        _tag(_CONTRIBUTION, _CUES[kind].value, _CUES[kind].label, tuple(sorted(found[kind])))
        for kind in sorted(found)
    ]


def _after_we(
    text: str,
    lowered: str,
    at: int,
    words: re.Match[str],
    found: dict[int, list[Span]],
    allowed: Container[int],
) -> None:
    """Add the spans of the `allowed` cues after the `we` at `at` (`words`: `_WE_WORDS`
    there)."""
    first, second = words.group(1, 2)
    kinds = _BY_VERB.get(first, ())
    if second in _BY_VERB:
        kinds = tuple(sorted({*kinds, *_BY_VERB[second]}))
    for kind in kinds:
        if kind not in allowed:
            continue
        cue = _CUES[kind]
        if cue.objects:
            after = words.end(2 if second else 1)
            window = lowered[words.end(1) : after + OBJECT_REACH]
            # compiled, `any` over a generator is a plain loop, where `any(map(...))` called
            # a bound method for each word
            if not any(word in window for word in cue.objects):
                continue
        m = cue.after_we_lowered.match(lowered, at)
        if m is None and cue.cased is not None:
            m = cue.cased.match(text, at)
        if m is not None:
            found.setdefault(kind, []).append(m.span())


def _start_words() -> dict[str, WordKey]:
    """Keys over `word_view` for where a `we`, or the first word of a cue searched anywhere,
    starts a word: one automaton pass finds them all (and some more, that the regexes then
    reject), where a `str.find` loop per word took three times as long. A `we` starts the
    cues `()`. (`word_view` reads U+212A KELVIN SIGN as a space where `str.lower` makes it
    `k`: no word has a `k`.)"""
    keys = {" we ": WordKey(3, None, (), 0)}
    for word in dict.fromkeys(word for cue in _CUES for word in cue.first_words):
        kinds = tuple(i for i, cue in enumerate(_CUES) if word in cue.first_words)
        keys[" " + word] = WordKey(len(word), None, kinds, 0)
    return keys


def _automaton(keys: dict[str, WordKey]) -> ahocorasick.Automaton:
    automaton = ahocorasick.Automaton()
    for key, value in keys.items():
        automaton.add_word(key, value)
    automaton.make_automaton()
    return automaton


_STARTS: Final = _automaton(_start_words())


def compile_tag_words(vocabulary: Vocabulary) -> ahocorasick.Automaton:
    """One automaton for the curated dataset and model names and the cue start words, so
    that one pass over `word_view(text)` serves both (see `Vocabulary.tag_words`)."""
    keys = dict(vocabulary.entities.keys)
    for key, start in _start_words().items():
        found = keys.get(key)
        if found is None:
            keys[key] = start
        else:
            keys[key] = found._replace(cues=start.cues)
    return _automaton(keys)


def _contribution_tags_scanned(text: str, allowed: Iterable[int]) -> list[Tag]:
    """`contribution_tags` with every regex scanning the whole text, case-insensitively."""
    tags = []
    starts = [m.start() for m in _WE.finditer(text)]
    lowered = text.lower()
    for cue in (_CUES[kind] for kind in allowed):
        spans = [m.span() for at in starts if (m := cue.after_we.match(text, at))]
        if cue.anywhere is not None and any(word in lowered for word in cue.needed):
            spans += [m.span() for m in cue.anywhere.finditer(text)]
        if spans:
            tags.append(Tag(TagKind.CONTRIBUTION, cue.value, cue.label, tuple(sorted(spans))))
    return tags


def tag_record(
    record: Record,
    vocabulary: Vocabulary,
    *,
    max_topics: int = DEFAULT_MAX_TOPICS,
    kinds: Collection[TagKind] = DEFAULT_KINDS,
) -> Record:
    """One record with its extracted tags of `kinds` recomputed (a caller that writes only
    some kinds need not pay for the others; earlier tags of the others are dropped)."""
    return _tag_batch([record], vocabulary, max_topics, kinds, False)[0]


def _tag_batch(
    records: list[Record],
    vocabulary: Vocabulary,
    max_topics: int,
    kinds: Collection[TagKind],
    loose: bool,
) -> list[Record]:
    """`tag_record` for each record, one step at a time over all of them: a step's code and
    data then stay in the processor's caches, which makes tagging a tenth faster than
    taking each record through every step in turn."""
    produced: list[list[Tag]] = [[] for _ in records]
    if _METHOD in kinds:
        for tags, record in zip(produced, records, strict=True):
            method = _method_tag(record)
            if method is not None:
                tags.append(method)
    topical = _TOPIC in kinds
    entities = _DATASET in kinds or _MODEL in kinds
    contributing = _CONTRIBUTION in kinds
    if _KEYPHRASE in kinds:
        compiled = vocabulary.compiled
        for tags, record in zip(produced, records, strict=True):
            tags += [
                _tag(_KEYPHRASE, k.value, k.label, k.evidence)
                for k in keyphrases(
                    record.abstract,
                    compiled,
                    record.method or "",
                    title="" if record.title_derived else record.title,
                )
            ]
    if not (topical or entities or contributing):
        return [_finish(r, tags, [], kinds) for r, tags in zip(records, produced, strict=True)]
    # the curated names' automaton, for the datasets and models; the cue words' alone is smaller
    automaton = vocabulary.tag_words if entities else _STARTS
    views = [word_view(record.abstract) for record in records]
    words = [list(automaton.iter(view)) for view in views]
    # a benchmark contribution makes the paper about evaluation: topics need that cue
    cues = _ALL_CUES if contributing else _BENCHMARK_CUES if topical else ()
    contributions = [
        _contributions(record.abstract, cues, found) if cues else []
        for record, found in zip(records, words, strict=True)
    ]
    if topical:
        for tags, record, view, claimed in zip(
            produced, records, views, contributions, strict=True
        ):
            tags += _topic_tags(record, vocabulary, max_topics, view, claimed, loose)
    if entities:
        for tags, record, found in zip(produced, records, words, strict=True):
            tags += _entity_tags(record, vocabulary, found, kinds)
    return [
        _finish(record, tags, claimed, kinds)
        for record, tags, claimed in zip(records, produced, contributions, strict=True)
    ]


def _topic_tags(
    record: Record,
    vocabulary: Vocabulary,
    max_topics: int,
    view: str,
    contributions: list[Tag],
    loose: bool,
) -> list[Tag]:
    text = record.abstract
    benchmark = [t for t in contributions if t.value in BENCHMARK_CUES]
    evaluates = [
        _word_at(text, m.start(), m.end())
        for t in benchmark
        for s in t.evidence
        if (m := _EVALUATES.search(text, *s)) is not None
    ]
    extra = {EVALUATION_TOPIC: tuple(evaluates)} if evaluates else None
    title = "" if record.title_derived else record.title
    return topics_made(
        _topic_tag,
        _VALUE,
        text,
        vocabulary,
        max_topics=max_topics,
        extra=extra,
        title=title,
        view=view,
        loose=loose,
    )


def _topic_tag(slug: str, label: str, evidence: tuple[Span, ...], _: float, loose: bool) -> Tag:
    return _tag(_TOPIC, slug, label, evidence, loose)


_VALUE: Final[Callable[[Tag], str]] = attrgetter("value")


def _word_at(text: str, start: int, end: int) -> Span:
    """The whole word (hyphens and digits included) around `text[start:end]`: the evidence
    that a benchmark contribution is about evaluation is its word (`benchmark`,
    `AMA-Bench`, `evaluation`), not the whole cue (`we introduce **AMA-Bench**`)."""
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "-"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "-"):
        end += 1
    return start, end


def _entity_tags(
    record: Record,
    vocabulary: Vocabulary,
    words: list[tuple[int, WordKey]],
    kinds: Collection[TagKind],
) -> list[Tag]:
    datasets, models = match_entities(
        record.abstract, vocabulary, method=record.method, names=words
    )
    tags: list[Tag] = []
    if datasets and _DATASET in kinds:
        tags += [_tag(_DATASET, d.value, d.label, d.evidence) for d in datasets]
    if models and _MODEL in kinds:
        tags += [_tag(_MODEL, m.value, m.label, m.evidence) for m in models]
    return tags


def _finish(
    record: Record, produced: list[Tag], contributions: list[Tag], kinds: Collection[TagKind]
) -> Record:
    """The record with the `produced` tags, its code and `contributions` (of `kinds`), and
    the tags read from its input (keywords)."""
    if _CODE in kinds:
        code = _code_tag(record)
        if code is not None:
            produced.append(code)
    if _CONTRIBUTION in kinds:
        produced += contributions
    kept = [t for t in record.tags if t.kind not in EXTRACTED_KINDS or not t.evidence]
    if kept:
        # a keyword read from the input that a produced tag names again (in any kind and
        # case) gives way to it: the produced tag carries the evidence, and keywords stay
        # in tag order (a loose topic's keyword, once the list keeps it: generic.finish)
        seen = {t.value.casefold() for t in produced if not t.loose}
        kept = [t for t in kept if t.value.casefold() not in seen]
        produced[:0] = kept
    return evolve(record, tags=tuple(produced))


def tag_records(
    records: Iterable[Record],
    *,
    vocabulary: Vocabulary | None = None,
    max_topics: int = DEFAULT_MAX_TOPICS,
    kinds: Collection[TagKind] = DEFAULT_KINDS,
) -> list[Record]:
    """Records with topic, method, dataset, model, code and contribution tags (the agreed API;
    `kinds` picks some of them)."""
    return list(tag_stream(records, vocabulary=vocabulary, max_topics=max_topics, kinds=kinds))


def tag_stream(
    records: Iterable[Record],
    *,
    vocabulary: Vocabulary | None = None,
    max_topics: int = DEFAULT_MAX_TOPICS,
    kinds: Collection[TagKind] = DEFAULT_KINDS,
    loose: bool = False,
) -> Iterator[Record]:
    """`tag_records` one record at a time, for pipelines that stream. With `loose`, the
    topics a paper is not about are kept, marked, for a list's decision of which topics
    are generic (`bib.extract.generic.GenericTopics` after this stage)."""
    vocabulary = vocabulary or shipped()
    kinds = frozenset(kinds)
    for batch in parallel.batches(records):  # see `_tag_batch`
        yield from _tag_batch(batch, vocabulary, max_topics, kinds, loose)


def stage(
    vocabulary: Vocabulary | None = None,
    max_topics: int = DEFAULT_MAX_TOPICS,
    kinds: Collection[TagKind] = DEFAULT_KINDS,
    loose: bool = False,
) -> Callable[[Iterable[Record]], Iterator[Record]]:
    """A pipeline stage with these settings (see `bib.convert.Stage`, and `tag_stream` for
    `loose`)."""

    def run(records: Iterable[Record]) -> Iterator[Record]:
        return tag_stream(
            records, vocabulary=vocabulary, max_topics=max_topics, kinds=kinds, loose=loose
        )

    return run
