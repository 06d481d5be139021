"""Plain words of an abstract or title, for scoring and for search queries."""

from __future__ import annotations

import re
import unicodedata

_MARKUP = re.compile(r"[*_`#~\\{}$^]|</?[a-z]+>")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

_STOPWORDS = (
    "a an and are as at be by for from has have in into is it its of on or our that the their "
    "these this those to we which with while can both not also such than then there"
)
STOPWORDS = frozenset(_STOPWORDS.split())


def normalize(text: str) -> str:
    """Lower-case words joined by single spaces: markup, accents and punctuation removed."""
    text = _MARKUP.sub(" ", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_WORD.findall(text.casefold()))


def words(text: str) -> list[str]:
    return normalize(text).split()


def distinctive(text: str, count: int) -> list[str]:
    """The `count` longest distinct non-stopwords in text order: terms a rewording keeps."""
    seen: dict[str, int] = {}
    for position, word in enumerate(words(text)):
        if word not in STOPWORDS and word not in seen and not word.isdigit():
            seen[word] = position
    longest = sorted(seen, key=lambda w: (-len(w), seen[w]))[:count]
    return sorted(longest, key=seen.__getitem__)
