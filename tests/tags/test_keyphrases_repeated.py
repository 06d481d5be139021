"""Repeated phrases and plurals as `keyphrases` counts them are what the plain counting gives.

`keyphrases._repeated` finds the words said twice with one set, and reads the phrases of
three and four words off the pairs said twice; `keyphrases.singular` asks about the last
letter first. Each is held here to the straightforward computation it replaced: a
`Counter` of every word and every run read word by word, and the plural rule as written.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import example, given
from hypothesis import strategies as st

from bib.extract import keyphrases


def _singular_plainly(word: str) -> str:
    """The plural rule as first written: `ies` -> `y` past four letters, a last `s` cut
    past three letters unless the word ends in `ss`, `us` or `is`."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _repeated_by_counting_every_word(counted: str) -> dict[str, tuple[float, str]]:
    """`keyphrases._repeated` as it was written with a `Counter`: the words said twice
    that break no run counted, and from each of their sayings followed by a word that
    breaks none, the run read on word by word to four words."""
    breaks = keyphrases._RUN_BREAKS
    tokens = counted.split()
    said = Counter(word for word in tokens if word not in breaks)
    opening = {word for word, seen in said.items() if seen > 1}
    tokens.append("|")
    pairs: dict[tuple[str, ...], int] = {}
    starts: dict[int, tuple[str, ...]] = {}
    for i, word in enumerate(tokens):
        if word in opening and tokens[i + 1] not in breaks:
            pair = starts[i] = (word, _singular_plainly(tokens[i + 1]))
            pairs[pair] = pairs.get(pair, 0) + 1
    twice = {pair: seen for pair, seen in pairs.items() if seen > 1}
    grams = dict(twice)
    for i, pair in starts.items():
        if pair in twice:
            for j in range(i + 2, i + keyphrases.LONGEST):
                if tokens[j] in breaks:
                    break
                gram = (*tokens[i:j], _singular_plainly(tokens[j]))
                grams[gram] = grams.get(gram, 0) + 1
    scored: dict[str, tuple[float, str]] = {}
    covered: dict[tuple[str, ...], int] = {}
    said_twice = [(gram, seen) for gram, seen in grams.items() if seen > 1]
    for gram, seen in sorted(said_twice, key=lambda item: -len(item[0])):
        if covered.get(gram, 0) >= seen or not keyphrases._acceptable(gram):
            continue
        for a in range(len(gram) - 1):
            for b in range(a + 2, len(gram) + 1):
                if b - a < len(gram):
                    sub = (*gram[a : b - 1], _singular_plainly(gram[b - 1]))
                    covered[sub] = max(covered.get(sub, 0), seen)
        scored[" ".join(gram)] = (float(seen * len(gram)), "")
    return scored


WORDS = st.sampled_from(
    [
        "reward", "rewards", "model", "models", "policy", "policies", "study", "studies",
        "ties", "glass", "glasses", "bus", "axis", "sparse", "gate", "gates", "token",
        "x1", "ab", "the", "of", "we", "novel", "prior", "priors", "method", "|",
    ]
)  # fmt: skip
"""Counted words: plurals of each kind (`ies` long and short, `ss`, `us`, `is`), words of
two letters, function words, openers (`prior`, whose plural `priors` breaks no run),
generic heads and marks, few enough that phrases of two to four words come back."""


@given(st.lists(WORDS, max_size=80).map(" ".join))
@example("sparse gate token models | sparse gate token model | sparse gate token")
@example("reward policies gate | reward policy gates | reward policies gate")
@example("token glasses reward | token glass reward | token glasses reward")
def test_repeated_phrases_are_what_counting_every_word_and_run_gives(counted):
    scored: dict[str, tuple[float, str]] = {}
    keyphrases._repeated(counted, scored)
    assert list(scored.items()) == list(_repeated_by_counting_every_word(counted).items())


@given(st.text(alphabet="abeilsuy\u0131\u017f", max_size=8))
@example("ties")
@example("cries")
@example("axis")
@example("bus")
@example("glass")
@example("sss")
def test_a_plural_is_made_singular_by_the_plain_rule(word):
    assert keyphrases.singular(word) == _singular_plainly(word)
