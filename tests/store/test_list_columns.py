"""`bib list` on a narrow terminal never cuts a citation key."""

from __future__ import annotations

import pytest

from bib.cli import library


def test_a_long_key_is_printed_whole_on_a_narrow_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Regression: `bib list` cut citation keys at 80 columns."""
    monkeypatch.setattr(library, "on_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("NO_COLOR", "1")
    key = "averyveryverylongcitationkeyfromathesis2026"
    library.print_table(["key", "title"], [[key, "A title that is long enough to be wrapped"]])
    assert key in capsys.readouterr().out
