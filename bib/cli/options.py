"""Options that several commands share, so that each is spelled and means the same in all.

Kept free of heavy imports: `bib.cli.library` (the light commands' module) uses it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


def jobs_option(function: F) -> F:
    """`-j/--jobs N`, shared by `bib convert`, `bib add` and `bib tags` (one engine)."""
    return click.option(
        "-j",
        "--jobs",
        type=click.IntRange(min=1),
        help="Worker processes for large inputs (default: the usable cores; 1: this process only).",
    )(function)


def jobs_or_cores(jobs: int | None) -> int:
    """`--jobs` as given, else every core this process may use."""
    from bib import parallel

    return jobs if jobs is not None else parallel.usable_cores()
