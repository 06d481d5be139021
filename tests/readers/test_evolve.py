"""`evolve` builds exactly the record `dataclasses.replace` builds, faster."""

from __future__ import annotations

import dataclasses

import pytest

from bib.record import (
    Author,
    EntryType,
    FieldLatex,
    LatexSource,
    Link,
    LinkRole,
    Record,
    Source,
    StringDef,
    Tag,
    TagKind,
    evolve,
)

FULL = Record(
    id="abs:0123456789abcdef",
    abstract="We propose X.",
    key="x2026",
    entry_type=EntryType.ARTICLE,
    title="X: A Method",
    title_derived=True,
    authors=(Author("Doe", "Jane"),),
    venue="ICML",
    container_title="Proceedings",
    event_title="ICML 2026",
    publisher="PMLR",
    series="PMLR",
    year=2026,
    links=(Link("https://github.com/x/x", LinkRole.CODE),),
    doi="10.1/x",
    arxiv_id="2601.00001",
    method="X",
    tags=(Tag(TagKind.METHOD, "X", "", ((11, 12),)),),
    note="n",
    fields=(("volume", "3"),),
    sources=(Source("a.txt", 3),),
    latex=LatexSource(
        (FieldLatex("journal", "J. ACM", "J. ACM", "jacm"),), (StringDef("jacm", "{J. ACM}"),)
    ),
)
CHANGED = {
    "id": "doi:10.1/y",
    "abstract": "Other.",
    "key": "y2026",
    "entry_type": EntryType.MISC,
    "title": "Y",
    "title_derived": False,
    "authors": (),
    "venue": "",
    "container_title": "",
    "event_title": "",
    "publisher": "",
    "series": "",
    "year": None,
    "links": (),
    "doi": "",
    "arxiv_id": "",
    "method": "",
    "tags": (),
    "note": "",
    "fields": (),
    "sources": (),
    "latex": None,
}


def test_every_field_is_covered():
    assert sorted(CHANGED) == sorted(f.name for f in dataclasses.fields(Record))


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_evolve_changes_one_field_as_replace_does(name):
    copy = evolve(FULL, **{name: CHANGED[name]})
    expected = dataclasses.replace(FULL, **{name: CHANGED[name]})
    assert copy == expected
    assert [getattr(copy, f) for f in CHANGED] == [getattr(expected, f) for f in CHANGED]


def test_evolve_without_changes_is_an_equal_copy():
    assert evolve(FULL) == FULL


def test_evolve_leaves_the_original_alone():
    evolve(FULL, method="Y", tags=())
    assert (FULL.method, len(FULL.tags)) == ("X", 1)


def test_evolved_record_stays_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        evolve(FULL, key="k").key = "other"  # type: ignore[misc]


def test_evolve_refuses_a_name_that_is_no_field():
    with pytest.raises(TypeError, match="no field 'titel'"):
        evolve(FULL, titel="x")
