"""One run's HTTP layer, cache and sources, built from the environment."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bib.errors import BibError
from bib.resolve.cache import Cache
from bib.resolve.http import Http
from bib.resolve.resolver import Resolver
from bib.resolve.sources import REGISTRY, Source, build


def warn(message: str) -> None:
    print(message, file=sys.stderr)


@dataclass
class Session:
    http: Http
    sources: list[Source]
    resolver: Resolver

    def close(self) -> None:
        self.http.close()


def open_session(
    *, online: bool, sources: Sequence[str] = (), cache_dir: Path | None = None
) -> Session:
    """Sources in registry order unless named; `online=False` answers from the cache only."""
    names = list(sources) or list(REGISTRY)
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise BibError(f"unknown source {unknown[0]!r} (known: {', '.join(REGISTRY)})")
    http = Http(Cache(cache_dir), online=online)
    built = build(names, http)
    return Session(http, built, Resolver(built, warn))
