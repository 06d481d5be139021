"""Derived titles for entries that have none, built from the abstract's own words.

A paper that names its contribution gets `Name: Long Form` or `Name: Description`
(`USMoE: Unified Sparse Mixture of Experts`); one that names nothing gets a short title
from its main claim (`we study the impact of ...` -> `The Impact of ...`). Such titles are
flagged `title_derived` so that every writer can say so: they are not the published title.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from bib.extract.markup import plain
from bib.extract.methods import Method, find_method
from bib.record import Record

MAX_WORDS = 12
_MINOR = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "nor",
        "but",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "via",
        "with",
        "from",
        "as",
        "into",
        "over",
        "under",
        "per",
        "vs",
        "versus",
        "than",
        "through",
    ]
)
_CUT_BEFORE = _MINOR - {"a", "an", "the", "and", "or", "nor", "but"} | {"while", "when"}
_DROP = re.compile(r"\b(?:novel|new|simple|principled|comprehensive)\s+", re.IGNORECASE)
_CLAIM = re.compile(
    r"\b(?:we|this (?:paper|work))(?:\s+\w+ly|\s+also|\s+further|\s+first)*\s+"
    r"(?:propose[sd]?|introduce[sd]?|present[sd]?|stud(?:y|ies)|investigate[sd]?|examine[sd]?|"
    r"analy[sz]e[sd]?|compare[sd]?|explore[sd]?|revisit(?:s|ed)?|provide[sd]?)\s+"
    r"(?P<object>(?:the|a|an|how|why|when|whether)\b[^.;:]*)",
    re.IGNORECASE,
)
_FINDING = re.compile(
    r"\b(?:we|this (?:paper|work))(?:\s+\w+ly|\s+also|\s+further|\s+first)*\s+"
    r"(?:show|find|demonstrate|prove|argue)s?\s+that\s+(?P<object>[^.;:]*)",
    re.IGNORECASE,
)
_STOP = re.compile(
    r",?\s+(?:that|which|where|whose|who|while|thereby|leading|yielding|enabling)\b"
    r"|[,(]|\s+to\s+\w+\b(?<!\bto the)"
)
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")


def title_case(text: str) -> str:
    """Title case that keeps acronyms and coined names (`LLM-as-a-Judge`, `KV`) as written."""
    words = text.split()
    out = []
    for index, word in enumerate(words):
        first = index == 0 or out[-1].endswith(":")
        pieces = re.split(r"([-\u2013])", word)
        parts, dashes = pieces[::2], pieces[1::2]
        cased = []
        for part_index, part in enumerate(parts):
            lower = part.lower()
            if any(c.isupper() for c in part[1:]) or any(c.isdigit() for c in part):
                cased.append(part)
            elif (
                lower in _MINOR
                and not (first and part_index == 0)
                and (part_index > 0 or not first)
            ):
                cased.append(lower if part_index == 0 or len(parts) > 2 else part.capitalize())
            else:
                cased.append(part[:1].upper() + part[1:])
        out.append("".join(c + (dashes[i] if i < len(dashes) else "") for i, c in enumerate(cased)))
    return " ".join(out)


def shorten(phrase: str, max_words: int = MAX_WORDS) -> str:
    """At most `max_words`, cut before a preposition where possible; no trailing punctuation."""
    phrase = re.sub(r"\s*\([^()]*\)", "", phrase)
    words = phrase.split()
    while len(words) > max_words:
        cuts = [
            i for i, w in enumerate(words[: max_words + 1]) if i >= 3 and w.lower() in _CUT_BEFORE
        ]
        words = words[: cuts[-1]] if cuts else words[:max_words]
    while words and words[-1].lower() in _MINOR:
        words.pop()
    return " ".join(words).strip(" ,.;:!?\u2014\u2013-")


def from_method(method: Method) -> str:
    subtitle = method.long_form or method.description
    if not subtitle:
        return method.name
    subtitle = _DROP.sub("", subtitle) if method.description else subtitle
    return f"{method.name}: {title_case(shorten(subtitle, MAX_WORDS - 1))}"


def from_claim(abstract: str) -> str:
    """A short title from the abstract's main claim; the first sentence when it states none."""
    text = plain(abstract).text
    for pattern in (_CLAIM, _FINDING):
        match = pattern.search(text)
        if match:
            phrase = _clause(match.group("object"))
            if len(phrase.split()) < 4:  # `a framework that ...`: the clause carries the meaning
                phrase = re.split(r"[,(]", match.group("object"))[0]
            if len(phrase.split()) >= 3:
                return title_case(shorten(_DROP.sub("", phrase)))
    sentence = _SENTENCE.match(text.strip())
    return title_case(shorten(_clause(sentence.group(0) if sentence else text)))


def _clause(phrase: str) -> str:
    stop = _STOP.search(phrase, 1)
    return (phrase[: stop.start()] if stop else phrase).strip()


def derive_title(abstract: str, method: Method | None = None) -> str:
    method = method if method is not None else find_method(abstract)
    return from_method(method) if method is not None else from_claim(abstract)


def derive_titles(records: Iterable[Record]) -> Iterator[Record]:
    """Pipeline stage: give each untitled record a derived title, flagged as such."""
    for record in records:
        if record.title or not record.abstract:
            yield record
            continue
        yield replace(record, title=derive_title(record.abstract), title_derived=True)
