"""Key phrases: the concepts an abstract itself names or stresses, beyond the vocabulary.

Three signals, strongest first, each with its evidence in the verbatim abstract:
- a **defined term**: the words after `we call`, `termed`, `dubbed`, `referred to as`,
  `known as`, `which we name` (up to four words, to the clause's end);
- an **expanded acronym**: `Direct Preference Optimization (DPO)`, the words before the
  parenthesis whose initials the acronym spells;
- a **repeated noun phrase**: two to four words, repeated (case, hyphens and plurals
  aside), that do not start or end with a function word; a saying in the title counts.
A phrase is never generic (`novel framework`, `extensive experiments`, `experimental
results`: every word of it is in `GENERIC`, or it opens on a word such as `novel`), never
the paper's own method name (the method tag says it), and never a vocabulary topic (the
topic tag says it). At most `MAX_KEYPHRASES` per record, strongest first.

The scan lower-cases the abstract one character for one (hyphens and whitespace as
spaces), so every offset in it is an offset of the abstract; one `split` of it (marks
as `|` words) gives the words, one set the words said twice, and phrases are
counted only where such a word starts one: linear in the abstract. Phrases of equal
strength keep the order they first appear in, so every process gives the same phrases.
"""

from __future__ import annotations

import re
from itertools import compress, count
from typing import NamedTuple

from bib.extract.vocabulary import FUNCTION_WORDS, CompiledTopics
from bib.record import Span

MAX_KEYPHRASES = 5
"""A handful: the phrases a researcher would type, not a word cloud."""
LONGEST = 4
"""Words in a key phrase at most."""

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")
_ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)s?\)")
_DEFINED = re.compile(
    r"\b(?:we\s+(?:call|term|dub|name)(?:\s+(?:this|it|them|these))?|(?:is|are)\s+"
    r"(?:called|termed|dubbed)|termed|dubbed|referred\s+to\s+as|known\s+as)\s+"
    r"[\"“']?([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3})",
    re.IGNORECASE,
)
_DEFINED_IN_LOWER_ASCII = re.compile(_DEFINED.pattern)
"""`_DEFINED` for ASCII text lower-cased: the same matches, in about half the time."""

STOP = FUNCTION_WORDS | {
    "we", "our", "us", "it", "its", "this", "that", "these", "those", "which", "while",
    "is", "are", "be", "been", "was", "were", "can", "could", "may", "not", "but", "both",
    "each", "such", "than", "then", "thus", "their", "they", "them", "into", "over", "also",
    "only", "more", "most", "less", "all", "any", "one", "two", "three", "has", "have",
    "do", "does", "when", "where", "how", "what", "who", "without", "across", "between",
    "under", "through", "whether", "very", "so", "if", "no", "often", "however", "first",
    "against", "within", "among", "toward", "towards", "upon", "per", "along", "beyond",
    "around", "despite", "since", "because", "after", "before", "during", "until", "given",
    "improve", "improves", "improving", "handle", "handles", "enable", "enables", "achieve",
    "allow", "allows", "provide", "provides", "require", "requires", "make", "makes",
    "learn", "learns", "show", "shows", "lead", "leads", "yield", "yields", "reduce",
    "reduces", "obtain", "obtains", "perform", "performs", "consider", "introduce",
    "present", "presents", "develop", "apply", "applied", "compared", "compare", "called",
}  # fmt: skip
"""Words a key phrase never starts or ends with."""

GENERIC = {
    "novel", "new", "proposed", "propose", "existing", "extensive", "experiments",
    "experiment", "experimental", "results", "result", "method", "methods", "approach",
    "approaches", "framework", "frameworks", "paper", "work", "works", "performance",
    "state", "art", "baseline", "baselines", "task", "tasks", "model", "models", "data",
    "dataset", "datasets", "benchmark", "benchmarks", "significant", "significantly",
    "various", "different", "simple", "effective", "efficient", "strong", "improved",
    "improvement", "improvements", "key", "main", "important", "problem", "problems",
    "setting", "settings", "based", "large", "small", "high", "low", "better", "best",
    "wide", "range", "variety", "number", "set", "way", "ways", "use", "using", "used",
    "study", "studies", "analysis", "evaluation", "evaluations", "code", "available",
    "publicly", "demonstrate", "show", "shows", "achieve", "achieves", "outperforms",
    "training", "learning", "ability", "abilities", "capability", "capabilities",
    "real", "world", "level", "end", "time", "comprehensive", "recent", "current",
    "prior", "previous", "standard", "general", "specific", "multiple", "several", "many",
    "further", "additional", "overall", "remarkable", "superior", "competitive",
    "language", "llm", "llms", "large-scale", "open", "source", "github",
    "input", "inputs", "output", "outputs", "trained", "complex", "test", "conditional",
    "class", "classes", "distribution", "distributions", "information", "structure",
    "fully", "feed", "forward", "deep", "neural", "network", "networks",
}  # fmt: skip
"""Words that say nothing of a paper's concept: a phrase of only these is generic."""

OPENERS = {
    "novel", "new", "proposed", "existing", "extensive", "simple", "effective", "various",
    "different", "several", "many", "recent", "current", "prior", "previous", "comprehensive",
    "significant", "strong", "our", "the", "a", "an", "this", "these",
}  # fmt: skip
"""Words that open a generic description (`novel training objective`): dropped in front."""


GENERIC_HEADS = {
    "method", "methods", "approach", "approaches", "framework", "frameworks", "results",
    "result", "performance", "paper", "work", "experiments", "experiment", "way", "number",
    "task", "tasks", "setting", "settings", "problem", "problems", "baseline", "baselines",
    "improvement", "improvements", "analysis", "study", "art", "end", "level", "range",
    "variety", "set", "cost", "costs", "gains", "gain", "accuracy", "effectiveness",
}  # fmt: skip
"""Heads of a generic description (`SMoE methods`, `downstream performance`)."""

_LOWER = str.maketrans(
    {**{chr(c): chr(c + 32) for c in range(65, 91)}, **dict.fromkeys("-\n\t\r\u00a0", " ")}
)
_LOWER_BYTES = bytes(
    c + 32 if 65 <= c <= 90 else 32 if chr(c) in "-\n\t\r" else c for c in range(256)
)
"""`_LOWER` for text encoded as ASCII (each other character one `?`): offsets kept."""
_COUNTED = bytes(
    c + 32
    if 65 <= c <= 90
    else c
    if chr(c).isalnum() and c < 128
    else 32
    if chr(c) in "- \n\t\r"
    else 124
    for c in range(256)
)
"""The text repeated phrases are counted in: `_LOWER_BYTES` with every other mark as `|`."""
_RUN_BREAKS = dict.fromkeys([*STOP, *OPENERS, "|"], "")
"""Words that end a run of words a phrase may come from, each mapped to the empty word."""
_DEFINING_WORDS = (" call", "term", " dub", " name", "known as", "referred")
_SPACE_IMAGES = " \x0b\x0c\x1c\x1d\x1e\x1f?"
"""What a `\\s` of the abstract is in `lowered`: a space, a control `\\s` kept, or `?` (every
other character, a Unicode space too)."""
_CUE_VERBS = {
    "call": (("", ("we",)), ("ed", ("is", "are", "?s"))),
    "term": (("", ("we",)), ("ed", ())),
    "dub": (("", ("we",)), ("bed", ())),
    "name": (("", ("we",)),),
}
"""`_DEFINED`'s verbs by stem (one `find` each), every ending with the words one of them
must follow (`we call`, `is called`; none for `termed`), as `lowered` may spell them (`?s`:
`\u0131s`)."""
_AS_CUES = {
    "nown": re.compile(r"[\s?]+a[s?][\s?]"),
    "referred": re.compile(r"[\s?]+to[\s?]+a[s?][\s?]"),
}
"""`known as` and `referred to as` after their first word (`\u212a` is `?` in `lowered`,
`\u017f` too)."""
_LOOK_BACK = 16
"""Characters looked at before a verb; more spaces than this and it may follow anything."""


class Keyphrase(NamedTuple):
    value: str
    """The phrase as compared: lower case, one space between words, a last plural
    singular (`fold`)."""
    label: str
    """How the abstract first writes it (with its acronym, when it defines one)."""
    evidence: tuple[Span, ...]


def singular(word: str) -> str:
    """`policies` -> `policy`, `models` -> `model`; a word of three letters or fewer and
    one ending in `ss`, `us` or `is` (`glass`, `bus`, `analysis`) stays as it is."""
    if len(word) > 3 and word[-1] == "s":
        if word.endswith("ies") and len(word) > 4:
            return word[:-3] + "y"
        if word[-2] not in "sui":
            return word[:-1]
    return word


def fold(text: str) -> str:
    """A phrase as compared: lower case, hyphens and runs of whitespace as one space, the
    last word singular (`Reward-Models` = `reward model`). ASCII text is lowered with
    `_LOWER_BYTES`, the same map as a byte table: several times faster than `_LOWER`."""
    if text.isascii():
        words = text.encode().translate(_LOWER_BYTES).decode().split()
    else:
        words = text.translate(_LOWER).split()
    if words:
        words[-1] = singular(words[-1])
    return " ".join(words)


HALVES = {
    "non", "multi", "pre", "post", "self", "cross", "co", "semi", "sub", "re", "inter",
    "intra", "un", "bi", "meta", "level", "aware", "based", "wise", "free", "specific",
    "driven", "scale", "shot", "turn", "like", "oriented", "style", "grained", "agnostic",
}  # fmt: skip
"""Halves of a hyphenated word (`multi-turn`, `data-aware`): no phrase ends on one, and a
phrase does not start on the second half."""


_PREFIXES = {"non", "multi", "pre", "post", "self", "cross", "semi", "sub", "inter", "meta"}


_ADJECTIVE_ENDS = ("ly", "ed", "ional", "ual", "ical", "ous")
"""A phrase ending on an adverb, a participle or one of these adjectives names no thing
(`temporally ordered`, `fully convolutional`, `complex visual`)."""


_GENERIC_OR_STOP = frozenset(GENERIC | STOP)
"""A phrase of only these words is generic."""


def _bad_end(word: str) -> bool:
    return word in STOP or word in HALVES or word.endswith(_ADJECTIVE_ENDS) or len(word) < 3


def _acceptable(words: tuple[str, ...]) -> bool:
    first, last = words[0], words[-1]
    if first in STOP or first in OPENERS or _bad_end(last) or not first[0].isalpha():
        return False
    if len(first) < 3 or (first in HALVES and (len(words) == 2 or first not in _PREFIXES)):
        return False
    if last in GENERIC_HEADS or _GENERIC_OR_STOP.issuperset(words):
        return False
    return all(map(str.isalnum, words))


def keyphrases(
    text: str,
    topics: CompiledTopics | None = None,
    method: str = "",
    limit: int = MAX_KEYPHRASES,
    title: str = "",
) -> list[Keyphrase]:
    """The abstract's key phrases, strongest first, at most `limit` (see the module
    docstring). `topics`: phrases it knows are left to the topic tags. `title` (a real
    one, not derived from the abstract) counts as one more saying of each phrase in it:
    a phrase the title names and the abstract says once is stressed too."""
    if not text:
        return []
    encoded = text.encode("ascii", "replace")
    lowered = encoded.translate(_LOWER_BYTES).decode()
    scored: dict[str, tuple[float, str]] = {}
    if may_define(lowered):
        for term in defined_terms(text):
            _offer(scored, _folded(term), 30.0, "")
    for m in _ACRONYM.finditer(text):
        if m.group(1) == method:
            continue  # the method's own name spelled out: the method tag says it
        expansion = _expansion(text, lowered, m.start(), m.group(1))
        if expansion:
            _offer(scored, _folded(expansion), 20.0, f"{expansion} ({m.group(1)})")
    counted = (title.encode("ascii", "replace") + b"|" + encoded).translate(_COUNTED)
    _repeated(counted.replace(b"|", b" | ").decode(), scored)
    banned = fold(method) if method else ""
    out: list[Keyphrase] = []
    taken: list[str] = []
    for phrase, (_, label) in sorted(scored.items(), key=lambda item: -item[1][0]):
        if phrase == banned or any(phrase in t or t in phrase for t in taken):
            continue
        if topics is not None and (phrase in topics or (label and label in topics)):
            continue  # (a repeated phrase has no label of its own: no second look-up)
        evidence = occurrences(lowered, phrase)
        if evidence:
            first = evidence[0]
            out.append(Keyphrase(phrase, label or text[first[0] : first[1]], tuple(evidence)))
            taken.append(phrase)
            if len(out) == limit:
                break
    return out


def defined_terms(text: str) -> list[str]:
    """The terms `_DEFINED` finds in `text`, as written. ASCII text is matched lower-cased
    and case-sensitive, which finds the same terms faster; other text goes through
    IGNORECASE, whose Unicode folds (the long s for `s`, the Kelvin sign for `k`) `lower` lacks."""
    if text.isascii():
        found = _DEFINED_IN_LOWER_ASCII.finditer(text.lower())
    else:
        found = _DEFINED.finditer(text)
    return [text[m.start(1) : m.end(1)] for m in found]


def may_define(lowered: str) -> bool:
    """Whether `defined_terms` may find a term in the abstract `lowered` is (`_LOWER_BYTES`):
    one of `_DEFINING_WORDS` is in it, and one of `_DEFINED`'s cues is, spaces as `lowered`
    may show them. A superset of the abstracts the regex matches, checked with `find` and a
    look at a few characters around each verb: most abstracts that name a `term` or a
    `call` define nothing, and the regex costs a pass over the abstract."""
    if not any(map(lowered.__contains__, _DEFINING_WORDS)):
        return False
    for stem, forms in _CUE_VERBS.items():
        at = lowered.find(stem)
        while at != -1:
            for ending, after in forms:
                end = at + len(stem) + len(ending)
                following = lowered[end : end + 1]
                if (
                    following
                    and following in _SPACE_IMAGES
                    and lowered.startswith(ending, end - len(ending))
                    and _follows(lowered, at, after)
                ):
                    return True
            at = lowered.find(stem, at + 1)
    for word, rest in _AS_CUES.items():
        at = lowered.find(word)
        while at != -1:
            if rest.match(lowered, at + len(word)):
                return True
            at = lowered.find(word, at + 1)
    return False


def _follows(lowered: str, at: int, words: tuple[str, ...]) -> bool:
    """Whether the text before `at` is one of `words` (none: anything) and at least one
    space, or may be (a `?` there, or spaces all of `_LOOK_BACK` characters)."""
    if not words:
        return True
    window = lowered[max(0, at - _LOOK_BACK) : at]
    before = window.rstrip(_SPACE_IMAGES[:-1])
    if before.endswith("?") or (len(before) < 3 and at >= _LOOK_BACK):
        return True
    return len(before) < len(window) and before.endswith(words)


def _folded(written: str) -> tuple[str, ...]:
    return tuple(fold(written).split())


def _offer(
    scored: dict[str, tuple[float, str]], words: tuple[str, ...], strength: float, label: str
) -> None:
    """Add `strength` to the phrase of `words` (folded), openers and function words cut."""
    while words and (words[0] in OPENERS or words[0] in STOP):
        words = words[1:]
    while words and words[-1] in STOP:
        words = words[:-1]
    if not 1 <= len(words) <= LONGEST or (len(words) == 1 and strength < 30):
        return
    if not _acceptable(words) and not (len(words) == 1 and words[0] not in GENERIC):
        return
    phrase = " ".join(words)
    have = scored.get(phrase)
    scored[phrase] = (strength + (have[0] if have else 0), label or (have[1] if have else ""))


def _expansion(text: str, lowered: str, opened: int, acronym: str) -> str:
    """The words before `(ACRONYM)` whose initials (of each hyphen part too) it spells."""
    letters = "".join(filter(str.isupper, acronym)).lower()
    before = text[max(0, opened - 120) : opened].rstrip()
    words = _WORD.findall(before.rsplit(".", 1)[-1])
    # the initials of the last n words, one word's put in front for each n
    initials = _initials(words[-1]) if words else ""
    for n in range(2, min(len(words), 2 * len(letters)) + 1):
        initials = _initials(words[-n]) + initials
        if initials == letters:
            found = " ".join(words[-n:])
            # written as found (one space between words) it is in `before` folded too
            return found if before.endswith(found) or fold(found) in fold(before) else ""
        if not letters.endswith(initials):
            return ""  # more words in front cannot mend the end (nor a longer run)
    return ""


def _initials(word: str) -> str:
    """The first letters (lower case) of the parts of `word` between hyphens that are no
    function words."""
    if "-" not in word:  # most words: one part
        return "" if word.lower() in FUNCTION_WORDS else word[0].lower()
    return "".join(p[0].lower() for p in word.split("-") if p.lower() not in FUNCTION_WORDS)


def _repeated(counted: str, scored: dict[str, tuple[float, str]]) -> None:
    """Two- to four-word phrases said at least twice, worth their count times their
    length; a phrase inside a longer one said as often gives way to it.

    `counted` is the abstract lowered with every other mark as a `|` word (`_COUNTED`).
    Phrases are read inside runs of words that a function word, an opener (`novel`) or a
    mark does not break (`_RUN_BREAKS`); a phrase's words are as written, its last one
    singular. A phrase said twice starts on a word said twice: the steps over every word
    (`split`, the words said twice, finding those words) are one pass each, and Python
    looks only where such a word is followed by one that breaks no run (a tenth of the
    words). A longer phrase said twice is a chain of pairs said twice (`a b c` needs `a b`
    and `b c`), so it is read off the pairs, never off the words again."""
    tokens = counted.split()
    said: set[str] = set()
    add = said.add
    # a word is kept from its second saying on (the first only adds it: `add` gives None)
    opening = {word for word in tokens if word in said or add(word)}.difference(_RUN_BREAKS)
    if not opening:
        return
    tokens.append("|")  # every word is followed by one, and a run ends at the end
    # dicts, not sets: phrases said as often keep the order they first appear in, so ties
    # break the same way in every process (a set's order follows string hashes)
    pairs: dict[tuple[str, ...], int] = {}
    starts: dict[int, tuple[str, str]] = {}
    for i in compress(count(), map(opening.__contains__, tokens)):
        if (then := tokens[i + 1]) not in _RUN_BREAKS:
            pair = starts[i] = (tokens[i], singular(then) if then[-1] == "s" else then)
            pairs[pair] = pairs.get(pair, 0) + 1
    twice = {pair: seen for pair, seen in pairs.items() if seen > 1}
    if not twice:
        return
    # phrases of four words, then of three, then pairs: the longest first, and in each
    # length the order they first appear in (dicts, as above)
    fours: dict[tuple[str, ...], int] = {}
    threes: dict[tuple[str, ...], int] = {}
    for i, pair in starts.items():
        # every saying of `a b c` said twice has `a b` and `b c` (`b` as written) said
        # twice after it, and of `a b c d` also `c d`: a gram is counted where its pairs
        # are, which counts every gram said twice (and leaves out only some said once);
        # four words at most (`LONGEST`)
        if pair in twice and (second := starts.get(i + 1, _NO_PAIR)) in twice:
            gram: tuple[str, ...] = (pair[0], *second)
            threes[gram] = threes.get(gram, 0) + 1
            if (third := starts.get(i + 2, _NO_PAIR)) in twice:
                gram = (pair[0], second[0], *third)
                fours[gram] = fours.get(gram, 0) + 1
    covered: dict[tuple[str, ...], int] = {}
    for grams in (fours, threes, twice):
        for gram, seen in grams.items():
            if seen < 2 or covered.get(gram, 0) >= seen or not _acceptable(gram):
                continue
            n = len(gram)
            if n > 2:  # the shorter grams inside it (a pair has none)
                for a in range(n - 1):
                    for b in range(a + 2, n + 1):
                        if b - a < n:
                            sub = (*gram[a : b - 1], singular(gram[b - 1]))
                            covered[sub] = max(covered.get(sub, 0), seen)
            # an acceptable gram is what `_offer` would keep of it: its ends are no
            # openers or function words, and it has two to four words
            phrase = " ".join(gram)
            have = scored.get(phrase)
            scored[phrase] = (seen * n + (have[0] if have else 0.0), have[1] if have else "")


_NO_PAIR = ("", "")
"""Where no pair starts (no word of `counted` is empty)."""


_TAILS = ("", "s")
"""What may follow a phrase's last word in the text for it to fold to that word: itself, or
its plural (`singular` takes nothing else back to it)."""
_Y_TAILS = ("y", "ies", "ys")
"""The same for a last word in `y`, after its stem: `policy`, `policies`, `policys`."""


def occurrences(lowered: str, phrase: str) -> list[Span]:
    """Where `phrase` (folded) occurs as whole words in the text that `lowered` is
    (`text.translate(_LOWER)`: same offsets), a plural allowed: `fold(text[s:e]) == phrase`."""
    spans: list[Span] = []
    stem = phrase[:-1] if phrase.endswith("y") else phrase
    # a span is `stem` and a tail, and `phrase` has one space between words and none in
    # them, so it folds to `phrase` when its last word made singular is `phrase`'s last
    last = stem.rpartition(" ")[2]
    wanted = phrase.rpartition(" ")[2]
    at = lowered.find(stem)
    size = len(lowered)
    while at != -1:
        end = at + len(stem)
        if at == 0 or not lowered[at - 1].isalnum():
            for tail in _Y_TAILS if stem != phrase else _TAILS:
                if lowered.startswith(tail, end):
                    stop = end + len(tail)
                    if (stop == size or not lowered[stop].isalnum()) and singular(
                        last + tail
                    ) == wanted:
                        spans.append((at, stop))
                        break
        at = lowered.find(stem, at + 1)
    return spans
