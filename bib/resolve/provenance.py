"""The sentence a resolved record's note carries: which source, its id, and the score.

Kept apart from the stage so that writers and the Zotero mapping can read it without
importing the HTTP layer."""

from __future__ import annotations

import re

PREFIX = "Resolved from"
_SENTENCE = re.compile(rf"{PREFIX} (\S+) (\S+) \(score (\d\.\d+)\)\.")


def sentence(source: str, source_id: str, score: float) -> str:
    return f"{PREFIX} {source} {source_id} (score {score:.2f})."


def provenance_of(note: str) -> str:
    """The provenance sentence in a note, or ''."""
    match = _SENTENCE.search(note)
    return match.group(0) if match else ""
