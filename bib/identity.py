"""Stable record ids: the same paper gets the same id in any file, order or run.

A DOI or arXiv id names a paper outright. Without one, the abstract is the paper's
fingerprint: it is normalized (Unicode NFKC, case folded, markdown and LaTeX markup and
punctuation dropped, whitespace collapsed) before hashing, so that a list re-typed with
other emphasis or line breaks still yields the same id.

BibTeX and CSL-JSON entries carry their own citation key. Without a DOI, an arXiv id or an
abstract of real length (`MIN_ABSTRACT_WORDS`), the key is the entry's identity: two entries
with different keys are two works, however alike their titles (volumes of a series, a
regular column, a short and a full variant of one book). Paper lists, which have no keys,
keep the old fallback of title, year and first author, so their ids never change.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence

from bib.record import Author

_HIDDEN = re.compile(r"\\[a-zA-Z]+|\]\((?:[^()\s]|\([^()\s]*\))*\)")
"""Words a reader never sees: LaTeX command names and the targets of markdown links."""
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV = re.compile(
    r"^(?:https?://arxiv\.org/(?:abs|pdf)/|arxiv:\s*)?"
    r"((?:\d{4}\.\d{4,5})|(?:[a-z\-]+(?:\.[A-Z]{2})?/\d{7}))(?:v\d+)?(?:\.pdf)?$",
    re.IGNORECASE,
)
HASH_LENGTH = 16
MIN_ABSTRACT_WORDS = 12
"""Fewer words than this do not name a work ("See the preface.", "In German.")."""
_ASCII = bytes(range(128))


_WORD_BYTES = bytes(
    c + 32 if 65 <= c <= 90 else c if c >= 128 or chr(c).isalnum() else 32 for c in range(256)
)
"""A bytes.translate table for UTF-8: ASCII letters to lower case, ASCII non-alphanumerics
to spaces, the bytes of other characters kept."""
_SPACES = re.compile(b"  +")


def normalize_text(text: str) -> str:
    """Text reduced to its words: what stays the same however the list was typed."""
    return _words(text).decode("utf-8")


def _words(text: str) -> bytes:
    """`normalize_text` as UTF-8, which is what gets hashed (decoding and encoding again
    would cost a microsecond)."""
    if "\\" in text or ("]" in text and "](" in text):  # one character is found 10x faster
        text = _HIDDEN.sub(" ", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        # the characters outside ASCII, from the UTF-8 bytes left when the ASCII ones are
        # deleted: a tenth of the cost of `set(text)`
        for char in set(text.encode("utf-8").translate(None, _ASCII).decode("utf-8")):
            words = _folded(char)
            if words != char:
                text = text.replace(char, words)
    # the runs of spaces the translation leaves (its only whitespace) made one: a regex
    # substitution of the double ones costs two thirds of `b" ".join(words.split())`
    return _SPACES.sub(b" ", text.encode("utf-8").translate(_WORD_BYTES)).strip(b" ")


def _folded(char: str) -> str:
    """A character case folded, with what is not a letter or digit as spaces.

    Folding the few distinct characters an abstract has outside ASCII costs a fifth of
    `str.casefold` on the whole text, and gives the same text: case folding looks at
    one character at a time, and folding a folded character changes nothing.
    """
    return "".join(c if c.isalnum() else " " for c in char.casefold())


def normalize_doi(doi: str) -> str:
    """A DOI compared case-blind (DOIs are case-insensitive, ISO 26324)."""
    return strip_doi(doi).lower()


def strip_doi(doi: str) -> str:
    """A DOI without its resolver or `doi:` prefix, its case kept as the source wrote it."""
    return _DOI_PREFIX.sub("", doi.strip()).strip()


def normalize_arxiv(arxiv_id: str) -> str:
    """An arXiv id without its version (`2401.01234v2` -> `2401.01234`); "" if not one."""
    match = _ARXIV.match(arxiv_id.strip())
    return match.group(1).lower() if match else ""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def abstract_key(abstract: str) -> str:
    """The duplicate-detection key of an abstract ("" for an empty one)."""
    return _words_digest(_words(abstract))


def _words_digest(words: bytes) -> str:
    """`abstract_key` of the abstract whose `_words` are `words`."""
    return hashlib.sha256(words).hexdigest()[:HASH_LENGTH] if words else ""


def record_id(
    *,
    doi: str = "",
    arxiv_id: str = "",
    abstract: str = "",
    title: str = "",
    year: int | None = None,
    authors: Sequence[Author] = (),
    key: str = "",
) -> str:
    """The id of a paper from the strongest evidence available.

    With a citation `key` (BibTeX, CSL-JSON) and no DOI, arXiv id or abstract of real
    length: the key. Without a key either: title, year and the first author's family name,
    the same whichever reader split the name."""
    doi = normalize_doi(doi) if doi else ""
    if doi:
        return f"doi:{doi}"
    arxiv_id = normalize_arxiv(arxiv_id) if arxiv_id else ""
    if arxiv_id:
        return f"arxiv:{arxiv_id}"
    words = _words(abstract) if abstract else b""  # once: both tests below read them
    if key and not _enough_words(words):
        return f"key:{key}"
    if words:
        return f"abs:{_words_digest(words)}"
    fallback = " ".join(
        [normalize_text(title), str(year or ""), normalize_text(_first_family(authors))]
    ).strip()
    return f"meta:{digest(fallback)}"


def _first_family(authors: Sequence[Author]) -> str:
    if not authors:
        return ""
    return authors[0].family or authors[0].display


def names_work(abstract: str) -> bool:
    """Whether an abstract is long enough to tell one work from another."""
    return _enough_words(_words(abstract)) if abstract else False


def _enough_words(words: bytes) -> bool:
    """`names_work` of the abstract whose `_words` are `words`."""
    return len(words.split(b" ", MIN_ABSTRACT_WORDS)) >= MIN_ABSTRACT_WORDS


def likeness(title: str, year: int | None, authors: Sequence[Author]) -> str:
    """What two records of one work would share without a stronger identity: normalized
    title, year and first author ("" without a title). Used to report possible duplicates,
    never to merge them."""
    if not title:
        return ""
    return " ".join(
        [normalize_text(title), str(year or ""), normalize_text(_first_family(authors))]
    )
