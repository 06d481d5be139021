"""Derived titles for entries that have none, built from the abstract's own words.

A paper that names its contribution gets `Name: Long Form` or `Name: Description`
(`USMoE: Unified Sparse Mixture of Experts`); one that names nothing gets a short title
from its main claim (`we study the impact of ...` -> `The Impact of ...`). Such titles are
flagged `title_derived` so that every writer can say so: they are not the published title.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from bib.extract.markup import anchor_starts, plain
from bib.extract.methods import Method, find_method
from bib.record import Record, Tag, TagKind, evolve

MAX_WORDS = 12
_MINOR = frozenset(
    "a an the and or nor but of for to in on at by via with from as into over under per "  # noqa: SIM905
    "vs versus than through".split()
)
_CUT_BEFORE = _MINOR - {"a", "an", "the", "and", "or", "nor", "but"} | {"while", "when"}
_DROP = re.compile(r"\b(?:novel|new|simple|principled|comprehensive)\s+", re.IGNORECASE)
_DROP_HINTS = ("novel", "new", "mple", "pled", "compreh")
"""In a lower-cased text that `_DROP` matches, one of these occurs (they leave out `i` and
`s`, which `_DROP` also matches as dotless i and long s): finding them costs a fifth of
the regex scan."""
_CLAIM = re.compile(
    r"\b(?:we|this (?:paper|work))(?:\s+\w+ly|\s+also|\s+further|\s+first)*\s+"
    r"(?:propose[sd]?|introduce[sd]?|present[sd]?|stud(?:y|ies)|investigate[sd]?|examine[sd]?|"
    r"analy[sz]e[sd]?|compare[sd]?|explore[sd]?|revisit(?:s|ed)?|provide[sd]?|develop(?:s|ed)?|"
    r"design(?:s|ed)?|establish(?:es|ed)?|formulate[sd]?|characteri[sz]e[sd]?)\s+"
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
_DASH = re.compile("([-\u2013])")
_DIGIT = re.compile(r"\d")
_ARTICLE_START = re.compile(r"(?:a|an|the)\s", re.IGNORECASE)
_WE_VERB = re.compile(
    r"^(?:in this (?:paper|work),?\s*)?(?:we|this (?:paper|work))(?:\s+\w+ly)*\s+\w+\s+",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")


def _case(part: str, minor: bool) -> str:
    """One word or hyphen part: acronyms and coined names as written, minor words lower."""
    if part.isascii() and part.isalpha() and part.islower():  # the common case, in short
        return part if minor and part in _MINOR else part.capitalize()
    rest = part[1:]
    if rest != rest.lower() or (not part.isalpha() and _DIGIT.search(part)):
        return part
    if minor and part.lower() in _MINOR:
        return part.lower()
    return part[:1].upper() + rest


def title_case(text: str) -> str:
    """Title case that keeps acronyms and coined names (`LLM-as-a-Judge`, `KV`) as written."""
    words = text.split()
    if text.isascii() and text.islower() and "".join(words).isalpha():
        # lower-case words and spaces only, the common case: each cased in one step
        rest = [w if w in _MINOR else w.capitalize() for w in words[1:]]
        return " ".join([words[0].capitalize(), *rest])
    out: list[str] = []
    first = True
    for word in words:
        if "-" in word or "\u2013" in word:
            pieces = _DASH.split(word)
            middle = len(pieces) > 3  # `Small-to-Large`: inner minor parts stay lower
            cased = [
                piece if index % 2 else _case(piece, middle and index > 0)
                for index, piece in enumerate(pieces)
            ]
            out.append("".join(cased))
        else:
            out.append(_case(word, not first))
        first = word.endswith(":")
    return " ".join(out)


_PARENTHESIS = re.compile(r"\s*\([^()]*\)")
_COMMA_OR_PAREN = re.compile(r"[,(]")


def shorten(phrase: str, max_words: int = MAX_WORDS) -> str:
    """At most `max_words`, cut before a preposition where possible; no trailing punctuation."""
    if "(" in phrase:  # the test is a tenth of the regex scan
        phrase = _PARENTHESIS.sub("", phrase)
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
    return _named(method.name, method.long_form or method.description)


def _named(name: str, subtitle: str) -> str:
    """`Name: Subtitle`; a description (`a novel framework ...`) loses its hype words."""
    if not subtitle:
        return name
    if _ARTICLE_START.match(subtitle):
        subtitle = _drop_hype(subtitle)
    return f"{name}: {title_case(shorten(subtitle, MAX_WORDS - 1))}"


def from_claim(abstract: str) -> str:
    """A short title from the abstract's main claim; the first sentence when it states none."""
    text = plain(abstract).text
    starts = anchor_starts(text, ("we ", "this paper", "this work"))
    for pattern in (_CLAIM, _FINDING):
        match = next(filter(None, (pattern.match(text, start) for start in starts)), None)
        if match:
            phrase = _clause(match.group("object"))
            if len(phrase.split()) < 4:  # `a framework that ...`: the clause carries the meaning
                phrase = _COMMA_OR_PAREN.split(match.group("object"))[0]
            if len(phrase.split()) >= 3:
                return title_case(shorten(_drop_hype(phrase)))
    found = _SENTENCE.match(text.strip())
    sentence = _WE_VERB.sub("", found.group(0) if found else text).strip(" .!?")
    phrase = _clause(sentence)
    return title_case(shorten(phrase if len(phrase.split()) >= 3 else sentence))


def _drop_hype(text: str) -> str:
    lowered = text.lower()
    if any(map(lowered.__contains__, _DROP_HINTS)):
        return _DROP.sub("", text)
    return text


def _clause(phrase: str) -> str:
    stop = _STOP.search(phrase, 1)
    return (phrase[: stop.start()] if stop else phrase).strip()


def derive_title(abstract: str, method: Method | None = None) -> str:
    method = method if method is not None else find_method(abstract)
    return from_method(method) if method is not None else from_claim(abstract)


def _method_tag(record: Record) -> Tag | None:
    """The first METHOD tag naming the record's method."""
    for tag in record.tags:
        if tag.kind == TagKind.METHOD and tag.value == record.method:
            return tag
    return None


def derive_titles(records: Iterable[Record]) -> Iterator[Record]:
    """Pipeline stage: give each untitled record a derived title, flagged as such."""
    for record in records:
        if record.title or not record.abstract:
            yield record
            continue
        tag = _method_tag(record) if record.method else None
        if tag is not None:
            title = _named(record.method, tag.label)
        else:
            title = derive_title(record.abstract)
        yield evolve(record, title=title, title_derived=True)
