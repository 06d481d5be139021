"""BibTeX input: LaTeX to Unicode, names, types, extra fields, and faults with their line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib.errors import BibError
from bib.latex import source, to_text
from bib.record import Author, EntryType, Record, TagKind

ENTRY = r"""@inproceedings{muller2024deep,
  title = {{USMoE}: Caf\'e \& {M}ore for $6\times$ Speed},
  author = {M{\"u}ller, J{\"o}rg and Ludwig van Beethoven and {Barnes and Noble}
            and de la Fontaine, Jean},
  booktitle = {Proceedings of the 41st International Conference on Machine Learning},
  year = {2024},
  abstract = {We show $\alpha + \beta$ gains and 50\% fewer errors.},
  keywords = {sparse models, routing},
  pages = {1--10},
  volume = {235},
  annote = {Read twice},
  doi = {10.5555/ABC.123},
}
"""


def test_latex_becomes_unicode_outside_math(records):
    [record] = records("r.bib", ENTRY)
    assert record.title == r"USMoE: Café & More for $6\times$ Speed"


def test_third_party_accents_escapes_dashes_and_math_decode(records):
    text = "@misc{x, title={{\\\"u}ber Caf\\'{e} \\c{c}a \\& 1--10 --- ``q'' 50\\% of $\\alpha$}}\n"
    [record] = records("r.bib", text)
    expected = "\u00fcber Caf\u00e9 \u00e7a & 1\u201310 \u2014 \u201cq\u201d 50% of $\\alpha$"
    assert record.title == expected


def test_unescaped_ampersand_and_percent_in_a_title_are_kept(records):
    [record] = records("r.bib", "@misc{x, title={Q&A on 50% of {\\LaTeX} & Co}}\n")
    assert to_text(record.title) == "Q&A on 50% of LaTeX & Co"


def test_own_symbol_macros_read_back_as_their_characters(records):
    value = r"\textbraceleft{}a\textbraceright{} \textless{}b\textgreater{} c\textbar{}d"
    [record] = records("r.bib", "@misc{x, title={" + value + "}, publisher={" + value + "}}\n")
    assert (to_text(record.title), record.publisher) == ("{a} <b> c|d", "{a} <b> c|d")


def test_formatting_commands_stay_markup_in_titles(records):
    [record] = records("r.bib", r"@misc{x, title={\texttt{co\_de} and \textbf{{B}old}}}" + "\n")
    assert record.title == r"\texttt{co_de} and \textbf{Bold}"


def test_math_in_abstract_is_kept_as_written(records):
    [record] = records("r.bib", ENTRY)
    assert record.abstract == r"We show $\alpha + \beta$ gains and 50% fewer errors."


def test_names_split_with_von_parts_braces_and_accents(records):
    [record] = records("r.bib", ENTRY)
    assert record.authors == (
        Author("Müller", "Jörg"),
        Author("van Beethoven", "Ludwig"),
        Author(literal="Barnes and Noble"),
        Author("de la Fontaine", "Jean"),
    )


def test_source_key_and_line_are_kept(records):
    [record] = records("r.bib", "% comment\n\n" + ENTRY)
    assert record.key == "muller2024deep"
    assert record.source.line == 3


def test_unknown_fields_go_into_fields(records):
    [record] = records("r.bib", ENTRY)
    assert dict(record.fields) == {"annote": "Read twice", "pages": "1\u201310", "volume": "235"}


def test_keywords_become_topic_tags(records):
    [record] = records("r.bib", ENTRY)
    assert [(t.kind, t.label) for t in record.tags] == [
        (TagKind.TOPIC, "sparse models"),
        (TagKind.TOPIC, "routing"),
    ]


def test_doi_gives_the_id_and_booktitle_the_venue(records):
    [record] = records("r.bib", ENTRY)
    assert record.id == "doi:10.5555/abc.123"
    assert record.venue == "ICML"


@pytest.mark.parametrize(
    ("bibtype", "expected"),
    [
        ("article", EntryType.ARTICLE),
        ("phdthesis", EntryType.THESIS),
        ("techreport", EntryType.REPORT),
        ("inbook", EntryType.INBOOK),
        ("online", EntryType.ONLINE),
        ("manual", EntryType.MANUAL),
        ("conference", EntryType.INPROCEEDINGS),
        ("nonsense", EntryType.MISC),
    ],
)
def test_entry_types_are_mapped(records, bibtype, expected):
    [record] = records("r.bib", f"@{bibtype}{{k1, title={{T}}, year={{2020}}}}\n")
    assert record.entry_type is expected


def test_arxiv_eprint_makes_a_preprint_with_arxiv_id(records):
    text = "@misc{k, title={T}, eprint={2401.01234v3}, archivePrefix={arXiv}, year={2024}}\n"
    [record] = records("r.bib", text)
    assert (record.entry_type, record.arxiv_id, record.id) == (
        EntryType.PREPRINT,
        "2401.01234",
        "arxiv:2401.01234",
    )


def test_unbalanced_braces_skip_that_entry_with_a_warning_at_its_line(records):
    text = "@article{a, title={Fine}}\n\n@article{b, title={Broken}\n\n@article{c, title={C}}\n"
    warnings: list[str] = []
    found = records("r.bib", text, report=warnings.append)
    assert [r.key for r in found] == ["a", "c"]
    assert len(warnings) == 1 and ":3: skipped @article 'b': unbalanced braces" in warnings[0]


def test_duplicate_keys_warn_with_both_lines_and_keep_the_first(records):
    text = "@article{a, title={One}}\n@article{A, title={Two}}\n"
    warnings: list[str] = []
    [record] = records("r.bib", text, report=warnings.append)
    assert record.title == "One"
    assert warnings == [
        f"warning: {record.source.path}:2: duplicate key 'A' (first at line 1): "
        "this entry is skipped, as BibTeX does"
    ]


def test_file_without_entries_is_an_error(records):
    with pytest.raises(BibError, match="no BibTeX entries"):
        records("r.bib", "just some words\n")


def test_entry_without_key_is_skipped_with_a_warning(records):
    warnings: list[str] = []
    text = "@article{title={One}}\n@misc{ok, title={Two}}\n"
    [record] = records("r.bib", text, report=warnings.append)
    assert record.key == "ok"
    assert len(warnings) == 1 and ":1: skipped @article: no citation key" in warnings[0]


def test_own_derived_title_note_and_links_are_taken_back(records):
    text = (
        "@inproceedings{usmoe2026, title={{USMoE}: Unified}, year={2026},\n"
        "  note={Title derived from the abstract by bib; not the published title. Read it. "
        "Code: \\url{https://github.com/a/b}. Project page: \\url{https://a.github.io/}}}\n"
    )
    [record] = records("r.bib", text)
    assert (record.title_derived, record.note) == (True, "Read it.")
    assert [(link.url, link.role.value) for link in record.links] == [
        ("https://github.com/a/b", "code"),
        ("https://a.github.io/", "project"),
    ]


def test_author_of_a_tie_only_is_no_author_not_a_crash(records):
    """`author = {~}` made bibtexparser's splitname return no parts: a KeyError (found by
    the hypothesis test of kept LaTeX, tests/writers/test_latex_source.py)."""
    [record] = records("x.bib", "@misc{k, author = {~}, title = {T}}")
    assert record.authors == ()


_FURTHER = st.lists(
    st.tuples(st.sampled_from(["pages", "volume", "title", "url", "isbn"]), st.text(max_size=3)),
    max_size=6,
)


@given(_FURTHER, st.sampled_from(["pages", "volume", "title", "url", "isbn", "series"]))
def test_what_a_record_holds_for_a_field_is_the_same_looked_up_or_scanned(fields, name):
    record = Record(id="r", title="T", fields=tuple(fields))
    assert source.held(record, name, source.further_fields(record)) == source.held(record, name)
