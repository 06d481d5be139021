"""Citation keys: ASCII, lower case, deterministic, unique, and pinned once stored.

A key is the method name, else the first significant title word, folded to `[a-z0-9]`,
plus the year (`usmoe2026`). A BibTeX or CSL-JSON entry keeps its own key verbatim when
BibTeX, biber and pandoc accept it, and loses only the characters they refuse otherwise
(see docs/decisions/keys.md). Records that would share a key get the
suffixes a, b, ... in order of their record id, so the keys never depend on input order.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import count, product
from string import ascii_lowercase

from bib.record import Record, evolve

SAFE_SOURCE_KEY = re.compile(r"\w[\w:./+'-]*")
"""Keys that BibTeX, biber and pandoc all accept (letters, digits, `_:-./+'`, letters
outside ASCII): the user's, kept verbatim (`1657:huygens`, `smith.2020`, `müller2020`)."""
_UNSAFE_KEY_CHARS = re.compile(r"[^\w:./+'-]+")
VERBATIM_KEY = re.compile(r"[^\s\"\\{}\x00-\x1f\x7f]+(?: [^\s\"\\{}\x00-\x1f\x7f]+)*")
"""Keys that CSL-JSON and RIS take as they are (`x y`: pandoc cites it as `@{x y}`): no
control characters, quotes, backslashes or braces, single inner spaces. `bib convert` keeps
them; an output that refuses one gets it changed there only (`for_output`)."""
VERBATIM_MAX = 200


def verbatim_key(key: str) -> bool:
    """Whether CSL-JSON and RIS take `key` as it is (`VERBATIM_KEY`, at most `VERBATIM_MAX`)."""
    return len(key) <= VERBATIM_MAX and VERBATIM_KEY.fullmatch(key) is not None


STOPWORDS = frozenset(
    "a an the on of for to in with via and or is are do does can how why what when where "  # noqa: SIM905
    "which toward towards from by at as into beyond under over rethinking revisiting "
    "learning only this these our their its new novel".split()
)
_FOLD = str.maketrans(
    {"ß": "ss", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "đ": "d",
     "Đ": "d", "þ": "th", "Þ": "th", "œ": "oe", "Œ": "oe", "\u0131": "i", "ð": "d"}
)  # fmt: skip
_NON_KEY = re.compile(r"[^a-z0-9]+")
MAX_BASE = 24


def fold(text: str) -> str:
    """Lower-case ASCII letters and digits only: `Müller` -> `muller`, `S2L-PO` -> `s2lpo`."""
    if text.isascii():
        return _NON_KEY.sub("", text.lower())
    text = unicodedata.normalize("NFKD", text.translate(_FOLD))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return _NON_KEY.sub("", text.lower())


_WORD_GAP = re.compile(r"[\s:,;.!?()\[\]/]+")


def _first_word(title: str) -> str:
    for word in _WORD_GAP.split(title):
        folded = fold(word)
        if folded and word.lower() not in STOPWORDS and folded not in STOPWORDS:
            return folded
    return ""


def base_key(record: Record, *, verbatim: bool = False) -> str:
    """The key a record would get alone, before making keys unique. With `verbatim` (what
    `bib convert` asks for), a key of its own that is a `VERBATIM_KEY` is kept as it is,
    for the outputs that refuse it to change (`for_output`); else only a `SAFE_SOURCE_KEY`
    is, as the library needs (its keys go into every format)."""
    if record.key:
        if SAFE_SOURCE_KEY.fullmatch(record.key):
            return record.key
        if verbatim and verbatim_key(record.key):
            return record.key
        if SAFE_SOURCE_KEY.fullmatch(kept := _UNSAFE_KEY_CHARS.sub("", record.key)):
            return kept  # `x y` -> `xy`: what is left of the user's key, not a new one
    stem = fold(record.method) or _first_word(record.title)
    if not stem and record.authors:
        stem = fold(record.authors[0].family or record.authors[0].display)
    stem = (stem or "ref")[:MAX_BASE]
    return f"{stem}{record.year or ''}"


def _suffixes() -> Iterator[str]:
    """a, b, ..., z, aa, ab, ...: as many as a crowded key needs."""
    for length in count(1):
        for letters in product(ascii_lowercase, repeat=length):
            yield "".join(letters)


def assign(records: Iterable[Record], pinned: Mapping[str, str] | None = None) -> list[Record]:
    """Give every record a unique key; `pinned` (record id -> key) keys are kept as they are.

    Keys compare case-insensitively (BibTeX does), so `Smith2020` and `smith2020` clash.
    A key pinned to one record is never given to another.
    """
    records = list(records)
    chosen = unique_keys([(r.id, base_key(r)) for r in records], pinned)
    return [
        r if r.key == key else evolve(r, key=key) for r, key in zip(records, chosen, strict=True)
    ]


def unique_keys(bases: list[tuple[str, str]], pinned: Mapping[str, str] | None = None) -> list[str]:
    """`assign` on (record id, `base_key`) pairs: the key of each, so that a caller need not
    hold the records themselves."""
    pinned = pinned or {}
    taken = {key.casefold() for key in pinned.values()}
    groups: dict[str, list[int]] = defaultdict(list)
    for index, (record_id, base) in enumerate(bases):
        if record_id not in pinned:
            folded = base.casefold()
            groups[base if folded == base else folded].append(index)  # one string, not two
    keys: list[str] = [""] * len(bases)
    for folded in sorted(groups):
        members = groups[folded]
        if len(members) > 1:
            members.sort(key=lambda i: bases[i][0])
        base = bases[members[0]][1]
        if len(members) == 1 and folded not in taken:
            keys[members[0]] = base
            taken.add(folded)
            continue
        suffixes = iter(_suffixes())
        for index in members:
            candidate = base + next(suffixes)
            while candidate.casefold() in taken or candidate.casefold() in groups:
                candidate = base + next(suffixes)
            keys[index] = candidate
            taken.add(candidate.casefold())
    for i, (record_id, _) in enumerate(bases):
        if record_id in pinned:
            keys[i] = pinned[record_id]
    return keys


def with_own_keys(
    bases: Sequence[tuple[str, str]], own: Sequence[bool], pinned: Mapping[str, str]
) -> dict[str, str]:
    """`pinned` plus the keys records bring of their own (`own[i]`: the base key of
    `bases[i]` is its record's own key) that neither a pin nor another record claims: a
    user's key outranks a generated one (`usmoe2026` of a .bib entry stays, the paper list's
    USMoE becomes `usmoe2026a`); two records bringing the same key are suffixed as usual."""
    claimed = {key.casefold() for key in pinned.values()}
    brought: dict[str, int] = defaultdict(int)
    for (record_id, base), is_own in zip(bases, own, strict=True):
        if is_own and record_id not in pinned:
            brought[base.casefold()] += 1
    kept = dict(pinned)
    for (record_id, base), is_own in zip(bases, own, strict=True):
        folded = base.casefold()
        if is_own and record_id not in kept and brought[folded] == 1 and folded not in claimed:
            kept[record_id] = base
    return kept


def for_output(keys: Sequence[str], accepts: Callable[[str], bool]) -> dict[str, str]:
    """old -> new for each of an output's `keys` that its format refuses: what is left once
    the refused characters are gone (`x y` -> `xy`), else its ASCII fold, with a suffix when
    another key of the output (case-blind) has it. Only that output's key changes; the
    result depends on the set of keys alone, so a re-run gives the same."""
    refused = sorted(key for key in keys if not accepts(key))
    if not refused:
        return {}
    taken = {key.casefold() for key in keys if accepts(key)}
    changed: dict[str, str] = {}
    for key in refused:
        base = _UNSAFE_KEY_CHARS.sub("", key)
        if not accepts(base):
            base = fold(key)[:MAX_BASE] or "ref"
        candidate, suffixes = base, _suffixes()
        while candidate.casefold() in taken:
            candidate = base + next(suffixes)
        taken.add(candidate.casefold())
        changed[key] = candidate
    return changed
