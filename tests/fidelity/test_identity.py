"""Issue 18, point 1: records merge only when they are the same work for sure."""

from __future__ import annotations

from bib import convert as engine

SERIES = """\
@book{knuth:vol1,
  author = {Knuth, Donald E.}, title = {The Art of Computer Programming}, year = {1968},
  volume = {1},
}
@book{knuth:vol2,
  author = {Knuth, Donald E.}, title = {The Art of Computer Programming}, year = {1968},
  volume = {2},
}
"""


def _run(tmp_path, text, name="refs.bib"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    lines: list[str] = []
    return engine.run([path], engine.ConvertOptions(stages=(), report=lines.append)), lines


def test_entries_vanish_as_false_duplicates_volumes_of_a_series_stay_two(tmp_path):
    result, _ = _run(tmp_path, SERIES)
    assert sorted(r.key for r in result.records) == ["knuth:vol1", "knuth:vol2"]


def test_likely_duplicates_are_reported_as_possible_duplicate_never_merged(tmp_path):
    _, lines = _run(tmp_path, SERIES)
    assert [line for line in lines if "possible duplicate" in line] == [
        f"warning: {tmp_path / 'refs.bib'}:5: possible duplicate of {tmp_path / 'refs.bib'}:1"
        " (same title, year and first author; kept apart)"
    ]


def test_entries_without_title_year_or_author_do_not_share_one_id(tmp_path):
    result, _ = _run(tmp_path, "@misc{a, note = {x}}\n@misc{b, note = {y}}\n")
    assert len({r.id for r in result.records}) == 2


def test_the_same_doi_still_merges(tmp_path):
    text = "@article{a, title = {T}, doi = {10.1/X}}\n@article{b, title = {T}, doi = {10.1/x}}\n"
    result, lines = _run(tmp_path, text)
    assert [r.key for r in result.records] == ["a"]
    assert any(line.startswith("merged:") for line in lines)


def test_dois_are_lower_cased_the_doi_keeps_its_case(tmp_path):
    result, _ = _run(tmp_path, "@article{a, title = {T}, doi = {10.1002/ABC.123}}\n")
    assert result.records[0].doi == "10.1002/ABC.123"


def test_a_short_abstract_does_not_merge_two_entries(tmp_path):
    text = (
        "@book{a, title = {A}, abstract = {In German.}}\n"
        "@book{b, title = {B}, abstract = {In German.}}\n"
    )
    result, _ = _run(tmp_path, text)
    assert sorted(r.key for r in result.records) == ["a", "b"]


def test_the_same_key_in_two_files_is_one_record(tmp_path):
    (tmp_path / "one.bib").write_text("@book{k, title = {A}}\n", encoding="utf-8")
    (tmp_path / "two.bib").write_text("@book{k, title = {A}, year = {2000}}\n", encoding="utf-8")
    result = engine.run(
        [tmp_path / "one.bib", tmp_path / "two.bib"], engine.ConvertOptions(stages=())
    )
    assert [(r.key, r.year) for r in result.records] == [("k", 2000)]


def test_derived_titles_that_agree_are_no_possible_duplicates(tmp_path) -> None:
    """Regression: a paper list whose derived titles repeat printed a warning per record."""
    from bib import merge
    from bib.record import Record

    one = Record(id="a", title="FooNet: A Framework", title_derived=True, year=2026)
    two = Record(id="b", title="FooNet: A Framework", title_derived=True, year=2026)
    assert merge.possible_duplicates([merge.lookalike(one), merge.lookalike(two)]) == []
