"""Properties at the CLI boundary, complementing the writers' own: whatever a paper list holds,
`bib convert` answers with records or one clean error, never an exception, and never touches
an existing output when it fails; whatever a title holds, the real BibTeX reads exactly the
entries we wrote. 100 examples each by default, 1,000 with HYPOTHESIS_PROFILE=ci."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from bib.cli import main

LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Everything str.splitlines() breaks on: a title must stay on its `Title:` line."""

TOKENS = [
    "Title: ", "## ", "Authors: ", "URL: ", "1. ", "[2] ", "\n", "\n\n", "\r\n", "$", "$$",
    "\\", "\\textbf{", "\\url{", "{", "}", "%", "#", "&", "_", "~", "^", "**", "*", "`", "[",
    "](", ")", "@misc{x,", "http://", "—", "é", "多", "🚀", "\u202e", "\ufeff", "\x00", "\t",
]  # fmt: skip

paper_lists = st.lists(
    st.one_of(st.sampled_from(TOKENS), st.text(st.characters(exclude_categories=["Cs"]))),
    max_size=40,
).map(lambda parts: "ICML 2026 Papers\n\n" + "".join(parts))

titles = st.text(
    st.characters(exclude_categories=["Cs", "Cc"], exclude_characters=LINE_BREAKS),
    min_size=1,
    max_size=60,
).filter(lambda t: t.strip())


def convert(*args: str | Path) -> Result:
    """`bib convert ARGS` in-process; an exception escaping the CLI fails the test."""
    runner = CliRunner(env={"NO_COLOR": "1"})
    return runner.invoke(main, ["convert", *map(str, args)], catch_exceptions=False)


def assert_clean_error(result: Result) -> None:
    """One error line, last; warnings met before it (bidi controls removed) may precede it."""
    *before, last = result.stderr.splitlines()
    assert last.startswith("bib: error: "), result.stderr
    assert all(line.startswith("bib: warning: ") for line in before), result.stderr


@given(text=paper_lists)
def test_any_paper_list_gives_records_or_one_clean_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "list.txt"
        source.write_text(text, encoding="utf-8")
        result = convert(source, "-f", "csl-json")
        assert result.exit_code in (0, 2), result.output
        if result.exit_code == 0:
            assert isinstance(json.loads(result.stdout), list)
        else:
            assert_clean_error(result)


@given(data=st.binary(max_size=400))
def test_failed_conversion_leaves_existing_output_untouched(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "list.txt", Path(tmp) / "out.json"
        source.write_bytes(b"ICML 2026 Papers\n\n" + data)
        target.write_text("[]\n", encoding="utf-8")
        result = convert(source, "-o", target)
        assert result.exit_code in (0, 2), result.output
        if result.exit_code == 2:
            assert_clean_error(result)
            assert target.read_text(encoding="utf-8") == "[]\n"
        else:
            assert isinstance(json.loads(target.read_text(encoding="utf-8")), list)
        assert sorted(p.name for p in Path(tmp).iterdir()) == ["list.txt", "out.json"]


BST = r"""ENTRY { title booktitle year } {} {}
FUNCTION {default.type} {}
FUNCTION {inproceedings} {}
FUNCTION {or} { { pop$ #1 } 'skip$ if$ }
READ
FUNCTION {show}
{ "\bibitem{" cite$ * "}" *
  title empty$ booktitle empty$ or year empty$ or { " MISSING" * } 'skip$ if$
  write$ newline$ }
ITERATE {show}
"""
"""A BibTeX style listing each entry BibTeX read, flagged when title, booktitle or year is lost."""


@pytest.fixture(scope="module")
def bibtex(require: Callable[..., None]) -> Callable[[str], tuple[int, list[str], str]]:
    """`bibtex(bib_text)`: the real BibTeX's exit status, its entry lines, and its log."""
    require("bibtex")

    def run(bib_text: str) -> tuple[int, list[str], str]:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            (out / "refs.bib").write_text(bib_text, encoding="utf-8")
            (out / "show.bst").write_text(BST, encoding="ascii")
            (out / "doc.aux").write_text(
                "\\citation{*}\n\\bibstyle{show}\n\\bibdata{refs}\n", encoding="ascii"
            )
            proc = subprocess.run(
                ["bibtex", "-terse", "doc"], cwd=out, capture_output=True, text=True, timeout=60
            )
            bbl = (out / "doc.bbl").read_text(encoding="utf-8", errors="replace")
            blg = (out / "doc.blg").read_text(encoding="utf-8", errors="replace")
            return proc.returncode, bbl.splitlines(), blg

    return run


@pytest.mark.toolchain
@settings(max_examples=250)  # each example runs bib and BibTeX; it carries up to 8 titles
@given(entries=st.lists(titles, min_size=1, max_size=8))
def test_bibtex_reads_exactly_the_entries_written_whatever_their_titles(
    bibtex: Callable[[str], tuple[int, list[str], str]], entries: list[str]
) -> None:
    text = "ICML 2026 Papers\n\n" + "\n\n".join(
        f"Title: {title}\nAbstract number {n} of this list." for n, title in enumerate(entries)
    )
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "list.txt"
        source.write_text(text, encoding="utf-8")
        result = convert(source, "-f", "bibtex")
    assert result.exit_code == 0, result.stderr
    status, lines, log = bibtex(result.stdout)
    assert status == 0, log
    assert "Warning--" not in log
    assert len(lines) == len(entries), lines
    assert len(set(lines)) == len(lines)
    assert not [line for line in lines if line.endswith("MISSING")]
