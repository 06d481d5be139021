"""The name an abstract gives its own contribution, with its long form and evidence.

Only a name introduced by the authors counts: `we propose FairJudge, an adaptive ...`,
`we introduce Unified Sparse Mixture of Experts (USMoE)`, `a ... framework, BEACON, that`.
Names the paper merely uses (GRPO, LoRA) are never introduced that way, and an abstract
that names nothing gets no method: no name is invented from ordinary words. When a
paper introduces several names (a benchmark and an agent), the one the abstract keeps
talking about wins, then the first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import ahocorasick

from bib.extract.markup import anchored, plain
from bib.record import Record, Span, Tag, TagKind, evolve

_ADVERB = r"(?:\s+(?:\w+ly|also|further|thus|then|therefore|hence|now|here|first|finally|next))*"
_TRIGGER = re.compile(
    r"\b(?:we" + _ADVERB + r"\s+(?:propose|introduce|present|derive|develop|design|formalize|"
    r"contribute)"
    r"|(?:by|via)\s+(?:introducing|proposing)"
    r"|to\s+derive"
    r"|(?<![\w-])(?:dubbed|called|named|coined)"
    r"|this\s+(?:paper|work)\s+(?:proposes|introduces|presents)"
    r"|we\s+(?:explore|address|tackle)\s+(?:this|these|it)\s+(?:with|via|through|using))\b\s+",
    re.IGNORECASE,
)
TRIGGER_ANCHORS = (
    "we ",
    "we\n",
    "by introducing",
    "by proposing",
    "via introducing",
    "to derive",
    "this paper",
    "this work",
    "dubbed",
    "called",
    "named",
    "coined",
)
_TOKEN = r"[A-Z0-9][\w.]*?(?:[-\u2010][\w]+)*\+*"
_CAP_TOKEN = re.compile(r"(?:[A-Z][\w]*|\d+[A-Za-z][\w]*)(?:[-\u2010][\w]+)*\+*")
_ARTICLE = re.compile(r"(?:the|a|an)\s+", re.IGNORECASE)
_ARTICLE_FIRST = "tTaA"
"""What `_ARTICLE` can start with: other words are not tried against it."""
_FUNCTION = frozenset(
    "of for and via with from in on to the a an through by under at as or".split()  # noqa: SIM905
)
_CONNECTOR = re.compile(
    r"\s*(?:[,:;.(]|$)|\s+(?:series|to|which|that|as|for|with|in|on|by|is|was|achieves)\b"
)
_SENTENCE_END = re.compile(r"[.!?](?:\s+(?=[A-Z*\\\[(])|\s*$)|[.!?](?=[A-Z][a-z])")
_CLAUSE_END = re.compile(
    r",?\s+(?:that|which|where|whose|who|to)\s|,\s*(?:which|that|where|whose)\b|;|:\s|\.(?:\s|$)"
)
_CLAUSE_HINTS = (";", ":", ".", "that", "wh", "to")
_RESULT = re.compile(
    r"\b([A-Z][a-z0-9]+[A-Z][\w]*|[A-Z]{2,}[a-z][\w]*)\s+"
    r"(?:reduces|improves|achieves|outperforms|yields|delivers|attains|surpasses|enables)\b"
)
_MAX_HEAD_WORDS = 12
_NOT_EXPANSION = re.compile(r"^(?:e\.g|i\.e|see)\b|\bet al\b|\b(?:19|20)\d\d\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Method:
    """A contribution name, its long form or description, and where the abstract gives it."""

    name: str
    long_form: str = ""
    description: str = ""
    evidence: Span = (0, 0)


class _Candidate(NamedTuple):
    """A name one trigger introduces (a tuple: an abstract yields a few of them).

    A bare name's description is read from the words `after` it only once the name wins:
    reading it costs more than finding the name.
    """

    name: str
    start: int
    end: int
    long_form: str = ""
    described: str = ""
    after: str = ""

    @property
    def description(self) -> str:
        if self.described or not self.after:
            return self.described
        series = _SERIES.match(self.after)
        return _description(self.after[series.end() :] if series else self.after)


def _is_name_like(token: str) -> bool:
    """Coined names: USMoE, FairJudge, S2L-PO, EAGer; not ordinary capitalised words."""
    if token.isascii():  # as below, where an upper-case character is a letter
        upper = sum(map(str.isupper, token))
        if upper != 1:
            return upper > 1
        return not token[0].isupper() or any(map(str.isdigit, token))
    letters = [c for c in token if c.isalpha()]
    if not letters:
        return False
    upper = sum(c.isupper() for c in letters)
    return (
        upper >= 2
        or any(c.isupper() for c in token[1:])
        or (any(c.isdigit() for c in token) and upper >= 1)
    )


def _is_title_word(word: str) -> bool:
    return bool(word) and (word[0].isupper() or word[0].isdigit())


def _clause(text: str) -> str:
    """Text up to the end of its clause (a relative pronoun, `;`, `: ` or a full stop)."""
    # `_CLAUSE_END` finds nothing in a text without one of its hints (at a third of the cost)
    end = _CLAUSE_END.search(text) if any(map(text.__contains__, _CLAUSE_HINTS)) else None
    clause = text[: end.start()] if end else text
    return clause.strip(" ,.;:")


_NAMING_WORDS = ("named", "called", "dubbed")
_NAMING_WORD = re.compile(r"^(?:named|called|dubbed)\s+")
_SHORT_CLAUSE = re.compile(r"[^;.]*?(?=[;:]|\.(?:\s|$)|$|,\s)")
_COMMA = re.compile(r"[,:;]")
_SERIES = re.compile(r"^\s+series\b")
_NAMED_AFTER = re.compile(
    r"([^,()]{3,160}?),\s+(?:(?:named|called|dubbed)\s+)?("
    + _TOKEN
    + r"(?:\s+[A-Z][\w-]*){0,2})\s*[,.]"
)


def _description(after: str) -> str:
    """A description following a name: `, an adaptive ... LLM-as-a-Judge` or `: A ...`."""
    after = after.lstrip()
    if not after or after[0] not in ",:":
        return ""
    rest = after[1:].lstrip()
    if rest.startswith(_NAMING_WORDS):
        rest = _NAMING_WORD.sub("", rest)
    if not rest or not (_ARTICLE.match(rest) or rest[0].isupper()):
        return ""
    clause = _clause(rest)
    if len(clause.split()) <= 2:  # `a framework that ...`: the clause carries the meaning
        extended = _SHORT_CLAUSE.match(rest)
        if extended:
            clause = extended.group(0).strip(" ,")
    return clause


def long_form(head: str, acronym: str) -> str:
    """The words an acronym abbreviates, from the words before its parenthesis.

    Title-case runs first (`Convex Optimization for ... Algorithm`), else the
    Schwartz-Hearst match of the acronym's letters (`hybrid episodic-procedural ...`).
    """
    words = head.split()
    run: list[str] = []
    for word in reversed(words):
        if _is_title_word(word) or word.lower() in _FUNCTION:
            run.insert(0, word)
        else:
            break
    while run and run[0].lower() in _FUNCTION:
        run.pop(0)
    letters = [c.lower() for c in acronym if c.isalnum()]
    if run and letters and run[0][0].lower() == letters[0]:
        return " ".join(run)
    return _schwartz_hearst(words[-_MAX_HEAD_WORDS:], letters)


def _schwartz_hearst(words: list[str], letters: list[str]) -> str:
    text = " ".join(words)
    pos = len(text) - 1
    for index in range(len(letters) - 1, -1, -1):
        char = letters[index]
        while pos >= 0 and (
            text[pos].lower() != char or (index == 0 and pos > 0 and text[pos - 1].isalnum())
        ):
            pos -= 1
        if pos < 0:
            return ""
        pos -= 1
    start = text.rfind(" ", 0, pos + 2) + 1
    return text[start:].strip()


def _from_object(obj: str, base: int) -> _Candidate | None:
    """A name introduced at the start of `obj` (the words after a trigger verb)."""
    article = _ARTICLE.match(obj) if obj[:1] in _ARTICLE_FIRST else None
    body = obj[article.end() :] if article else obj
    offset = base + (article.end() if article else 0)
    paren = body.find("(")
    if paren > 0 and _COMMA.search(body, 0, paren) is None:
        head = body[:paren].strip()
        close = body.find(")", paren)
        inner = body[paren + 1 : close].strip() if close > 0 else ""
        found = _from_paren(head, inner)
        if found is not None and len(head.split()) <= _MAX_HEAD_WORDS:
            name, long = found
            position = body.find(name)
            return _Candidate(name, offset + position, offset + position + len(name), long)
    if article is None:
        return _from_run(body, offset)
    named = _NAMED_AFTER.match(body)
    if named and named.group(2)[0].isupper():
        name = named.group(2)
        return _Candidate(
            name,
            offset + named.start(2),
            offset + named.end(2),
            described=article.group(0) + named.group(1).strip(),
        )
    return None


def _from_run(body: str, offset: int) -> _Candidate | None:
    """A name of up to four capitalised tokens at the start of `body`, ended by a connector.

    Its description waits in `after` until the name wins (see `_Candidate.description`).
    """
    first = body[:1]
    if not ("A" <= first <= "Z" or first.isdecimal()):  # what `_CAP_TOKEN` starts with
        return None
    token = _CAP_TOKEN.match(body)
    if token is None:
        return None
    run = [token.group(0)]
    end = token.end()
    while len(run) < 4 and body.startswith(" ", end):
        token = _CAP_TOKEN.match(body, end + 1)
        if token is None:
            break
        run.append(token.group(0))
        end = token.end()
    name = " ".join(run)
    fits = (len(run) == 1 and len(name) > 1) or all(w[0].isupper() for w in run[1:])
    if fits and _CONNECTOR.match(body, len(name)):
        return _Candidate(name, offset, offset + len(name), "", "", body[len(name) :])
    return None


def _from_paren(head: str, inner: str) -> tuple[str, str] | None:
    """`Long Form (ACR)` -> (ACR, Long Form); `Name (Long Form)` -> (Name, Long Form)."""
    head_words, inner_words = head.split(), inner.split()
    if not head_words or not inner_words:
        return None
    if len(inner_words) == 1 and _is_name_like(inner) and inner[0].isupper():
        if len(head_words) == 1 and _is_name_like(head) and len(head) <= len(inner):
            return head, inner
        long = long_form(head, inner)
        return (inner, long) if long else (inner, head if len(head_words) <= 8 else "")
    named_head = len(head_words) == 1 and (_is_name_like(head) or head[0].isupper())
    if named_head and len(inner_words) > 1 and not _NOT_EXPANSION.search(inner):
        return head, inner
    return None


def _counts(text: str, names: Iterable[str]) -> dict[str, int]:
    """How often each name occurs as a whole word (not inside `name-Bench` or `xname`), in
    one pass over the text however many names an abstract introduces."""
    automaton = ahocorasick.Automaton()
    counts = {}
    for name in names:
        automaton.add_word(name, name)
        counts[name] = 0
    automaton.make_automaton()
    size = len(text)
    for last, name in automaton.iter(text):
        end = last + 1
        pos = end - len(name)
        before = text[pos - 1] if pos else " "
        after = text[end] if end < size else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            counts[name] += 1
    return counts


def find_method(abstract: str) -> Method | None:
    """The contribution named by the abstract, or None when it names none."""
    doc = plain(abstract)
    best = _best(doc.text)
    if best is None:
        return None
    return Method(
        best.name, best.long_form, best.description, doc.source_span(best.start, best.end)
    )


OBJECT_REACH = 1000
"""How far (characters) after a trigger its object is read: a name and its description are
given within a sentence, and the bound keeps the search linear in a paragraph that repeats
`we propose` without ending a sentence."""


def _candidates(text: str, triggers: list[re.Match[str]]) -> list[_Candidate]:
    """The name each trigger introduces, read up to the end of its sentence (at most
    OBJECT_REACH characters on). A sentence's end is searched once for all its triggers."""
    found = []
    sentence_end = -1
    for trigger in triggers:
        start = trigger.end()
        if sentence_end < start:
            end = _SENTENCE_END.search(text, start)
            sentence_end = end.start() if end else len(text)
        stop = min(sentence_end, start + OBJECT_REACH)
        candidate = _from_object(text[start:stop], start)
        if candidate is not None:
            found.append(candidate)
    return found


def _best(text: str) -> _Candidate | None:
    triggers = anchored(_TRIGGER, text, TRIGGER_ANCHORS)
    if not triggers:
        return None
    candidates = _candidates(text, triggers)
    if not candidates:
        result = _RESULT.search(text)
        if result and result.group(1) not in text[: result.start()]:
            return _Candidate(result.group(1), result.start(1), result.end(1))
        return None
    if len(candidates) == 1:
        return candidates[0]
    names = {c.name for c in candidates}
    if len(names) == 1:  # one name introduced again: the first mention wins, as counts tie
        return min(candidates, key=lambda c: c.start)
    counts = _counts(text, names)
    return max(candidates, key=lambda c: (counts[c.name], -c.start))


def tag_methods(records: Iterable[Record]) -> Iterator[Record]:
    """Pipeline stage: set `method` and add a METHOD tag whose evidence is the naming span."""
    for record in records:
        if record.method or not record.abstract:
            yield record
            continue
        doc = plain(record.abstract)
        best = _best(doc.text)
        if best is None:
            yield record
            continue
        span = doc.source_span(best.start, best.end)
        tag = Tag(TagKind.METHOD, best.name, best.long_form or best.description, (span,))
        yield evolve(record, method=best.name, tags=(*record.tags, tag))
