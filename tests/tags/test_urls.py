"""URLs in abstracts: cleaned of markup and punctuation, with their role."""

from __future__ import annotations

import pytest

from bib.extract.urls import find_urls, tag_urls
from bib.record import LinkRole, Record, TagKind


def test_seed_urls_match_the_fixture(seed_records, expected_urls):
    for row in expected_urls:
        found = find_urls(seed_records[row["source"]].abstract)
        got = {
            "code": [f.url for f in found if f.role is LinkRole.CODE],
            "project": [f.url for f in found if f.role is LinkRole.PROJECT],
        }
        assert got == {"code": row["code"], "project": row["project"]}, row["source"]


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("Code is at https://github.com/a/b.", "https://github.com/a/b"),
        ("Code: \\url{https://github.com/henry-yeh/mce}.", "https://github.com/henry-yeh/mce"),
        ("See [the code](https://gitlab.com/a/b).", "https://gitlab.com/a/b"),
        ("At: [https://x.github.io/](https://x.github.io/).", "https://x.github.io/"),
        ("(see https://github.com/a/b)", "https://github.com/a/b"),
        ("Weights: huggingface.co/org/model;", "https://huggingface.co/org/model"),
        ("Wiki https://en.wikipedia.org/wiki/A_(b), ok", "https://en.wikipedia.org/wiki/A_(b)"),
    ],
)
def test_url_is_cleaned(text, url):
    assert [f.url for f in find_urls(text)] == [url]


@pytest.mark.parametrize(
    ("url", "role"),
    [
        ("https://github.com/a/b", LinkRole.CODE),
        ("https://huggingface.co/a/b", LinkRole.CODE),
        ("https://ama-bench.github.io/", LinkRole.PROJECT),
        ("https://arxiv.org/abs/2401.01234", LinkRole.PAPER),
    ],
)
def test_url_role_follows_its_host(url, role):
    assert find_urls(f"Find it at {url} now")[0].role is role


def test_evidence_covers_exactly_the_url():
    text = "Our code is available at https://github.com/LISijia-dev/H-EPM."
    [found] = find_urls(text)
    assert text[found.evidence[0] : found.evidence[1]] == "https://github.com/LISijia-dev/H-EPM"


def test_stage_adds_links_and_code_tags():
    [record] = tag_urls([Record(id="x", abstract="Code: https://github.com/a/b.")])
    assert record.urls(LinkRole.CODE) == ["https://github.com/a/b"]
    assert [(t.kind, t.value) for t in record.tags] == [(TagKind.CODE, "https://github.com/a/b")]
