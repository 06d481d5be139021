"""Styling follows https://no-color.org: with NO_COLOR set, no escape sequence at all."""

from __future__ import annotations

import pytest

from bib.cli.terminal import console


def test_no_color_removes_bold_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: as if on a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    out = console()
    out.print("[bold red]key[/]")
    assert "\x1b" not in capsys.readouterr().out


def test_a_terminal_without_no_color_is_styled(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = console()
    out.print("[bold]key[/]")
    assert "\x1b[1m" in capsys.readouterr().out
