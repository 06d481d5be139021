"""The fast paths of the extractors and the identity give what the plain definitions give.

Each speed trick (a `str.find` before a regex, folding only the characters outside ASCII)
is held to the slow, obviously right computation on generated text that mixes the
characters each trick depends on: case variants, dotless i and long s, runs of stars.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bib.extract import entities, keyphrases, methods, titles, topics, urls
from bib.extract.markup import _STARS, anchor_starts, plain
from bib.extract.topics import TopicMatch
from bib.extract.vocabulary import FUNCTION_WORDS, Vocabulary, shipped
from bib.identity import _HIDDEN, _WORD_BYTES, normalize_text


def pieces(*words: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(words), max_size=30).map("".join)


URL_TEXT = pieces(
    "http", "HTTPS://", "https://", "http\u017f://", "www.", "WWW.", "Www.", "github.com/",
    "GitHub.com/", "g\u0131thub.com/", "g\u0130thub.com/", "huggingface.co/", "gitlab.com/",
    "\\url{", "\\URL{", "\\href{", "](", "(", ")", "{", "}", "[", "]", " ", "x", "/", ".",
    "\u00e9", "\n",
)  # fmt: skip
HYPE_TEXT = pieces(
    "novel", "NOVEL", "new", "New", "simple", "\u017fimple", "S\u0130MPLE", "principled",
    "pr\u0131nc\u0131pled", "comprehensive", "COMPREHENSIVE", "renew", " ", "  ", "a", "-",
    "K", "\u212a",
)  # fmt: skip
STAR_TEXT = pieces("*", "**", "****", "a", "b", " ", "\\", "\u00e9")
NAME_TEXT = pieces("A", "Z", "b", "z", "1", "-", "+", ".", "\u00c9", "\u24b6", "\u0661")
"""Capitals, small letters, digits (one Arabic-Indic), an accented capital and a circled
capital (upper case, but not a letter)."""
CLAUSE_TEXT = pieces(
    "a", " ", ",", ";", ":", ".", "that", "which", "where", "whose", "who", "to", "\u00a0", "w"
)
ANCHOR_TEXT = pieces("we ", "We\n", "this work", "THIS PAPER", "x", "_", " ", "\u0130", "e")
SPECIAL = "\u00df\u0130\u0131\u017f\ufb01\u2014\u2019 \\](Aa1"
"""Sharp s, dotted and dotless i, long s, a ligature, dashes and quotes, markup."""
WORD_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",)) | st.sampled_from(SPECIAL), max_size=60
)


@given(URL_TEXT)
@example("code: g\u0131thub.com/x and http\u017f://y.org")
@example("\\URL{x} [a](b) G\u0130thub.com/x www.a.b")
def test_url_scan_finds_what_the_whole_regex_scan_finds(text):
    fast = [(m.span(), m.lastgroup) for m in urls._matches(text)]
    assert fast == [(m.span(), m.lastgroup) for m in urls._URL.finditer(text)]


@given(HYPE_TEXT)
@example("a \u017fimple tool")
@example("a pr\u0131nc\u0131pled tool")
def test_hype_words_are_dropped_as_the_regex_drops_them(text):
    assert titles._drop_hype(text) == titles._DROP.sub("", text)


@given(STAR_TEXT, st.integers(0, 40), st.integers(0, 40))
@example("a ****b**** c", 2, 3)
def test_star_spans_point_at_the_characters_the_plain_text_kept(text, start, end):
    doc = plain(text)
    assert doc.text == _STARS.sub("", text)
    start, end = sorted((min(start, len(doc.text)), min(end, len(doc.text))))
    kept = [index for index, char in enumerate(text) if char != "*"] + [len(text)]
    expected = (kept[start], kept[end - 1] + 1) if end > start else (kept[start],) * 2
    assert doc.source_span(start, end) == expected


@given(WORD_TEXT)
@example("Stra\u00dfe \u0130stanbul \ufb01ne \u2014 it\u2019s \\emph{x} [a](b)")
def test_normalized_text_is_the_case_folded_words(text):
    assert normalize_text(text) == _reference_normalize(text)


def _reference_normalize(text: str) -> str:
    """`normalize_text` as first written: the whole text case folded."""
    if "\\" in text or "](" in text:
        text = _HIDDEN.sub(" ", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).casefold()
        for char in set(text):
            if char > "\x7f" and not char.isalnum():
                text = text.replace(char, " ")
    return b" ".join(text.encode("utf-8").translate(_WORD_BYTES).split()).decode("utf-8")


@given(NAME_TEXT)
def test_coined_names_are_told_as_the_letter_count_tells_them(token):
    letters = [c for c in token if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    expected = bool(letters) and (
        upper >= 2
        or any(c.isupper() for c in token[1:])
        or (any(c.isdigit() for c in token) and upper >= 1)
    )
    assert methods._is_name_like(token) == expected


@given(CLAUSE_TEXT)
def test_clause_ends_where_the_clause_regex_ends_it(text):
    end = methods._CLAUSE_END.search(text)
    expected = (text[: end.start()] if end else text).strip(" ,.;:")
    assert methods._clause(text) == expected


SENTENCE_TEXT = pieces(
    "e.g", "i.e", "vs", "al", "x", "E", "_", "1", "\u00e9", ".", "!", "?", " ", "\n"
)
LOOKBEHINDS_FIRST = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bal)[.!?](?:\s|$)")
"""The sentence end as first written: the look-behinds before the mark (13 times slower)."""


@given(SENTENCE_TEXT, st.integers(0, 60))
@example("see e.g. x, i.e. y, vs. z, et al. Done.", 30)
def test_sentence_ends_are_where_the_look_behinds_first_pattern_ends_them(text, position):
    position = min(position, len(text))
    pattern = entities._SENTENCE_END
    spans = [m.span() for m in pattern.finditer(text, 0, position)]
    assert spans == [m.span() for m in LOOKBEHINDS_FIRST.finditer(text, 0, position)]
    found, expected = pattern.search(text, position), LOOKBEHINDS_FIRST.search(text, position)
    assert (found and found.span()) == (expected and expected.span())


@given(ANCHOR_TEXT)
@example("x\u0130we this work")
def test_anchor_starts_are_the_word_starts_of_the_anchors(text):
    anchors = ("we ", "we\n", "this work", "this paper")
    lowered = text.lower()
    expected = sorted(
        {
            pos
            for anchor in anchors
            for pos in range(len(lowered))
            if lowered.startswith(anchor, pos) and (pos == 0 or not lowered[pos - 1].isalnum())
        }
    )
    assert anchor_starts(text, anchors) == expected


COUNTED_TEXT = st.lists(
    st.sampled_from(
        [
            "reward", "model", "models", "policy", "policies", "prior", "priors", "glass",
            "glasses", "bus", "study", "studies", "x1", "ab", "sparse", "gate", "the", "of",
            "we", "novel", "method", "|",
        ]
    ),
    max_size=60,
).map(" ".join)  # fmt: skip
"""Counted text (`keyphrases._COUNTED`): lower-case words and `|` marks, with plurals,
function words, openers (`prior`, whose plural `priors` is no break) and generic heads."""


def _repeated_plainly(counted: str) -> dict[str, tuple[float, str]]:
    """`keyphrases._repeated` by its definition: every run of two to four words that no
    break interrupts counted (its last word singular), longest first, each length in the
    order its phrases first appear; those said twice scored unless a longer one said as
    often covers them."""
    tokens = counted.split()
    grams: dict[tuple[str, ...], int] = {}
    for n in (4, 3, 2):
        for i in range(len(tokens) - n + 1):
            run = tokens[i : i + n]
            if not any(word in keyphrases._RUN_BREAKS for word in run):
                gram = (*run[:-1], keyphrases.singular(run[-1]))
                grams[gram] = grams.get(gram, 0) + 1
    scored: dict[str, tuple[float, str]] = {}
    covered: dict[tuple[str, ...], int] = {}
    for gram, seen in grams.items():
        if seen < 2 or covered.get(gram, 0) >= seen or not keyphrases._acceptable(gram):
            continue
        for a in range(len(gram)):
            for b in range(a + 2, len(gram) + 1):
                if b - a < len(gram):
                    sub = (*gram[a : b - 1], keyphrases.singular(gram[b - 1]))
                    covered[sub] = max(covered.get(sub, 0), seen)
        scored[" ".join(gram)] = (float(seen * len(gram)), "")
    return scored


@given(COUNTED_TEXT)
@example("deep audio priors | audio priors | reward novel | reward novel")
@example("reward models policy reward model policies | sparse gate reward models policy")
def test_repeated_phrases_are_the_runs_said_twice(counted):
    scored: dict[str, tuple[float, str]] = {}
    keyphrases._repeated(counted, scored)
    assert list(scored.items()) == list(_repeated_plainly(counted).items())


def _expansion_plainly(text: str, opened: int, acronym: str) -> str:
    """`keyphrases._expansion` as first written: the initials of the last n words made
    again for each n."""
    letters = "".join(c for c in acronym if c.isupper()).lower()
    before = text[max(0, opened - 120) : opened].rstrip()
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*", before.rsplit(".", 1)[-1])
    for n in range(2, min(len(words), 2 * len(letters)) + 1):
        chosen = words[-n:]
        initials = "".join(
            p[0].lower() for w in chosen for p in w.split("-") if p.lower() not in FUNCTION_WORDS
        )
        if initials == letters:
            found = " ".join(chosen)
            return found if keyphrases.fold(found) in keyphrases.fold(before) else ""
        if len(initials) > len(letters):
            return ""
    return ""


EXPANSION_TEXT = pieces(
    "Direct", "Preference", "Optimization", "of", "the", "Key-Value", "pre-Trained", "Low",
    "Rank", "/", ".", " ", " ", "-", "x", "(DPO)", "(KV)", "(LoRA)", "(PTM)", "(DPOs)",
)  # fmt: skip


@given(EXPANSION_TEXT)
@example("Low Rank Adaptation of Direct Preference Optimization (DPO)")
@example("a Sparse Mixture of Experts (MoE) and Key-Value (KV)")
@example("Direct/Preference Optimization (DPO) and Key-value-Value (KV)")
def test_acronym_expansions_are_the_words_whose_initials_spell_them(text):
    for m in keyphrases._ACRONYM.finditer(text):
        expected = _expansion_plainly(text, m.start(), m.group(1))
        assert keyphrases._expansion(text, "", m.start(), m.group(1)) == expected


DEFINING_TEXT = pieces(
    "we", "We", "WE", "call", "CALL", "term", "Termed", "dubbed", "name", "is", "are",
    "called", "referred", "to", "as", "known", "\u212anown", "a\u017f", "it", "This", " ",
    "\n", "\u2003", "\x0b", "\u0130", "-", "\"", "\u201c", "x", "Sparse", "Gate", "_", "\u00e9",
)  # fmt: skip
"""Defining words in every case, split by the spaces `\\s` knows, with the Kelvin sign
and the long s that IGNORECASE folds to `k` and `s`, and a dotted capital I that lower-cases
to two characters."""


@given(DEFINING_TEXT)
@example("We call this Sparse-Gate routing")
@example("is known a\u017f Sparse Gate")
@example("\u0130 we call Sparse Gate")
def test_defined_terms_are_what_the_case_blind_regex_finds(text):
    expected = [text[m.start(1) : m.end(1)] for m in keyphrases._DEFINED.finditer(text)]
    assert keyphrases.defined_terms(text) == expected


CUE_TEXT = pieces(
    "we", "We", "call", "CALL", "calls", "called", "recalled", "term", "terms", "Termed",
    "long-term", "dub", "dubbed", "name", "named", "is", "\u0131s", "i\u017f", "are", "so",
    "referred", "to", "as", "a\u017f", "known", "\u212anown", "unknown", "this", " ", "  ",
    "\n", "\t", "\u2003", "\x0b", "\x1c", "\u0130", "-", "\"", "x", "Sparse", "Gate", "?",
)  # fmt: skip
"""Texts around `_DEFINED`'s cues: its verbs with and without the word they follow, their
look-alikes (`calls`, `long-term`, `unknown`), every space `\\s` knows, and the characters
IGNORECASE folds to ASCII (`\u0131`, `\u017f`, the Kelvin sign)."""


def _lowered(text: str) -> str:
    return text.encode("ascii", "replace").translate(keyphrases._LOWER_BYTES).decode()


@given(CUE_TEXT)
@example("We call this Sparse Gate")
@example("we\u2003call Sparse Gate terms")
@example("x \u0131s called Sparse Gate")
@example("We term it Sparse Gate")
@example("x i\u017f called Sparse Gate")
@example("an approach called Sparse Gate is known a\u017f x")
@example("x is" + " " * 20 + "called Sparse Gate")
def test_a_cue_check_passes_every_abstract_whose_defined_terms_are_searched(text):
    lowered = _lowered(text)
    named = any(map(lowered.__contains__, keyphrases._DEFINING_WORDS))
    searched = keyphrases.defined_terms(text) if named else []
    assert (keyphrases.defined_terms(text) if keyphrases.may_define(lowered) else []) == searched


@given(st.text(alphabet=st.sampled_from("aZ-s \n\t\r\x0b\u00a0\u00e9\u0130yie?")))
@example("Reward-Models")
@example("Direct\u00a0Policies")
def test_fold_lowers_ascii_text_as_the_character_map_does(text):
    words = text.translate(keyphrases._LOWER).split()
    if words:
        words[-1] = keyphrases.singular(words[-1])
    assert keyphrases.fold(text) == " ".join(words)


_SHIPPED = shipped()
_FAMILY = sorted(slug for slug in _SHIPPED.topics if _SHIPPED.ancestors(slug))[:200]
"""Topics with an ancestor: drawn with their ancestors, a list of matches then holds topics
above others."""


def _plain_most_specific(found: list[TopicMatch], vocabulary: Vocabulary) -> list[TopicMatch]:
    """`most_specific` as first written: every other match's ancestors asked in turn."""
    kept = []
    for match in found:
        below = [o for o in found if o is not match and match.slug in vocabulary.ancestors(o.slug)]
        cover = [s for o in below for s in o.evidence]
        if below and all(any(a <= s and e <= b for a, b in cover) for s, e in match.evidence):
            continue
        kept.append(match)
    return kept


SPANS = st.lists(
    st.tuples(st.integers(0, 12), st.integers(1, 4)).map(lambda p: (p[0], p[0] + p[1])),
    min_size=1,
    max_size=3,
)


@st.composite
def topic_matches(draw: st.DrawFn) -> list[TopicMatch]:
    """A few distinct topics, some with their ancestors, each with spans on a short text."""
    slugs: list[str] = []
    for slug in draw(st.lists(st.sampled_from(_FAMILY), min_size=1, max_size=4)):
        slugs.append(slug)
        slugs += draw(st.lists(st.sampled_from(_SHIPPED.ancestors(slug)), max_size=2))
    unique = list(dict.fromkeys(slugs))
    return [
        TopicMatch(s, s, tuple(sorted(draw(SPANS))), 1.0) for s in draw(st.permutations(unique))
    ]


@settings(max_examples=300)  # each example draws a dozen values: 1,000 took 20 s under load
@given(topic_matches())
def test_most_specific_keeps_what_the_pairwise_ancestor_check_keeps(found):
    assert topics.most_specific(found, _SHIPPED) == _plain_most_specific(found, _SHIPPED)


EVIDENCE_TEXT = pieces(
    "reward", "model", "models", "modeles", "policy", "policies", "policys", "y", "ys", "ies",
    "glass", "glasses", "bus", "s", "es", " ", "  ", "-", "\n", "\x0b", "\u00e9", "x", ",",
)  # fmt: skip
"""Abstracts around the phrases' last words: every ending `singular` takes back (`s`,
`ies`, `ys`) and one it does not (`es`), endings it keeps (`glass`, `bus`), a lone `y`, and
the spaces and marks between words."""
EVIDENCE_PHRASE = st.lists(
    st.sampled_from(["reward", "model", "models", "policy", "y", "glass", "bus", "Model"]),
    min_size=1,
    max_size=3,
).map(" ".join)
"""Phrases as `keyphrases` looks them up: folded, or not (a plural last word, a capital)."""


def _occurrences_plainly(lowered: str, phrase: str) -> list[tuple[int, int]]:
    """`keyphrases.occurrences` by its definition: every whole-word start of the phrase's
    stem (less a last `y`), run on to the end of its word, kept where it folds to `phrase`.
    No list of endings, so an ending that `occurrences` forgets fails the test."""
    spans = []
    stem = phrase[:-1] if phrase.endswith("y") else phrase
    for at in range(len(lowered) + 1):  # an empty stem (the phrase `y`) is at the end too
        if lowered.startswith(stem, at) and (at == 0 or not lowered[at - 1].isalnum()):
            stop = at + len(stem)
            while stop < len(lowered) and lowered[stop].isalnum():
                stop += 1
            if keyphrases.fold(lowered[at:stop]) == phrase:
                spans.append((at, stop))
    return spans


@given(EVIDENCE_TEXT, EVIDENCE_PHRASE)
@example("reward policies, reward policys and reward policy", "reward policy")
@example("glasses and glass models", "glass")
@example("the y and ys", "y")
def test_evidence_spans_are_where_the_abstract_folds_to_the_phrase(text, phrase):
    lowered = _lowered(text)
    assert keyphrases.occurrences(lowered, phrase) == _occurrences_plainly(lowered, phrase)
