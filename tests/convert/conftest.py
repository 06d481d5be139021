"""Fixtures for `bib convert` tests: bad inputs, each as a file that must be refused."""

from __future__ import annotations

from pathlib import Path

import pytest

GOOD = "We propose FairJudge, an adaptive judge.\n"

BAD_INPUTS: dict[str, tuple[str, bytes, str]] = {
    # name: (file name, content, expected message after "bib: error: FILE")
    "non_utf8": ("list.txt", b"ICML 2026\n\nGood.\n\nBad caf\xe9.\n", ":5: not UTF-8"),
    "empty_list": ("list.txt", b"ICML 2026 Papers\n\n", ": empty paper list"),
    "entry_without_text": (
        "list.txt",
        b"ICML 2026\n\n" + GOOD.encode() + b"\n12.\n",
        ":5: entry has no text",
    ),
    "no_venue_or_year": ("list.txt", GOOD.encode() + b"\nAnother one.\n", ":1: no venue and year"),
    "office_file_as_bib": (
        "refs.bib",
        b"PK\x03\x04\x14\x00\x06\x00word/document.xml",
        ": not a text file: this looks like a ZIP archive",
    ),
    "csv_renamed_txt": (
        "list.txt",
        b"title,authors,year\nDeep Cats,Jane Doe,2020\nShallow Dogs,John Roe,2021\n",
        ":1: not a paper list: this looks like a table (comma-separated, 3 columns)",
    ),
    "office_file_renamed_txt": (
        "list.txt",
        b"PK\x03\x04\x14\x00\x06\x00word/document.xml",
        ": not a text file: this looks like a ZIP archive",
    ),
    "string_bomb": (
        "refs.bib",
        b"@string{s0 = {xxxxxxxxxx}}\n"
        + b"".join(b"@string{s%d = s%d # s%d}\n" % (i + 1, i, i) for i in range(24))
        + b"@misc{a, title = s24}\n",
        ":18: value longer than",
    ),
    "invalid_csl_json": (
        "refs.json",
        b'[{"id": "a", "type": "nonsense"}]',
        ":1: invalid CSL-JSON item 0",
    ),
    "json_nan": (
        "refs.json",
        b'[{"id": "a", "type": "book", "title": "T",\n  "issued": {"date-parts": [[NaN]]}}]',
        ":2: not valid JSON: NaN",
    ),
    "json_1e999": (
        "refs.json",
        b'[{"id": "a", "type": "book", "title": "T",\n  "volume": 1e999}]',
        ":2: not valid JSON",
    ),
    "json_duplicate_key": (
        "refs.json",
        b'[{"id": "a", "type": "book",\n  "title": "T",\n  "title": "U"}]',
        ":3: not valid JSON",
    ),
    "json_4301_digit_integer": (
        "refs.json",
        b'[{"id": "a", "type": "book", "volume": ' + b"9" * 4301 + b"}]",
        ":1: not valid JSON: an integer of 4301 digits",
    ),
    "json_100k_deep": ("refs.json", b"[" * 100_000 + b"]" * 100_000, ":1: JSON nested more than"),
    "broken_json": ("refs.json", b'[{"id": "a",\n', ":2: not valid JSON"),
}


@pytest.fixture(params=sorted(BAD_INPUTS))
def bad_input(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    name, content, message = BAD_INPUTS[request.param]
    path = tmp_path / "in" / name
    path.parent.mkdir()
    path.write_bytes(content)
    return path, f"bib: error: {path}{message}"


@pytest.fixture
def good_list(tmp_path: Path) -> Path:
    path = tmp_path / "good.txt"
    path.write_text(f"ICML 2026 Papers\n\n{GOOD}", encoding="utf-8")
    return path
