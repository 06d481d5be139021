"""The fast paths of the extractors and the identity give what the plain definitions give.

Each speed trick (a `str.find` before a regex, folding only the characters outside ASCII)
is held to the slow, obviously right computation on generated text that mixes the
characters each trick depends on: case variants, dotless i and long s, runs of stars.
"""

from __future__ import annotations

import unicodedata

from hypothesis import example, given
from hypothesis import strategies as st

from bib.extract import titles, urls
from bib.extract.markup import _STARS, plain
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
