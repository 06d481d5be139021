"""The tag vocabulary: topics, datasets and models, loaded from data files and compiled once.

The shipped lists live in `bib/data/{topics,datasets,models}.json`; a user file (`--vocab`)
adds or overrides entries (topics by slug, datasets and models by name) and is validated
against the same schema (`schema/vocabulary.schema.json`), so a typo is one clear error
naming the file and the JSON path instead of a silently ignored topic.

Compilation turns every synonym into its spelling variants (plural, hyphenated or joined,
British or American) and puts them, the abbreviations (checked for their exact case on a
hit) and the cue phrases that weigh a mention into one Aho-Corasick automaton. Matching a
record then costs one linear pass over its abstract however large the vocabulary is.
Compiling takes about 35 ms, more than tagging a few hundred records, so the automaton is
kept (pickled) in the user cache directory and read back by the next run (about 4 ms).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import pickle
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import ahocorasick
import platformdirs

import schema
from bib.atomic import write_atomic
from bib.errors import BibError

if TYPE_CHECKING:
    from bib.extract.entities import CompiledEntities

SEPARATORS = "-\u2010\u2011\u2012\u2013\u2014\u2212_/\n\r\t\u00a0"
_PUNCTUATION = "".join(chr(c) for c in range(128) if not chr(c).isalnum())
SCAN_TABLE = str.maketrans(
    {c: " " for c in _PUNCTUATION + SEPARATORS + "\u2018\u2019\u201c\u201d\u2026\u00b7\u2022"}
)
"""For scanning: every punctuation mark becomes a space, one-for-one, so a whole word is
exactly a run between spaces and a phrase cannot match across a comma or a full stop
(`model, reasoning` scans as `model  reasoning`, two spaces)."""


SCAN_BYTES_LOWER = bytes(
    ord(chr(c).lower()) if chr(c).isalnum() else 32 for c in range(128)
) + bytes(range(128, 256))
"""SCAN_TABLE and lower-casing for ASCII text as one byte table: much faster to apply."""


def word_view(text: str) -> str:
    """`text` lower-cased, with every character other than an ASCII letter or digit as a
    space, after one more space: what the automata scan. A key (a space, then a phrase or
    name so viewed) then matches only where a word may start, and an automaton spends most
    of the text at its root (one pass costs a third of a pass over the text itself).
    Offsets shift by one; non-ASCII letters read as spaces, so a hit is checked against the
    text where that matters."""
    return " " + text.encode("ascii", "replace").translate(SCAN_BYTES_LOWER).decode()


SPECIFICITY_WEIGHT = (0.25, 0.55, 0.85, 1.0, 1.1, 1.15)
"""Ranking weight by specificity 0, 1, 2, ...: umbrella topics rank below specific ones."""


def scan_key(phrase: str) -> str:
    """The automaton key for a phrase: punctuation as spaces, one space between words, and a
    leading space so that a key can only match where a word begins."""
    return " " + " ".join(phrase.translate(SCAN_TABLE).split())


_BRITISH_WORDS = {
    "behaviour": "behavior",
    "colour": "color",
    "neighbour": "neighbor",
    "favour": "favor",
    "labour": "labor",
    "modelling": "modeling",
    "modelled": "modeled",
    "labelling": "labeling",
    "labelled": "labeled",
    "travelling": "traveling",
    "centre": "center",
    "analyse": "analyze",
    "analysed": "analyzed",
    "catalogue": "catalog",
    "defence": "defense",
    "licence": "license",
    "programme": "program",
    "memorisation": "memorization",
    "judgement": "judgment",
    "grey": "gray",
    "artefact": "artifact",
}
_AMERICAN_WORDS = {american: british for british, american in _BRITISH_WORDS.items()}
_IZE = re.compile(r"^(\w{2,}?)(iz)(e|ed|es|ing|er|ers|ation|ations)$")
_ISE = re.compile(r"^(\w{2,}?)(is)(ation|ations)$")
_ISE_VERB = re.compile(r"^(\w+?)is(e|ed|es|ing)$")
_ISE_VERBS = frozenset(
    [
        "optim",
        "general",
        "token",
        "normal",
        "regular",
        "minim",
        "maxim",
        "summar",
        "recogn",
        "character",
        "parameter",
        "quant",
        "visual",
        "personal",
        "special",
        "organ",
        "util",
        "random",
        "synthes",
        "emphas",
        "categor",
        "standard",
        "real",
        "prior",
        "vector",
        "linear",
        "stabil",
        "central",
        "local",
        "initial",
        "factor",
        "custom",
    ]
)
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "of",
        "on",
        "or",
        "the",
        "to",
        "via",
        "with",
    ]
)


def spelling_variants(word: str) -> set[str]:
    """American and British spellings of one lower-case word (optimization/optimisation)."""
    variants = {word}
    if word in _BRITISH_WORDS:
        variants.add(_BRITISH_WORDS[word])
    if word in _AMERICAN_WORDS:
        variants.add(_AMERICAN_WORDS[word])
    m = _IZE.match(word)
    if m and (m.group(3).startswith("ation") or m.group(1) in _ISE_VERBS):
        variants.add(f"{m.group(1)}is{m.group(3)}")
    if m := _ISE.match(word):
        variants.add(f"{m.group(1)}iz{m.group(3)}")
    if (m := _ISE_VERB.match(word)) and m.group(1) in _ISE_VERBS:
        variants.add(f"{m.group(1)}iz{m.group(2)}")
    return variants


_IRREGULAR_PLURALS = {
    "matrix": "matrices",
    "index": "indices",
    "vertex": "vertices",
    "hypothesis": "hypotheses",
    "analysis": "analyses",
    "criterion": "criteria",
    "phenomenon": "phenomena",
    "datum": "data",
    "corpus": "corpora",
    "child": "children",
}
_IRREGULAR_SINGULARS = {plural: singular for singular, plural in _IRREGULAR_PLURALS.items()}


def number_variants(word: str) -> set[str]:
    """The singular and plural of a lower-case noun, as far as simple English rules go."""
    forms = {word}
    if word in _IRREGULAR_PLURALS:
        return {word, _IRREGULAR_PLURALS[word]}
    if word in _IRREGULAR_SINGULARS:
        return {word, _IRREGULAR_SINGULARS[word]}
    if not word[-1:].isalpha() or len(word) < 3:
        return forms
    if word.endswith("ies") and len(word) > 4:
        forms.add(word[:-3] + "y")
    elif word.endswith(("sses", "xes", "ches", "shes")):
        forms.add(word[:-2])
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        forms.add(word[:-1])
    elif word.endswith("y") and word[-2:-1] not in set("aeiou"):
        forms.add(word[:-1] + "ies")
    elif word.endswith(("s", "x", "ch", "sh")):
        forms.add(word + "es")
    else:
        forms.add(word + "s")
    return forms


def phrase_variants(phrase: str, limit: int = 96) -> set[str]:
    """Every folded surface form a synonym may take in an abstract."""
    raw = phrase.strip()
    tokens = re.split(r"(\s+|[" + re.escape(SEPARATORS) + r"])", raw.lower())
    words: list[str] = []
    gaps: list[bool] = []
    for token in tokens:
        if not token:
            continue
        if token.isspace() or (len(token) == 1 and token in SEPARATORS):
            if words and len(gaps) < len(words):
                gaps.append(token.strip() != "")
            continue
        words.append(token)
    gaps = gaps[: max(len(words) - 1, 0)]
    if not words:
        return set()
    choices: list[list[str]] = []
    for i, word in enumerate(words):
        forms = spelling_variants(word)
        if i == len(words) - 1:
            forms = {n for f in forms for n in number_variants(f)}
        choices.append(sorted(forms))
    joins = [[" ", ""] if hyphen else [" "] for hyphen in gaps]
    out: set[str] = set()
    for combo in itertools.product(*choices):
        for glue in itertools.product(*joins):
            text = combo[0] + "".join(g + w for g, w in zip(glue, combo[1:], strict=True))
            out.add(text)
            if len(out) >= limit:
                return out
    return out


def initials(words: Iterable[str]) -> str:
    """Upper-case initials of the content words, for checking a defined acronym."""
    return "".join([w[0] for w in words if w.lower() not in FUNCTION_WORDS]).upper()


@dataclass(frozen=True, slots=True)
class Topic:
    """One concept: a plain label, the words for it, and one or more broader topics."""

    slug: str
    label: str
    parents: tuple[str, ...] = ()
    synonyms: tuple[str, ...] = ()
    abbreviations: tuple[str, ...] = ()
    specificity: int | None = None
    combines: tuple[str, ...] = ()
    keeps_parts: bool = False
    implies: tuple[str, ...] = ()
    subsumes: tuple[str, ...] = ()
    source: str = ""
    """Where the topic comes from (a taxonomy and its identifier, or `bib`)."""
    generic: bool = False
    """Fits most papers of a list in its field: tagged only when the paper is about it."""

    @property
    def parent(self) -> str | None:
        """The first (primary) parent: the one depth and specificity are counted along."""
        return self.parents[0] if self.parents else None


@dataclass(frozen=True, slots=True)
class Entity:
    """A curated dataset or model name with its aliases."""

    name: str
    aliases: tuple[str, ...] = ()
    contextual: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


class TopicKey(NamedTuple):
    """What a key of the topics automaton stands for."""

    length: int
    """The key's length less its leading space: a hit ending at `end` starts at `end - length`."""
    slug: str | None
    """The topic whose synonym the key is, in any case (None: no synonym)."""
    exact: dict[str, str] | None
    """Abbreviations the key is, as spelled (`MoE`) -> their topics (None: none)."""
    cue: int
    """A weighing cue (`CUE_*`; 0: none)."""


@dataclass(frozen=True)
class CompiledTopics:
    """The automaton a record is scanned with; built once per vocabulary."""

    automaton: Any
    """Over the lower-cased scan text; values are `TopicKey`s."""
    phrases: int
    """How many distinct surface forms it knows."""
    ascii: bool
    """Every key is ASCII, so other characters can be scanned as `?` (one for one)."""
    continued: frozenset[str] = frozenset()
    """Words that some phrase continues after (`key` in `key value cache`)."""
    continuing: frozenset[str] = frozenset()
    """Words that continue some phrase (`value`, `cache`)."""
    abbreviations: frozenset[str] = frozenset()
    """Every abbreviation as spelled (`MoE`): an abstract defining one needs no linking."""

    def __contains__(self, phrase: str) -> bool:
        key = " " + phrase if phrase.isalnum() else scan_key(phrase)
        value = self.automaton.get(key.lower(), None)
        if value is None:
            return False
        return value.slug is not None or (value.exact is not None and phrase in value.exact)


@dataclass(frozen=True)
class Vocabulary:
    topics: Mapping[str, Topic]
    datasets: tuple[Entity, ...] = ()
    models: tuple[Entity, ...] = ()
    sources: tuple[str, ...] = ()

    def depth(self, slug: str) -> int:
        return self._depths[slug]

    @cached_property
    def _depths(self) -> dict[str, int]:
        """Topic -> how many parents up its tree goes (a loop of parents ends it)."""
        out = {}
        for slug in self.topics:
            depth, seen, node = 0, {slug}, self.topics[slug].parent
            while node and node in self.topics and node not in seen:
                seen.add(node)
                depth += 1
                node = self.topics[node].parent
            out[slug] = depth
        return out

    def specificity(self, slug: str) -> int:
        """How specific a topic is: its `specificity`, else its depth in the tree.

        Depth counts from 2: only topics marked so (`specificity` 0 or 1) are umbrellas, so
        a user's topic without a parent is not mistaken for one.
        """
        topic = self.topics[slug]
        return topic.specificity if topic.specificity is not None else max(self.depth(slug), 2)

    def ancestors(self, slug: str) -> tuple[str, ...]:
        return self._ancestors[slug]

    @cached_property
    def _ancestors(self) -> dict[str, tuple[str, ...]]:
        """Topic -> every topic above it: its parents, theirs, and so on, nearest first
        (breadth first over all parents; a loop of parents ends it)."""
        out = {}
        topics = self.topics
        for slug in topics:
            found: dict[str, None] = {}
            frontier = [p for p in topics[slug].parents if p in topics]
            while frontier:
                following = []
                for node in frontier:
                    if node != slug and node not in found:
                        found[node] = None
                        following += [p for p in topics[node].parents if p in topics]
                frontier = following
            out[slug] = tuple(found)
        return out

    @cached_property
    def combinations(self) -> tuple[tuple[str, str, frozenset[str], bool], ...]:
        """`(topic, part, context, keeps part)` for every topic that stands for another topic
        in a given context (see `combines`), in file order."""
        return tuple(
            (t.slug, t.combines[0], frozenset(t.combines[1:]), t.keeps_parts)
            for t in self.topics.values()
            if t.combines and t.combines[0] in self.topics and t.combines[0] != t.slug
        )

    @cached_property
    def weights(self) -> dict[str, tuple[float, bool]]:
        """Topic -> (ranking weight from its specificity, whether it is an umbrella)."""
        top = len(SPECIFICITY_WEIGHT) - 1
        return {
            slug: (
                SPECIFICITY_WEIGHT[min(self.specificity(slug), top)],
                self.specificity(slug) <= 1,
            )
            for slug in self.topics
        }

    @cached_property
    def ranking(self) -> tuple[dict[str, float], frozenset[str]]:
        """`weights` as the ranking reads it: topic -> weight, and the set of umbrellas."""
        weights = self.weights
        return (
            {slug: weight for slug, (weight, _) in weights.items()},
            frozenset(slug for slug, (_, umbrella) in weights.items() if umbrella),
        )

    @cached_property
    def descendants(self) -> dict[str, frozenset[str]]:
        """Topic -> every topic below it in the tree."""
        below: dict[str, set[str]] = {slug: set() for slug in self.topics}
        for slug in self.topics:
            for ancestor in self.ancestors(slug):
                below[ancestor].add(slug)
        return {slug: frozenset(found) for slug, found in below.items()}

    @cached_property
    def implications(self) -> dict[str, tuple[str, ...]]:
        """Topic -> the broader topics it always belongs to (see `implies`)."""
        return {
            t.slug: tuple(i for i in t.implies if i in self.topics)
            for t in self.topics.values()
            if t.implies
        }

    @cached_property
    def generic(self) -> frozenset[str]:
        """The topics marked `generic` (see `bib.extract.topics._demoted`)."""
        return frozenset(t.slug for t in self.topics.values() if t.generic)

    @cached_property
    def subsumers(self) -> dict[str, frozenset[str]]:
        """Topic -> the topics that make it redundant as a tag (see `subsumes`): those that
        declare it and every topic below them."""
        out: dict[str, set[str]] = {}
        for topic in self.topics.values():
            for other in topic.subsumes:
                if other in self.topics:
                    found = out.setdefault(other, set())
                    found.add(topic.slug)
                    found.update(self.descendants[topic.slug])
        return {slug: frozenset(found) for slug, found in out.items()}

    @cached_property
    def compiled(self) -> CompiledTopics:
        return cached_compile(self)

    @cached_property
    def entities(self) -> CompiledEntities:
        """The dataset and model names compiled (see `bib.extract.entities`)."""
        from bib.extract.entities import compile_entities

        return compile_entities(self.datasets, self.models)

    @cached_property
    def tag_words(self) -> ahocorasick.Automaton:
        """The entity names and contribution cue words in one automaton (see
        `bib.extract.tags`)."""
        from bib.extract.tags import compile_tag_words

        return compile_tag_words(self)


PASSING_CUES = ("e g", "such as", "including", "like", "versus", "vs", "baseline", "baselines")
"""A topic named after these, in the same clause, is an example or a comparison."""
CONTRAST_CUES = (
    *("unlike", "instead of", "rather than", "beyond", "without"),
    *("alternative to", "alternatives to", "as opposed to", "in contrast to"),
)
"""Like PASSING_CUES, but a comma ends their reach (`Unlike X, we ...`)."""
COMPARISON_CUES = (
    *("compared to", "compared with", "than", "outperform", "outperforms", "outperforming"),
)
"""Like CONTRAST_CUES, but the task the comparison is made on is not passing: `outperforms
X on Y` names the baseline X in passing, and the setting Y (`on`, `in`, `across`) is not."""
COMPARISON_SETTINGS = ("on", "in", "across")
CLAIM_CUES = tuple(
    f"{who} {verb}"
    for who in ("we", "we also", "we further", "we first", "this paper", "this work")
    for verb in (
        *("propose", "introduce", "present", "develop", "study", "investigate", "address"),
        *("formulate", "formalize", "formalise", "proposes", "introduces", "presents"),
        *("studies", "investigates"),
        *("design", "explore", "revisit", "rethink", "examine", "analyze", "analyse"),
    )
)
"""A sentence with these states the authors' aim: its topics are central."""
CUE_PASSING: Final = 1
CUE_CONTRAST: Final = 2
CUE_CLAIM: Final = 3
CUE_COMPARISON: Final = 4


def compile_topics(vocabulary: Vocabulary) -> CompiledTopics:
    """Build the one automaton. Where two topics claim one phrase, the more specific wins.

    Keys are lower case. Synonyms match in any case; an abbreviation's key carries the
    exact spellings it accepts (`MoE`, `MoEs`), checked against the text when it matches.
    The cue phrases that weigh mentions ride in the same automaton, so one pass finds both.
    """
    synonyms: dict[str, str] = {}
    cased: dict[str, dict[str, str]] = {}

    def stronger(slug: str, owner: str | None) -> bool:
        return owner is None or vocabulary.specificity(slug) >= vocabulary.specificity(owner)

    for topic in vocabulary.topics.values():
        for phrase in (topic.label, *topic.synonyms):
            for variant in phrase_variants(phrase):
                key = scan_key(variant)
                if key != " " and stronger(topic.slug, synonyms.get(key)):
                    synonyms[key] = topic.slug
        for abbreviation in topic.abbreviations:
            for form in (abbreviation, abbreviation + "s"):
                exact = scan_key(form)
                forms = cased.setdefault(exact.lower(), {})
                if stronger(topic.slug, forms.get(exact[1:])):
                    forms[exact[1:]] = topic.slug
    automaton = ahocorasick.Automaton()
    for key in synonyms.keys() | cased.keys():
        automaton.add_word(key, TopicKey(len(key) - 1, synonyms.get(key), cased.get(key), 0))
    cue_lists = (
        (CUE_PASSING, PASSING_CUES),
        (CUE_CONTRAST, CONTRAST_CUES),
        (CUE_COMPARISON, COMPARISON_CUES),
        (CUE_CLAIM, CLAIM_CUES),
    )
    for cue_kind, cues in cue_lists:
        for cue in cues:
            key = scan_key(cue)
            if key not in automaton:
                automaton.add_word(key, TopicKey(len(key) - 1, None, None, cue_kind))
    automaton.make_automaton()
    keys = synonyms.keys() | cased.keys()
    ascii_only = all(key.isascii() for key in keys)
    phrases = [key.split() for key in synonyms if " " in key[1:]]
    return CompiledTopics(
        automaton=automaton,
        phrases=len(keys),
        ascii=ascii_only,
        continued=frozenset(w for words in phrases for w in words[:-1]),
        continuing=frozenset(w for words in phrases for w in words[1:]),
        abbreviations=frozenset(form for forms in cased.values() for form in forms),
    )


CACHED_VOCABULARIES = 8
"""Compiled vocabularies kept in the cache (about 1 MB each): the ones used last, of any code
version (a file of an old version ages out as newer ones are written)."""


def cache_dir() -> Path:
    """Where compiled vocabularies are kept between runs: `BIB_CACHE_DIR`, else the user's
    cache directory."""
    base = os.environ.get("BIB_CACHE_DIR") or platformdirs.user_cache_dir("bib")
    return Path(base) / "vocabulary"


@cache
def _code_version() -> str:
    """What a compiled vocabulary depends on besides its topics: this module's code, Python,
    and the pyahocorasick build (its pickles hold its own node layout)."""
    library = Path(ahocorasick.__file__).stat()
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(
        f"{sys.version}|{ahocorasick.__file__}|{library.st_size}|{library.st_mtime_ns}".encode()
    )
    return digest.hexdigest()[:16]


def cached_compile(vocabulary: Vocabulary) -> CompiledTopics:
    """`compile_topics(vocabulary)`, read from the cache when an earlier run (of this code,
    with these topics) compiled it; else compiled and written there for the next run.

    A cache file that cannot be read is compiled again and replaced; a cache that cannot be
    written is done without. When a file is written, all but the `CACHED_VOCABULARIES` used
    last are removed, whatever code version wrote them.
    """
    code = _code_version()
    topics = hashlib.sha256(repr(vocabulary.topics).encode()).hexdigest()[:32]
    path = cache_dir() / f"{code}-{topics}.pickle"
    try:
        found = pickle.loads(path.read_bytes())
    except Exception:  # missing, truncated, or not ours: any failure means compile again
        found = None
    if isinstance(found, CompiledTopics):
        with contextlib.suppress(OSError):
            os.utime(path)  # used last: kept longest
        return found
    compiled = compile_topics(vocabulary)
    with contextlib.suppress(OSError):  # a file gone meanwhile (another run pruned) included
        write_atomic(path, pickle.dumps(compiled, pickle.HIGHEST_PROTOCOL))
        _prune(path.parent)
    return compiled


def _prune(directory: Path) -> None:
    """Keep the `CACHED_VOCABULARIES` files used last, of any code version: two installs of
    bib that share the cache (a pipx one and a project's venv) then each keep theirs, where
    removing every other version's file made each recompile after the other ran."""
    used = sorted(
        ((path.stat().st_mtime_ns, path) for path in directory.glob("*.pickle")), reverse=True
    )
    for _, path in used[CACHED_VOCABULARIES:]:
        path.unlink(missing_ok=True)


# ---------------------------------------------------------------- loading


def _data(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        resources.files("bib").joinpath("data", name).read_text(encoding="utf-8")
    )
    return document


def validate(document: Any, path: str | Path) -> None:
    """Check a vocabulary document against the schema; BibError names the first bad place.
    (jsonschema is imported here: a run with the shipped, cached vocabulary never needs it,
    and importing it was a twentieth of the instructions of importing `bib convert`.)"""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema.load("vocabulary.schema.json"))
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        where = _json_path(error.absolute_path)
        raise BibError(f"{where}: {error.message}" if where else error.message, path)
    topics = document.get("topics", []) if isinstance(document, dict) else []
    seen: set[str] = set()
    for index, topic in enumerate(topics):
        if topic["slug"] in seen:
            raise BibError(f"topics[{index}].slug: duplicate slug {topic['slug']!r}", path)
        seen.add(topic["slug"])


def _json_path(parts: Iterable[str | int]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _parents(raw: Mapping[str, Any]) -> tuple[str, ...]:
    """`parents`, or the single `parent` that user files of earlier versions give."""
    found = list(raw.get("parents", ()))
    if raw.get("parent") and raw["parent"] not in found:
        found.insert(0, raw["parent"])
    return tuple(found)


def _topic(raw: Mapping[str, Any]) -> Topic:
    return Topic(
        slug=raw["slug"],
        label=raw["label"],
        parents=_parents(raw),
        synonyms=tuple(raw.get("synonyms", ())),
        abbreviations=tuple(raw.get("abbreviations", ())),
        specificity=raw.get("specificity"),
        combines=tuple(raw.get("combines", ())),
        keeps_parts=bool(raw.get("keeps_parts", False)),
        implies=tuple(raw.get("implies", ())),
        subsumes=tuple(raw.get("subsumes", ())),
        source=raw.get("source", ""),
        generic=bool(raw.get("generic", False)),
    )


def _entity(raw: Mapping[str, Any]) -> Entity:
    return Entity(
        name=raw["name"],
        aliases=tuple(raw.get("aliases", ())),
        contextual=bool(raw.get("contextual", False)),
    )


def _merge_entities(base: tuple[Entity, ...], extra: list[Mapping[str, Any]]) -> tuple[Entity, ...]:
    by_name = {e.name: e for e in base}
    for raw in extra:
        if raw.get("disabled"):
            by_name.pop(raw["name"], None)
        else:
            by_name[raw["name"]] = _entity(raw)
    return tuple(by_name.values())


IMPORTED = "topics-imported.json"
"""Topics built from published taxonomies by benchmarks/tags_build_vocabulary.py."""


@cache
def shipped() -> Vocabulary:
    """The vocabulary shipped with `bib` (validated by the test suite, not at every start)."""
    topics = {t["slug"]: _topic(t) for t in _data("topics.json")["topics"]}
    for raw in _data(IMPORTED)["topics"]:
        # curated topics win: an imported slug they have is skipped
        topics.setdefault(raw["slug"], _topic(raw))
    return Vocabulary(
        topics=topics,
        datasets=tuple(_entity(e) for e in _data("datasets.json")["datasets"]),
        models=tuple(_entity(e) for e in _data("models.json")["models"]),
        sources=(
            "bib/data/topics.json",
            f"bib/data/{IMPORTED}",
            "bib/data/datasets.json",
            "bib/data/models.json",
        ),
    )


def read_user_file(path: str | Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BibError(f"cannot read vocabulary: {exc.strerror or exc}", path) from None
    try:
        document: dict[str, Any] = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BibError(f"not valid JSON: {exc.msg}", path, exc.lineno) from None
    validate(document, path)
    return document


def load(user_files: Iterable[str | Path] = ()) -> Vocabulary:
    """The shipped vocabulary, extended and overridden by user files in order."""
    vocabulary = shipped()
    for path in user_files:
        vocabulary = extend(vocabulary, read_user_file(path), str(path))
    return vocabulary


def extend(base: Vocabulary, document: Mapping[str, Any], source: str) -> Vocabulary:
    """A new vocabulary with `document`'s entries added to `base` or replacing them."""
    topics = dict(base.topics)
    for raw in document.get("topics", []):
        if raw.get("disabled"):
            topics.pop(raw["slug"], None)
        else:
            topics[raw["slug"]] = _topic(raw)
    for index, raw in enumerate(document.get("topics", [])):
        if raw.get("disabled"):
            continue
        for parent in _parents(raw):
            if parent not in topics:
                field = "parent" if parent == raw.get("parent") else "parents"
                raise BibError(f"topics[{index}].{field}: unknown topic {parent!r}", source)
    return Vocabulary(
        topics=topics,
        datasets=_merge_entities(base.datasets, document.get("datasets", [])),
        models=_merge_entities(base.models, document.get("models", [])),
        sources=(*base.sources, source),
    )
