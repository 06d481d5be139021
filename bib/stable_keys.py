"""Keys that stay put as a list grows: a conversion onto an existing output keeps its keys.

A paper list converted again after a paragraph was added must not rename the keys a
manuscript already cites (`usmoe2026` becoming `usmoe2026a` because a second USMoE paper
arrived). So the outputs that exist already (and any `--keys-from` file) are read first, and
every record they hold keeps its key there: `keys.unique_keys` treats them as pinned, and
only records new to the output get new keys, around the pinned ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from bib import readers
from bib.errors import BibError

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
    found: dict[str, str],
    path: Path,
    report: Report,
) -> None:
    """`found` added to `pinned` where no earlier file pinned the record or the key."""
    for record_id, key in found.items():
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


def _cheapest_first(path: Path) -> int:
    """CSL-JSON before BibTeX: it reads many times faster (no LaTeX to decode)."""
    return 0 if readers.SUFFIXES.get(path.suffix.lower()) == "csl-json" else 1


def _keys(path: Path) -> dict[str, str]:
    return {record.id: record.key for record in readers.read(path) if record.key}
