"""Issue 18, point 10: the .bib files TeX Live ships, read by bib and by pandoc.

The reference is pandoc's own reading (`pandoc -f bibtex -t csljson`), an independent
implementation. Files over `MAX_BYTES` are left out to keep the suite fast (tugboat.bib,
3.8 MB, alone took a minute); they were measured once by hand for docs/formats.md.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bib.testing import texlive_bibs

sys.path.insert(0, str(Path(__file__).parent))
from corpus import COMPARED, Agreement, compare, our_items, pandoc_items
from differences import CLASSES, Difference, classify

MAX_BYTES = 1_000_000
NEEDS_FORGIVING_READER = frozenset({"jbtest.bib"})
"""Files left out: jurabib's test file is Latin-1, not UTF-8 (refused with one line). The
files that once stopped the whole conversion (an undefined @string, a stray brace) are in:
the forgiving reader warns and goes on."""
"""Files with an undefined @string or a Latin-1 byte: issue 18 point 9 (the BibTeX reader's
part) makes them readable; until then reading them must fail with one bad-input error."""
NOT_BIBLIOGRAPHIES = frozenset(
    {"amsj.bib", "archaeologie-lstlocations.bib", "archaeologie-lstpublishers.bib"}
)
"""Files of @string definitions only: no entry to convert (pandoc finds none either)."""
MERGED_AS_ONE_WORK = frozenset({"baez/online"})
"""Entries with the arXiv id of another entry: one work by point 1 of issue 18 (reported on
standard error as merged), so their key is the other entry's."""
AGREEMENT_FLOOR = 0.937
"""The share of pandoc's values bib gives equally (after the normalizations of
corpus.normal, each a documented choice): a floor under the figure measured (93.74 %)."""
FIELD_FLOORS = {
    "title": 0.84,
    "author": 0.96,
    "editor": 0.92,
    "issued": 0.97,
    "container-title": 0.72,
    "publisher": 0.92,
    "volume": 0.99,
    "issue": 0.995,
    "collection-title": 0.99,
    "page": 0.99,
    "URL": 0.97,
}
"""Per field, under the figures measured (docs/formats.md); container-title counts every
TUGboat issue, where pandoc gives nothing for `\\TUB`."""
UNEXPLAINED_CEILING = 0.001
"""Issue 18, point 10 (b) asks for at most 0.5 % of the values compared that no class of
`differences.CLASSES` explains; measured: none of 13,400 (0.28 % before the decoder's
fixes), so the ceiling only leaves a margin for another pandoc version."""
DOCS = Path(__file__).parents[2] / "docs" / "formats.md"


def _texlive_bibs() -> list[Path]:
    return [p for p in texlive_bibs() if p.stat().st_size <= MAX_BYTES]


FILES = _texlive_bibs()


@pytest.fixture(scope="module")
def corpus(require, unavailable):
    require("pandoc")
    if not FILES:
        unavailable("TeX Live's .bib files are not installed (texlive-bibtex-extra)")
    return FILES


def _readable(paths: list[Path]) -> list[Path]:
    return [p for p in paths if p.name not in NEEDS_FORGIVING_READER | NOT_BIBLIOGRAPHIES]


def test_every_entry_pandoc_reads_is_an_output_record_with_its_key(corpus):
    missing: dict[str, list[str]] = {}
    for path in _readable(corpus):
        try:
            theirs = pandoc_items(path)
        except subprocess.CalledProcessError:
            continue  # pandoc refuses the file (a syntax it does not know): nothing to compare
        keys = our_items(path).keys()
        lost = sorted(
            str(item["id"]) for item in theirs if str(item["id"]) not in keys | MERGED_AS_ONE_WORK
        )
        if lost:
            missing[path.name] = lost
    assert missing == {}


@pytest.fixture(scope="module")
def agreement(corpus) -> Agreement:
    found = Agreement()
    for path in _readable(corpus):
        try:
            theirs = pandoc_items(path)
        except subprocess.CalledProcessError:
            continue
        compare(theirs, our_items(path), found, path.read_text(encoding="utf-8", errors="replace"))
    return found


def test_field_values_agree_with_pandoc(agreement):
    figures = {v: f"{agreement.ratio(v):.2%} of {agreement.total[v]}" for v in COMPARED}
    print(figures)
    assert agreement.ratio() >= AGREEMENT_FLOOR, figures
    assert {v: agreement.ratio(v) >= floor for v, floor in FIELD_FLOORS.items()} == dict.fromkeys(
        FIELD_FLOORS, True
    ), figures


def test_every_difference_but_a_tenth_of_a_percent_is_a_deliberate_class(agreement):
    """Equal or explained: at least 99.9 % of pandoc's values (issue 18, point 10 (b), 99.5 %)."""
    classes = Counter(classify(d) for d in agreement.differences)
    total = sum(agreement.total.values())
    unexplained = [d for d in agreement.differences if classify(d) is None]
    print({name or "unexplained": count for name, count in classes.most_common()})
    assert [c.name for c in CLASSES if not classes[c.name]] == []  # no rule without a case
    assert len(unexplained) <= UNEXPLAINED_CEILING * total, [
        (d.key, d.variable, d.theirs, d.ours) for d in unexplained
    ]


def test_every_class_of_difference_has_its_row_in_the_docs():
    text = DOCS.read_text(encoding="utf-8")
    assert [c.name for c in CLASSES if f"| {c.name} |" not in text] == []


def test_a_difference_pandoc_did_not_make_by_deleting_a_macro_is_unexplained():
    """The rules look at the values and the source: text bib added, or a value changed
    where the source has no command, is no deletion of pandoc's."""
    source = {"title": "Electronic Publishing\\Dash Origination"}
    deleted = Difference("k", "title", "publishingorigination", "publishing—origination", source)
    added = Difference("k", "title", "publishing origination", "publishing new origination", {})
    assert (classify(deleted), classify(added)) == ("unknown macro deleted", None)
