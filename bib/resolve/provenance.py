"""The sentences a resolved record's note carries: which source, its id, and the score; and,
when another source gave the final venue or DOI, which one.

Kept apart from the stage so that writers and the Zotero mapping can read them without
importing the HTTP layer."""

from __future__ import annotations

import re

PREFIX = "Resolved from"
_SENTENCE = re.compile(rf"{PREFIX} (\S+) (\S+) \(score (\d\.\d+)\)\.")
_ENRICHED = re.compile(r"(?:DOI and venue|DOI|Venue) from [a-z]+ \S+\.(?=\s|$)")


def sentence(source: str, source_id: str, score: float) -> str:
    return f"{PREFIX} {source} {source_id} (score {score:.2f})."


def enrichment_sentence(source: str, source_id: str, *, doi: bool, venue: bool) -> str:
    what = "DOI and venue" if doi and venue else ("DOI" if doi else "Venue")
    return f"{what} from {source} {source_id}."


def provenance_of(note: str) -> str:
    """The provenance in a note (the match, then any enrichment sentence), or ''."""
    match = _SENTENCE.search(note)
    if match is None:
        return ""
    enriched = _ENRICHED.match(note, match.end() + 1)
    return f"{match.group(0)} {enriched.group(0)}" if enriched else match.group(0)


def without_provenance(note: str) -> str:
    """The note with its provenance sentences taken out."""
    found = provenance_of(note)
    return " ".join(note.replace(found, " ").split()) if found else note
