"""Dataset and model tags: named benchmarks and models, from curated lists plus a few patterns.

Precision matters more than recall here: a wrong `dataset` keyword in a bibliography is
worse than a missing one. So a name is tagged when it is curated (`bib/data/datasets.json`,
`bib/data/models.json`) or when its shape and context leave little doubt:

- `X-Bench`, `XBench`, `X Bench` are benchmarks;
- name-like words (inner capitals or digits: `ComplexLP`, `MATH500`) or a list of capitalised
  words right before `benchmark(s)`/`dataset(s)`, or inside parentheses right after them;
- a curated model family followed by a version or size (`Qwen2.5-7B-Instruct`,
  `Llama-3.1-8B`, `LLaDA-8B-Instruct`), or any name ending in a parameter count (`Foo-7B`).

Curated names that are ordinary words too (`Countdown`, `Phi`, `Claude`) need such a cue
or another name beside them. The paper's own method name is never a dataset or a model.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final, NamedTuple

import ahocorasick

from bib.extract.vocabulary import Entity, Vocabulary, word_view
from bib.record import Span

_NAME_GAP: Final = re.compile(r"[ \-]")
_SENTENCE_END: Final = re.compile(r"[.!?](?<!\be\.g.)(?<!\bi\.e.)(?<!\bvs.)(?<!\bal.)(?:\s|$)")
"""A full stop, `!` or `?` that ends a sentence (not `e.g.`, `i.e.`, `vs.`, `et al.`). The mark
comes first and the look-behinds read it too: the engine then skips to the next mark,
where look-behinds first tried at every character took 13 times as long."""
_DATASET_CUE: Final = re.compile(
    r"\b(?:bench(?:mark)?s?|datasets?|corpus|corpora|suites?|tasks?)\b", re.I
)
_MODEL_CUE: Final = re.compile(
    r"\b(?:models?|systems?|checkpoints?|encoders?|LLMs?|LMs?|VLMs?|MLLMs?|famil(?:y|ies)|"
    r"series|backbones?)\b"
)
_NUMBER_WORDS: Final = frozenset(
    [
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "twelve",
        "several",
        "multiple",
        "many",
        "various",
        "diverse",
        "these",
        "those",
        "other",
        "public",
        "internal",
        "standard",
        "popular",
        "existing",
        "our",
    ]
)
_BENCH: Final = re.compile(r"(?<![\w*])([A-Z][\w*.+]*?(?:-[\w.+]+)*?-?(?:Bench|bench))(?![\w])")
_NAME = r"(?:[A-Z][\w.+*]*(?:-[\w.+]+)*|[a-z]+[A-Z][\w.+]*(?:-[\w.+]+)*)"
_MNAME = rf"{_NAME}(?: {_NAME}){{0,3}}"
_CUE_AFTER_LIST: Final = re.compile(
    rf"({_MNAME}(?:\s*,\s*{_MNAME})*(?:\s*,?\s*(?:and|or)\s+{_MNAME})?)"
    r"(?:\s+[a-z][a-z-]+)?\s+(?:benchmarks?|datasets?|corpus)\b"
)
_CUE_AFTER_LIST_AT_END: Final = re.compile(_CUE_AFTER_LIST.pattern + r"\Z")
_LAST_OUTSIDE_LIST: Final = re.compile(
    r".*\s((?![A-Z,]|[a-z]+[A-Z]|(?:and|or)\s)\S)\S*\s+\S", re.DOTALL
)
"""The last word before the word before a cue that no `_CUE_AFTER_LIST` match can hold: in
one, a word follows whitespace only if it starts a name (`GSM8K`, `iPhone`), is `and`/`or`,
or is the lower-case word just before the cue (`math benchmarks`). Searching for a list
from there finds what searching the whole reach finds, far faster."""
_CUE_WORD: Final = re.compile(r"\b(?:benchmarks?|datasets?|corpus)\b")
_MNAME_RE: Final = re.compile(_MNAME)
_LIST_AFTER_CUE: Final = re.compile(
    rf"\b(?:benchmarks?|datasets?)\s*(?:\(|:|,?\s+(?:such as|including|like|namely)\s+)\s*"
    rf"({_MNAME}(?:\s*,\s*{_MNAME})*(?:\s*,?\s*(?:and|or)\s+{_MNAME})?)"
)
_SIZE = r"\d+(?:\.\d+)?[BMK]"
_VERSION = r"(?:[- ]?v?\d+(?:\.\d+)*[a-z]?)"
_SUFFIX = (
    r"(?:-(?:" + _SIZE + r"|\d+x\d+B|A\d+B|Instruct|Chat|Base|Mini|mini|Pro|Flash|Lite|Small|"
    r"Medium|Large|Turbo|VL|Math|Coder|Distill|Preview|it|Nano|Max|Plus|Ultra|Thinking|R1|"
    r"Sonnet|Opus|Haiku|V\d+(?:\.\d+)?|\d+(?:\.\d+)?))"
)
_SIZE_HINT: Final = re.compile(r"-" + _SIZE)
"""Every `_SIZED` match contains this; a literal-led pattern scans far faster."""
_SIZED: Final = re.compile(
    r"(?<![\w-])([A-Z][A-Za-z]+(?:-[A-Za-z]+)*(?:\d+(?:\.\d+)?)?-"
    + _SIZE
    + r"(?:-[A-Za-z]+)*)(?![\w-])"
)


class NameHit(NamedTuple):
    """A curated name found in a text."""

    start: int
    end: int
    kind: str
    """`dataset` or `model`."""
    entity: Entity


class EntityMatch(NamedTuple):
    """A dataset or model of an abstract (a named tuple: cheap to make for every record)."""

    value: str
    label: str
    evidence: tuple[Span, ...]


def name_variants(name: str) -> set[str]:
    """A name written with a space, a hyphen or nothing between its parts (AIME 24 / AIME24)."""
    parts = _NAME_GAP.split(name)
    if len(parts) == 1 or len(parts) > 4:
        return {name}
    out = set()
    for glue in itertools.product((" ", "-", ""), repeat=len(parts) - 1):
        joined = parts[0] + "".join(g + p for g, p in zip(glue, parts[1:], strict=True))
        if glue.count("") and not all(p[:1].isdigit() or p[:1].isupper() for p in parts[1:]):
            continue
        out.add(joined)
    return out


CUE_START, BENCH = 1, 2
"""Marks of the automaton keys that find where a pattern may match (see `_pattern_datasets`):
a word starting `benchmark`, `dataset` or `corpus`, and `bench` anywhere (in any case)."""
_MARKED = {" benchmark": CUE_START, " dataset": CUE_START, " corpus": CUE_START, "bench": BENCH}


class WordKey(NamedTuple):
    """What a key of the word automaton (`word_view` text) stands for: names, cue words."""

    length: int
    """How far back of the hit's end in the view the word starts in the text."""
    names: dict[str, tuple[str, Entity]] | None
    """The curated names that `word_view` reads as the key, as written -> (kind, entity)."""
    cues: tuple[int, ...] | None
    """The contribution cues the word may start (`bib.extract.tags`; `()`: a `we`)."""
    mark: int
    """`CUE_START` or `BENCH` (0: neither)."""


@dataclass(frozen=True)
class CompiledEntities:
    automaton: ahocorasick.Automaton
    """Over `word_view(text)`; values are `keys`'s."""
    keys: dict[str, WordKey]
    """Key -> the names `word_view` reads as it and its mark (`cues` is None: the contribution
    cue words join them in a shared automaton)."""
    families: re.Pattern[str]


def compiled_entities(vocabulary: Vocabulary) -> CompiledEntities:
    """The vocabulary's dataset and model names, compiled once per vocabulary."""
    return vocabulary.entities


def compile_entities(datasets: tuple[Entity, ...], models: tuple[Entity, ...]) -> CompiledEntities:
    written: dict[str, tuple[str, Entity]] = {}
    for kind, entities in (("dataset", datasets), ("model", models)):
        for entity in entities:
            for name in entity.names:
                for variant in name_variants(name):
                    written[variant] = (kind, entity)
    named: dict[str, dict[str, tuple[str, Entity]]] = {}
    for variant, value in written.items():
        named.setdefault(word_view(variant), {})[variant] = value
    keys = {key: WordKey(len(key) - 1, names, None, 0) for key, names in named.items()}
    for key, mark in _MARKED.items():
        found = keys.get(key)
        names = found.names if found is not None else None
        keys[key] = WordKey(len(key.strip()), names, None, mark)
    automaton = ahocorasick.Automaton()
    for key, word in keys.items():
        automaton.add_word(key, word)
    automaton.make_automaton()
    model_names = sorted({n for e in models for n in e.names}, key=len, reverse=True)
    families = re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(n) for n in model_names) + r")"
        r"(" + _VERSION + r"?" + _SUFFIX + r"*)(?![\w])"
    )
    return CompiledEntities(automaton, keys, families)


def _bounded(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before in "-_") and not (after.isalnum() or after == "_")


def _sentence(text: str, position: int) -> tuple[int, int]:
    start = 0
    for m in _SENTENCE_END.finditer(text, 0, position):
        start = m.end()
    end = _SENTENCE_END.search(text, position)
    return start, end.end() if end else len(text)


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, reach: int = 60) -> bool:
    return bool(pattern.search(text[max(0, start - reach) : end + reach]))


def _add(found: dict[str, tuple[str, set[Span]]], value: str, label: str, span: Span) -> None:
    if value not in found:
        found[value] = (label, set())
    found[value][1].add(span)


def _excluded(name: str, method: str, vocabulary: Vocabulary) -> bool:
    if not name or name == method or name.rstrip("s") == method:
        return True
    return name.lower() in {"bench", "benchmark", "dataset", "the", "our", "this"}


def match_entities(
    text: str,
    vocabulary: Vocabulary,
    *,
    method: str = "",
    names: Iterable[tuple[int, WordKey]] | None = None,
) -> tuple[list[EntityMatch], list[EntityMatch]]:
    """Datasets and models named in `text`, each with the spans that name it.

    `names`: the hits over `word_view(text)` of an automaton holding `CompiledEntities.keys`
    (and other words, whose values have no names), for a caller that scanned already."""
    if not text:
        return [], []
    compiled = compiled_entities(vocabulary)
    datasets: dict[str, tuple[str, set[Span]]] = {}
    models: dict[str, tuple[str, set[Span]]] = {}
    taken = Taken()
    if names is None:
        names = compiled.automaton.iter(word_view(text))
    curated, versioned, benches, cues = _curated_hits(text, names)

    for start, end, _kind, entity in _family_hits(text, compiled, curated, versioned):
        surface = text[start:end]
        if _excluded(surface, method, vocabulary):
            continue
        contextual = entity.contextual and surface == entity.name
        if contextual and not _contextual_ok(text, start, end, _MODEL_CUE, curated, "model"):
            continue
        _add(models, surface, entity.name, (start, end))
        taken.add((start, end))
    for start, end, kind, entity in curated:
        if kind != "dataset" or _overlaps((start, end), taken):
            continue
        if _excluded(text[start:end], method, vocabulary):
            continue
        if entity.contextual and not _contextual_ok(text, start, end, _DATASET_CUE, curated, kind):
            continue
        _add(datasets, entity.name, entity.name, (start, end))
        taken.add((start, end))
    for start, end in _pattern_datasets(text, benches, cues):
        name = text[start:end]
        if _overlaps((start, end), taken) or _excluded(name, method, vocabulary):
            continue
        if name in vocabulary.compiled:
            continue
        _add(datasets, name, name, (start, end))
        taken.add((start, end))
    for m in finditer_at(_SIZED, text, _sized_starts(text)):
        span = m.span(1)
        if _overlaps(span, taken) or _excluded(m.group(1), method, vocabulary):
            continue
        _add(models, m.group(1), m.group(1), span)
        taken.add(span)
    return _finish(datasets), _finish(models)


def _finish(found: dict[str, tuple[str, set[Span]]]) -> list[EntityMatch]:
    if not found:
        return []
    out = [
        EntityMatch(value, label, tuple(sorted(spans))) for value, (label, spans) in found.items()
    ]
    out.sort(key=lambda m: m.evidence[0])
    return out


def _overlaps(span: Span, taken: Taken) -> bool:
    return taken.overlaps(span)


class Taken:
    """Spans already given to an entity, asked whether a new span overlaps one of them.

    A few spans are simply compared in turn; past `LISTED` spans, each is also filed under
    the `CELL`-character cells it touches and a question reads only the cells of its own
    span, so that a text naming a million entities costs linear time, not quadratic
    (tests/tags/test_entities.py checks it against the plain comparison).
    """

    LISTED = 32
    CELL = 64

    __slots__ = ("cells", "spans")

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.cells: dict[int, list[Span]] | None = None

    def add(self, span: Span) -> None:
        self.spans.append(span)
        if self.cells is not None:
            self._file(span)
        elif len(self.spans) > self.LISTED:
            self.cells = {}
            for each in self.spans:
                self._file(each)

    def _file(self, span: Span) -> None:
        assert self.cells is not None
        low, high = span
        for cell in range(low // self.CELL, (max(high, low + 1) - 1) // self.CELL + 1):
            self.cells.setdefault(cell, []).append(span)

    def overlaps(self, span: Span) -> bool:
        low, high = span
        if self.cells is None:
            return any(low < end and start < high for start, end in self.spans)
        for cell in range(low // self.CELL, (max(high, low + 1) - 1) // self.CELL + 1):
            for start, end in self.cells.get(cell, ()):
                if low < end and start < high:
                    return True
        return False


def _curated_hits(
    text: str, names: Iterable[tuple[int, WordKey]]
) -> tuple[list[NameHit], dict[int, Entity], list[int], list[int]]:
    """Whole-word curated names (leftmost, longest), where a model name starts a longer
    word with a version (`Qwen4-8B`), for the family pattern to try, and the offsets of the
    `BENCH` and `CUE_START` hits."""
    hits = []
    versioned: dict[int, Entity] = {}
    marked: tuple[list[int], list[int], list[int]] = ([], [], [])
    for end, (length, forms, _, mark) in names:
        start = end - length
        if mark:
            marked[mark].append(start)
        if forms is None:
            continue
        found = forms.get(text[start:end])
        if found is None:
            continue
        kind, entity = found
        end -= 1
        if _bounded(text, start, end + 1):
            hits.append(NameHit(start, end + 1, kind, entity))
        elif kind == "model" and text[end + 1 : end + 2].isdigit():
            versioned.setdefault(start, entity)
    _, cues, benches = marked
    if len(cues) > 1:
        cues.sort()
    if len(hits) < 2:
        return hits, versioned, benches, cues
    hits.sort(key=lambda h: (h.start, h.start - h.end))
    kept, reach = [], -1
    for hit in hits:
        if hit.start >= reach:
            kept.append(hit)
            reach = hit.end
    return kept, versioned, benches, cues


def _family_hits(
    text: str,
    compiled: CompiledEntities,
    curated: list[NameHit],
    versioned: dict[int, Entity],
) -> list[NameHit]:
    """Curated model names, stretched over the version and size that follow them."""
    starts = {hit.start: hit for hit in curated if hit.kind == "model"}
    for start, entity in versioned.items():
        if start not in starts and (start == 0 or not text[start - 1].isalnum()):
            starts[start] = NameHit(start, start, "model", entity)
    out = []
    for start in sorted(starts):
        hit = starts[start]
        m = compiled.families.match(text, start)
        end = max(m.end(), hit.end) if m else hit.end
        if end > start:
            out.append(NameHit(start, end, "model", hit.entity))
    return out


def _contextual_ok(
    text: str,
    start: int,
    end: int,
    cue: re.Pattern[str],
    curated: list[NameHit],
    kind: str,
) -> bool:
    """An ordinary-word name counts beside a cue word or another name of its kind."""
    if _near(cue, text, start, end, reach=40):
        return True
    lo, hi = _sentence(text, start)
    return any(
        k == kind and not e.contextual and lo <= s < hi and s != start for s, _, k, e in curated
    )


def finditer_at(
    pattern: re.Pattern[str], text: str, starts: Iterable[int]
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` when every match of `pattern` can only start at one of the
    sorted positions `starts`: tries those alone instead of every character."""
    reach = 0
    for start in starts:
        if start < reach:
            continue
        m = pattern.match(text, start)
        if m is not None and m.end() > start:
            yield m
            reach = m.end()


_ASCII_NAME_CHARS: Final = frozenset(string.ascii_letters + string.digits + ".-")


def _sized_starts(text: str) -> list[int]:
    """Where a `_SIZED` match may start: a capital that opens the run of ASCII name
    characters before a `-7B`-like size, or follows a `.` inside that run."""
    starts: set[int] = set()
    for hint in _SIZE_HINT.finditer(text):
        end = hint.start()
        at = end
        while at and text[at - 1] in _ASCII_NAME_CHARS:
            at -= 1
        starts.update(
            p for p in range(at, end) if "A" <= text[p] <= "Z" and (p == at or text[p - 1] == ".")
        )
    return sorted(starts)


def _bench_starts(text: str, benches: Iterable[int]) -> list[int]:
    """Where a `_BENCH` match may start: a capital that opens the run of name characters
    (`\\w*.+-`) ending in `Bench`/`bench` (at one of `benches`), or follows a `.`, `+` or
    `-` inside that run."""
    starts: set[int] = set()
    for end in benches:
        at = end
        while at and (text[at - 1].isalnum() or text[at - 1] in "_*.+-"):
            at -= 1
        starts.update(
            p
            for p in range(at, end + 1)
            if "A" <= text[p] <= "Z" and (p == at or text[p - 1] in ".+-")
        )
    return sorted(starts)


def _pattern_datasets(text: str, benches: list[int], cues: list[int]) -> list[Span]:
    """Spans of the names that the patterns find. `benches`, `cues`: where `bench` occurs
    and where a word starts `benchmark`, `dataset` or `corpus`, in any case (the marked hits
    of the automaton pass, sorted): the patterns, which need them as written, are tried only
    there (finding them with `str.find` took as long as the rest)."""
    spans: list[Span] = []
    if benches:
        spans += [m.span() for m in finditer_at(_BENCH, text, _bench_starts(text, benches))]
    if not cues:
        return spans
    matches = list(finditer_at(_LIST_AFTER_CUE, text, cues))
    for cue in finditer_at(_CUE_WORD, text, cues):
        reach = max(0, cue.start() - 160)
        outside = _LAST_OUTSIDE_LIST.match(text, reach, cue.start())
        if outside is not None:
            reach = outside.start(1) + 1
        m = _CUE_AFTER_LIST_AT_END.search(text, reach, cue.end())
        if m and _list_ok(text, m.start(1), list(_MNAME_RE.finditer(m.group(1)))):
            matches.append(m)
    for m in matches:
        for name in _MNAME_RE.finditer(m.group(1)):
            start = m.start(1) + name.start()
            spans.append((start, start + len(name.group())))
    return spans


def _list_ok(text: str, start: int, names: list[re.Match[str]]) -> bool:
    """Names before `benchmark(s)` count when name-like, or several, and not a sentence start."""
    before = text[max(0, start - 20) : start].split()
    if before and before[-1].lower().strip("(,") in _NUMBER_WORDS:
        return False
    if not before or before[-1].endswith((".", "!", "?")):
        return False
    if len(names) > 1:
        return True
    word = names[0].group()
    return " " in word or any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])
