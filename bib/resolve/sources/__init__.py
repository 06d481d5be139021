"""The metadata sources behind one protocol, and the registry that names them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from bib.resolve.candidate import Candidate, Query
from bib.resolve.http import Http


class Source(Protocol):
    """A metadata service: search by text, fetch by id, list a venue's accepted papers.

    A method a service cannot do returns an empty answer rather than failing."""

    name: str

    def search(self, query: Query) -> list[Candidate]: ...

    def fetch(self, identifier: str) -> Candidate | None: ...

    def venue(self, venue: str, year: int) -> list[Candidate]: ...


def _openreview(http: Http) -> Source:
    from bib.resolve.sources.openreview import OpenReview

    return OpenReview(http)


def _arxiv(http: Http) -> Source:
    from bib.resolve.sources.arxiv import Arxiv

    return Arxiv(http)


def _semanticscholar(http: Http) -> Source:
    from bib.resolve.sources.semanticscholar import SemanticScholar

    return SemanticScholar(http)


REGISTRY: dict[str, Callable[[Http], Source]] = {
    "openreview": _openreview,
    "arxiv": _arxiv,
    "semanticscholar": _semanticscholar,
}
"""Sources in the order they are asked: the bulk venue listing first, per-paper searches after."""


def build(names: list[str], http: Http) -> list[Source]:
    return [REGISTRY[name](http) for name in names]
