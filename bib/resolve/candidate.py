"""What a source says about one paper, in one shape for every source."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Enrichment:
    """The final venue and DOI that an enriching source gave for a paper already matched."""

    source: str
    source_id: str
    doi: str = ""
    venue: str = ""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One paper as a source describes it; `source_id` is that source's own id."""

    source: str
    source_id: str
    title: str = ""
    abstract: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str = ""
    doi: str = ""
    arxiv_id: str = ""
    url: str = ""
    enrichment: Enrichment | None = None
    """Set on a matched paper when another source gave its final venue or DOI."""


@dataclass(frozen=True, slots=True)
class Query:
    """What a record offers to search with."""

    abstract: str
    title: str = ""
    year: int | None = None
    venue: str = ""
