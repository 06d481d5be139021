"""Keys that stay put as a list grows: a conversion onto an existing output keeps its keys.

A paper list converted again after a paragraph was added must not rename the keys a
manuscript already cites (`usmoe2026` becoming `usmoe2026a` because a second USMoE paper
arrived). So the outputs that exist already (and any `--keys-from` file) are read first, and
every record they hold keeps its key there: `keys.unique_keys` treats them as pinned, and
only records new to the output get new keys, around the pinned ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from bib import identity, readers
from bib.errors import BibError
from bib.latex import to_text
from bib.record import Record

Report = Callable[[str], None]

KEYED_FORMATS = ("bibtex", "csl-json")
"""Input formats whose entries carry citation keys."""


def pinned_from(
    existing: Iterable[Path], explicit: Iterable[Path], report: Report
) -> dict[str, str]:
    """record id -> key for every record in `explicit` files (which must be readable) and in
    the `existing` outputs that are regular files bib can read (one it cannot read is passed
    over quietly: it holds no keys bib could keep, and it is about to be replaced).

    The first file to give a record a key wins; a key a file gives to a record when an
    earlier file gave it to another is not kept, and reported (two records cannot share it)."""
    pinned: dict[str, str] = {}
    owners: dict[str, str] = {}  # casefolded key -> the record that keeps it
    for path in explicit:
        found = _keys(path)
        _pin(pinned, owners, found, path, report)
        report(f"{len(found)} keys kept from {path}")
    for path in sorted(existing, key=_cheapest_first):
        if not path.is_file() or readers.SUFFIXES.get(path.suffix.lower()) not in KEYED_FORMATS:
            continue
        try:
            found = _keys(path)
        except BibError:
            continue
        if found:
            _pin(pinned, owners, found, path, report)
            report(f"{len(found)} keys kept from {path}")
            break  # the outputs of one run hold the same records: one is enough
    return pinned


def _pin(
    pinned: dict[str, str],
    owners: dict[str, str],
    found: dict[str, Kept],
    path: Path,
    report: Report,
) -> None:
    """`found` added to `pinned` where no earlier file pinned the record or the key (and each
    key also under its record's `text_id`, for `pin_by_text`)."""
    for record_id, kept in found.items():
        key = kept.key
        owner = owners.get(key.casefold())
        if record_id in pinned or owner == record_id:
            continue
        if owner is not None:
            report(
                f"warning: {path}: key {key!r} is kept for another record "
                f"(given to it by an earlier file); this one gets a new key"
            )
            continue
        pinned[record_id] = key
        owners[key.casefold()] = record_id
        if kept.text_id:
            pinned.setdefault(kept.text_id, key)


def _cheapest_first(path: Path) -> int:
    """CSL-JSON before BibTeX: it reads many times faster (no LaTeX to decode)."""
    return 0 if readers.SUFFIXES.get(path.suffix.lower()) == "csl-json" else 1


class Kept(NamedTuple):
    """A key an existing file gives a record, and the record's `text_id`."""

    key: str
    text_id: str


def _keys(path: Path) -> dict[str, Kept]:
    return {r.id: Kept(r.key, text_id(r)) for r in readers.read(path) if r.key}


TEXT_ID = "text:"
"""The prefix that tells a `text_id` from a record id among the pinned keys."""


def text_id(record: Record) -> str:
    """The record's abstract as the words an output shows, hashed: what a record read back
    from our own output shares with the record it was written from when their ids differ.

    An id is made from the abstract as typed, markup and all (`**A**gent` is the words
    "a gent"); the outputs show the rendered text ("Agent"), so a record read back from them
    gets another id. Ids of paper lists must stay what they are (notes and Zotero items hang
    on them), so the keys are matched on this second identity instead."""
    if not record.abstract:
        return ""
    return TEXT_ID + identity.abstract_key(to_text(record.abstract))


def pin_by_text(pinned: dict[str, str], ids: Sequence[str], texts: Sequence[str]) -> dict[str, str]:
    """Give a record whose id the existing output does not know the key of the record there
    with the same `text_id` (`texts`, by position as `ids`), unless another record here holds
    that key already; the pinned keys by record id alone."""
    taken = {pinned[record_id] for record_id in ids if record_id in pinned}
    for position, record_id in enumerate(ids):
        if record_id in pinned:
            continue
        key = pinned.get(texts[position]) if texts[position] else None
        if key is not None and key not in taken:
            pinned[record_id] = key
            taken.add(key)
    return {name: key for name, key in pinned.items() if not name.startswith(TEXT_ID)}
