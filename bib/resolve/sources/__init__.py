"""The metadata sources behind one protocol, and the registry that names them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http


class Source(Protocol):
    """A metadata service: search by text, fetch by id, list a venue's accepted papers.

    A method a service cannot do returns an empty answer rather than failing."""

    name: str

    def search(self, query: Query) -> list[Candidate]: ...

    def fetch(self, identifier: str) -> Candidate | None: ...

    def venue(self, venue: str, year: int) -> list[Candidate]: ...


@dataclass(frozen=True, slots=True)
class KnownIds:
    """The ids a record already has, to fetch its paper by instead of searching."""

    arxiv_id: str = ""
    doi: str = ""


@runtime_checkable
class BatchFetch(Protocol):
    """A source that fetches the papers of many known ids in few requests; one answer per
    entry, None where it knows no such paper."""

    def fetch_known(self, known: Sequence[KnownIds]) -> list[Candidate | None]: ...


@runtime_checkable
class BatchSearch(Protocol):
    """A source that searches for several records in one request; one list per query, each
    holding every paper the request found (the scorer tells them apart)."""

    def search_many(self, queries: Sequence[Query]) -> list[list[Candidate]]: ...


class Role(StrEnum):
    MATCH = "match"
    """Finds the paper: its candidates are scored against the record."""
    ENRICH = "enrich"
    """Only asked after a match, for the final venue and DOI of the paper already found."""


@dataclass(frozen=True, slots=True)
class Registered:
    module: str
    cls: str
    role: Role

    def build(self, http: Http) -> Source:
        """The source; its module is imported only when a run asks for it."""
        found: Callable[[Http], Source] = getattr(importlib.import_module(self.module), self.cls)
        return found(http)


_PACKAGE = "bib.resolve.sources"
REGISTRY: dict[str, Registered] = {
    "openreview": Registered(f"{_PACKAGE}.openreview", "OpenReview", Role.MATCH),
    "arxiv": Registered(f"{_PACKAGE}.arxiv", "Arxiv", Role.MATCH),
    "semanticscholar": Registered(f"{_PACKAGE}.semanticscholar", "SemanticScholar", Role.MATCH),
    "openalex": Registered(f"{_PACKAGE}.openalex", "OpenAlex", Role.ENRICH),
    "crossref": Registered(f"{_PACKAGE}.crossref", "Crossref", Role.ENRICH),
    "dblp": Registered(f"{_PACKAGE}.dblp", "Dblp", Role.ENRICH),
}
"""Sources in the order they are asked: the bulk venue listing first, per-paper searches
after; then, for a paper matched without a final venue, the enrichers in turn."""


def build(names: Sequence[str], http: Http) -> list[Source]:
    return [REGISTRY[name].build(http) for name in names]


def role(source: Source) -> Role:
    return REGISTRY[source.name].role if source.name in REGISTRY else Role.MATCH
