"""Bidirectional controls are removed where records are read; right-to-left text is kept."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile" / "rtl.txt"
CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
RTL_WORDS = ["العربية", "الحديثة", "עברית", "חדשה"]
FORMATS = ["bibtex", "biblatex", "csl-json"]

BIB_WITH_OVERRIDE = (
    "@misc{evil2026,\n  title = {Report \u202egpj.exe\u202c},\n"
    "  author = {Doe\u2066, Jane},\n  publisher = {\u202bACME\u202c},\n  year = {2026}\n}\n"
)


@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_list_output_has_no_bidi_controls(cli, fmt):
    result = cli("convert", str(HOSTILE), "-f", fmt)
    assert result.exit_code == 0, result.output
    assert CONTROLS.search(result.stdout) is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_arabic_hebrew_and_directional_marks_survive(cli, fmt):
    result = cli("convert", str(HOSTILE), "-f", fmt)
    assert all(word in result.stdout for word in RTL_WORDS)
    assert "\u200fmarks\u200e" in result.stdout


def test_warning_names_the_record_and_its_fields(cli):
    result = cli("convert", str(HOSTILE), "-f", "csl-json")
    assert (
        f"bib: warning: {HOSTILE}:3: removed bidirectional control characters from title, abstract"
        in result.stderr
    )


def test_bibtex_values_and_names_lose_their_controls(cli, tmp_path):
    path = tmp_path / "evil.bib"
    path.write_text(BIB_WITH_OVERRIDE, encoding="utf-8")
    result = cli("convert", str(path), "-f", "csl-json")
    assert CONTROLS.search(result.stdout) is None
    assert '"title": "Report gpj.exe"' in result.stdout
    assert (
        "(evil2026): removed bidirectional control characters from title, publisher, authors"
        in result.stderr
    )


def test_genuine_right_to_left_text_gives_no_warning(cli, tmp_path):
    path = tmp_path / "rtl.txt"
    path.write_text("ACL 2026 Papers\n\nWe study عربي and עברית text.\n", encoding="utf-8")
    result = cli("convert", str(path), "-f", "csl-json")
    assert "عربي" in result.stdout and "עברית" in result.stdout
    assert "warning" not in result.stderr
