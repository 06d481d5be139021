"""Record ids: the same paper gets the same id however and wherever it was typed."""

from __future__ import annotations

from bib.identity import normalize_arxiv, record_id
from bib.readers import read
from bib.record import Author


def test_markup_case_and_spacing_do_not_change_the_abstract_id():
    typed = "We introduce **USMoE**, a  framework:\nit *routes* tokens."
    retyped = "we introduce USMoE a framework it \\textbf{routes} tokens"
    assert record_id(abstract=typed) == record_id(abstract=retyped)


def test_abstract_id_is_a_16_hex_sha256_prefix():
    rid = record_id(abstract="Some abstract.")
    assert rid.startswith("abs:")
    assert len(rid) == 20
    int(rid[4:], 16)


def test_different_abstracts_get_different_ids():
    assert record_id(abstract="One paper.") != record_id(abstract="Another paper.")


def test_doi_wins_and_is_lower_cased():
    rid = record_id(doi="https://doi.org/10.5555/ABC", arxiv_id="2401.01234", abstract="x")
    assert rid == "doi:10.5555/abc"


def test_arxiv_id_loses_its_version():
    assert record_id(arxiv_id="arXiv:2401.01234v3") == "arxiv:2401.01234"
    assert normalize_arxiv("hep-th/9901001v1") == "hep-th/9901001"


def test_without_abstract_title_year_and_author_identify_the_entry():
    first = record_id(title="A Title", year=2020, authors=(Author("Doe", "Jane"),))
    assert first == record_id(title="a  title", year=2020, authors=(Author("doe"),))
    assert first != record_id(title="A Title", year=2021, authors=(Author("Doe", "Jane"),))


def test_ids_do_not_depend_on_position_in_the_file(tmp_path):
    one, two = "We propose FairJudge, a judge.", "We introduce MCE, a framework."
    (tmp_path / "a.txt").write_text(f"ICML 2026\n\n{one}\n\n{two}\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text(f"ICML 2026\n\n{two}\n\n{one}\n", encoding="utf-8")
    ids_a = {r.abstract: r.id for r in read(tmp_path / "a.txt")}
    ids_b = {r.abstract: r.id for r in read(tmp_path / "b.txt")}
    assert ids_a == ids_b


def test_a_title_only_bibtex_entry_is_identified_by_its_key_and_a_paper_list_entry_as_before(
    tmp_path,
):
    listed = tmp_path / "list.txt"
    listed.write_text("ICML 2024 Papers\n\nTitle: Routing as Linear Programs\nAuthors: Jane Doe\n")
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@inproceedings{doe2024,\n  title = {Routing as Linear Programs},\n"
        "  author = {Doe, Jane},\n  year = {2024},\n}\n"
    )
    [from_list] = read(listed)
    [from_bib] = read(bib)
    assert from_list.id.startswith("meta:")  # paper-list ids never change (notes hang on them)
    assert from_bib.id == "key:doe2024"  # issue 18: the key is part of a .bib entry's identity
