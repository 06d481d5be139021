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
    over quietly: it holds no keys bib could keep, and it is about to be replaced)."""
    pinned: dict[str, str] = {}
    for path in explicit:
        found = _keys(path)
        pinned.update(found)
        report(f"{len(found)} keys kept from {path}")
    for path in sorted(existing, key=_cheapest_first):
        if not path.is_file() or readers.SUFFIXES.get(path.suffix.lower()) not in KEYED_FORMATS:
            continue
        try:
            found = _keys(path)
        except BibError:
            continue
        if found:
            for record_id, key in found.items():
                pinned.setdefault(record_id, key)
            report(f"{len(found)} keys kept from {path}")
            break  # the outputs of one run hold the same records: one is enough
    return pinned


def _cheapest_first(path: Path) -> int:
    """CSL-JSON before BibTeX: it reads many times faster (no LaTeX to decode)."""
    return 0 if readers.SUFFIXES.get(path.suffix.lower()) == "csl-json" else 1


def _keys(path: Path) -> dict[str, str]:
    return {record.id: record.key for record in readers.read(path) if record.key}
