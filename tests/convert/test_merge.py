"""Duplicates: one record per paper, merges reported, the result independent of order."""

from __future__ import annotations

from bib import convert as engine
from bib.merge import merge
from bib.record import Link, LinkRole, Record, Source
from bib.writers import render

ABSTRACT = "We propose FairJudge, an adaptive judge."


def test_same_abstract_in_two_files_is_one_record_and_reported(tmp_path):
    (tmp_path / "a.txt").write_text(f"ICML 2026\n\n{ABSTRACT}\n", encoding="utf-8")
    (tmp_path / "b.md").write_text(f"ICML 2026\n\nTitle: T\n**{ABSTRACT}**\n", encoding="utf-8")
    messages: list[str] = []
    result = engine.run(
        [tmp_path / "b.md", tmp_path / "a.txt"], engine.ConvertOptions(report=messages.append)
    )
    assert result.stats.records == 1
    assert result.stats.merged == 1
    assert messages == [
        f"merged: {tmp_path / 'b.md'}:3 = {tmp_path / 'a.txt'}:3 ({result.records[0].id})"
    ]


def test_same_doi_merges_and_fills_gaps_from_both():
    one = Record(id="doi:10.1/x", doi="10.1/x", title="T", sources=(Source("a.bib", 1),))
    two = Record(
        id="abs:1",
        doi="10.1/X",
        abstract="Text.",
        links=(Link("https://github.com/a/b", LinkRole.CODE),),
        sources=(Source("b.bib", 5),),
    )
    [merged], count = merge([two, one])
    assert count == 1
    assert (merged.title, merged.abstract, merged.id) == ("T", "Text.", "doi:10.1/x")
    assert merged.links == two.links
    assert merged.sources == (Source("a.bib", 1), Source("b.bib", 5))


def test_same_arxiv_id_merges():
    one = Record(id="arxiv:2401.1", arxiv_id="2401.1", sources=(Source("a", 1),))
    two = Record(id="abs:9", arxiv_id="2401.1", abstract="x", sources=(Source("b", 1),))
    assert len(merge([one, two])[0]) == 1


def test_merge_result_does_not_depend_on_input_order():
    one = Record(id="abs:1", abstract="Same text.", title="From A", sources=(Source("a", 1),))
    two = Record(id="abs:1", abstract="Same text.", title="From B", sources=(Source("b", 1),))
    assert merge([one, two])[0] == merge([two, one])[0]


def test_different_papers_stay_apart():
    one = Record(id="abs:1", abstract="One.", sources=(Source("a", 1),))
    two = Record(id="abs:2", abstract="Two.", sources=(Source("a", 3),))
    assert merge([one, two]) == ([one, two], 0)


def test_published_title_replaces_a_derived_one():
    derived = Record(id="abs:1", abstract="Same.", title="X: Derived", title_derived=True,
                     sources=(Source("a", 1),))  # fmt: skip
    real = Record(id="abs:1", abstract="Same.", title="The Real Title", sources=(Source("b", 1),))
    [merged], _ = merge([derived, real])
    assert (merged.title, merged.title_derived) == ("The Real Title", False)


def test_merged_copies_keep_the_latex_of_the_values_they_give(tmp_path):
    """Each copy's LaTeX goes with the merged record; the writer uses a field's LaTeX only
    while the merged record holds the value it was read as (docs/decisions/latex-source.md)."""
    (tmp_path / "a.bib").write_text(
        '@article{a, doi = {10.1/x}, title = {{NASA} Data}, journal = {J. {\\"o}}}\n'
    )
    (tmp_path / "b.bib").write_text(
        "@article{b, doi = {10.1/x}, title = {Other}, publisher = {{ACM} Press}}\n"
    )
    options = engine.ConvertOptions(stages=())
    [record] = engine.run([tmp_path / "a.bib", tmp_path / "b.bib"], options).records
    out = render([record], "bibtex")
    assert "title = {{NASA} Data}" in out  # the lead's title, its LaTeX
    assert 'journal = {J. {\\"o}}' in out
    assert "publisher = {{ACM} Press}" in out  # a gap filled from the other copy, its LaTeX
