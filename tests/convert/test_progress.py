"""The progress display: only on a terminal, only for long runs, records untouched."""

from __future__ import annotations

import io

from rich.console import Console

from bib.cli.convert import PROGRESS_AFTER, progress_stage
from bib.record import Record


def _run(count: int) -> tuple[list[Record], list[Record], str]:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=80)
    records = [Record(id=f"abs:{i}") for i in range(count)]
    return records, list(progress_stage(console)(records)), screen.getvalue()


def test_long_run_on_a_terminal_shows_progress():
    records, passed, screen = _run(PROGRESS_AFTER + 10)
    assert passed == records
    assert "reading and tagging:" in screen


def test_short_run_stays_quiet():
    records, passed, screen = _run(PROGRESS_AFTER - 1)
    assert passed == records
    assert screen == ""
