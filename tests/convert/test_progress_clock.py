"""The progress line's clock moves while a long conversion runs."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import pytest
from rich.console import Console

from bib.cli import convert as convert_cli
from bib.record import EntryType, Record


def _slow_records(count: int, pause: float) -> Iterator[Record]:
    for n in range(count):
        time.sleep(pause)
        yield Record(id=f"r{n}", entry_type=EntryType.INPROCEEDINGS, title=f"T{n}")


def test_the_progress_clock_is_not_stuck_at_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: the task was created finished (rich's total of 100 passed), so its clock
    showed 0:00:00 for the whole of a 46 s run."""
    monkeypatch.setattr(convert_cli, "PROGRESS_AFTER", 10)
    monkeypatch.setattr(convert_cli, "PROGRESS_EVERY", 20)
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    stage = convert_cli.progress_stage(console)
    assert sum(1 for _ in stage(_slow_records(260, 0.01))) == 260
    assert "0:00:02" in screen.getvalue()
