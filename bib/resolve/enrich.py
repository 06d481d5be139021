"""The final venue and DOI of a paper already matched, from the enriching sources.

Asked only after a match, only for a record that names no venue of its own, matched to a
paper without a final venue (an arXiv preprint, say): a record from a conference list
already says where the paper appeared (another version's DOI would be wrong for it), the
venue listings of OpenReview give final venues, and the conferences they list issue no DOIs.
An enricher's answer never changes which paper a record is; it is taken only when it is
unmistakably the matched paper: the same title (after normalizing), a year at most one
apart, shared author family names, and no second paper that passes too.
So enrichment cannot lower precision: at worst it adds nothing.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from bib.resolve.candidate import Candidate, Enrichment, Query
from bib.resolve.score import author_overlap, text_similarity
from bib.resolve.sources import Source

SAME_TITLE = 0.95
"""Title similarity for the same paper: case, punctuation and a trailing period differ, words
do not (a look-alike with one word changed scores about 0.85)."""
SAME_AUTHORS = 0.5
"""At least half the shorter author list's family names shared."""
_PREPRINT = re.compile(r"\b(arxiv|corr|biorxiv|medrxiv|ssrn|preprint|submitted)\b", re.I)
_PREPRINT_DOI = "10.48550/"
"""arXiv's own DataCite DOIs name the preprint, not the published paper."""


def final_venue(venue: str) -> bool:
    """A venue that is a place of publication, not a preprint server."""
    return bool(venue.strip()) and _PREPRINT.search(venue) is None


def wants_enrichment(record_venue: str, candidate: Candidate) -> bool:
    return not record_venue and not final_venue(candidate.venue)


def same_paper(matched: Candidate, other: Candidate) -> bool:
    if not matched.title or text_similarity(matched.title, other.title) < SAME_TITLE:
        return False
    if matched.year is None or other.year is None or abs(matched.year - other.year) > 1:
        return False
    if not matched.authors or not other.authors:
        return False
    return author_overlap(matched.authors, other.authors) >= SAME_AUTHORS


def useful(other: Candidate) -> Enrichment | None:
    doi = "" if other.doi.lower().startswith(_PREPRINT_DOI) else other.doi
    venue = other.venue if final_venue(other.venue) else ""
    if not venue:
        return None
    return Enrichment(other.source, other.source_id, doi=doi, venue=venue)


def pick(matched: Candidate, found: Sequence[Candidate]) -> Enrichment | None:
    """The one enrichment that is the matched paper's final version, or None (none, or two
    different papers that both pass: a look-alike is never guessed between)."""
    passing = {
        (e.doi.casefold(), e.venue): e
        for e in (useful(c) for c in found if same_paper(matched, c))
        if e is not None
    }
    return next(iter(passing.values())) if len(passing) == 1 else None


def query_for(matched: Candidate) -> Query:
    return Query(abstract="", title=matched.title, year=matched.year)


def enrich_all(matched: Candidate, enrichers: Sequence[Source]) -> Candidate:
    """The enrichers in turn until one gives a final venue (one request each at most)."""
    for enricher in enrichers:
        if matched.enrichment is not None:
            break
        matched = enrich(matched, enricher)
    return matched


def enrich(matched: Candidate, enricher: Source) -> Candidate:
    """The matched candidate with the enricher's final venue and DOI, when it has them."""
    found = pick(matched, enricher.search(query_for(matched)))
    if found is None:
        return matched
    return dataclasses.replace(
        matched, enrichment=found, doi=matched.doi or found.doi, venue=found.venue
    )
