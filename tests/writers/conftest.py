"""Fixtures for the writer tests: records built directly, and parsers."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import bibtexparser
import pybtex.errors
import pytest
from bibtexparser.bparser import BibTexParser
from pybtex.database import BibliographyData, parse_string

from bib.record import Author, EntryType, Link, LinkRole, Record, Tag, TagKind

NASTY_ABSTRACTS = [
    r"x}, title = {PWNED}} @misc{evil, title={evil}",
    r"\input{/etc/passwd} \write18{rm -rf /} \catcode`\{=12 \def\x{y} \csname relax\endcsname",
    "100% of {unbalanced braces { and } stray } lone \\ backslash # hash & amp _ ~ ^ $",
    r"over 6$\times$ lossless, ${\sim}17.6\%$ of compute and $\mathbf{20\times}$ gains",
    "we introduce **USMoE**, a *unified* `code_x` [repo](https://github.com/a_b/c) Ünïcödé ß ł",
    "control\x00chars\x07 and\ttabs\nnewlines\u2028separators",
    "Cost $5 and $10; P$\\rightarrow$N; $x^$ broken; $a#b$; $\\mathbb{R}$",
]


def build_record(**changes: Any) -> Record:
    """A complete inproceedings record; keyword arguments replace fields."""
    base = Record(
        id="doi:10.5555/usmoe",
        key="usmoe2026",
        abstract="We introduce **Unified Sparse Mixture of Experts (USMoE)**, 6$\\times$ faster.",
        title="USMoE: Unified Sparse Mixture of Experts",
        title_derived=True,
        authors=(Author("Müller", "Jürgen"), Author("Nguyen", "Thi Minh")),
        venue="ICML",
        container_title="Proceedings of the 43rd International Conference on Machine Learning",
        event_title="Forty-Third International Conference on Machine Learning",
        publisher="PMLR",
        series="Proceedings of Machine Learning Research",
        year=2026,
        links=(
            Link("https://openreview.net/forum?id=abc", LinkRole.PAPER),
            Link("https://github.com/lab/usmoe", LinkRole.CODE),
        ),
        doi="10.5555/usmoe",
        arxiv_id="2601.01234",
        method="USMoE",
        tags=(
            Tag(TagKind.TOPIC, "mixture of experts"),
            Tag(TagKind.METHOD, "USMoE"),
            Tag(TagKind.CONTRIBUTION, "framework"),
        ),
    )
    return dataclasses.replace(base, **changes)


@pytest.fixture
def make_record() -> Callable[..., Record]:
    """Build a complete record with some fields replaced: `make_record(title="...")`."""
    return build_record


@pytest.fixture
def record() -> Record:
    return build_record()


@pytest.fixture
def nasty_records() -> list[Record]:
    """One record per hostile abstract, with a hostile title and note too."""
    return [
        build_record(
            id=f"nasty{i}",
            key=f"nasty{i}2026",
            title=f"{{USMoE}} 50% & LLM_{i} \\textbf{{bold}} }}{{",
            abstract=text,
            note=f"note {i}: {text[:40]}",
            entry_type=[EntryType.INPROCEEDINGS, EntryType.ARTICLE, EntryType.PREPRINT][i % 3],
        )
        for i, text in enumerate(NASTY_ABSTRACTS)
    ]


def parse_strict(text: str) -> BibliographyData:
    """pybtex in strict mode: any syntax problem raises instead of being skipped."""
    previous = pybtex.errors.strict
    pybtex.errors.strict = True
    try:
        return parse_string(text, "bibtex")
    finally:
        pybtex.errors.strict = previous


def parse_bibtexparser(text: str) -> list[dict[str, str]]:
    parser = BibTexParser(common_strings=False, ignore_nonstandard_types=False)
    return bibtexparser.loads(text, parser=parser).entries


@pytest.fixture(scope="session")
def strict() -> Callable[[str], BibliographyData]:
    return parse_strict


@pytest.fixture
def bibtexparser_entries() -> Callable[[str], list[dict[str, str]]]:
    return parse_bibtexparser
