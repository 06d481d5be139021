"""Issue 18, point 1: our own exports come back unchanged. `bib export` in each format that
bib also reads, then `bib add` of that file into the same library, must find every record
it wrote, unchanged. The reference is the library itself: what was exported."""

from __future__ import annotations

import json

import pytest

from bib import convert as engine
from bib import writers
from bib.readers import csljson, roundtrip
from bib.writers import csljson as csl_writer

READABLE = {"bibtex": "out.bib", "biblatex": "out.biblatex.bib", "csl-json": "out.json"}


@pytest.mark.parametrize("fmt", sorted(READABLE))
def test_an_export_added_back_reports_every_record_unchanged(cli, seeds, tmp_path, fmt):
    assert cli("add", *seeds).exit_code == 0
    out = tmp_path / READABLE[fmt]
    assert cli("export", "-f", fmt, "-o", out).exit_code == 0
    report = json.loads(cli("add", "--json", out).stdout)
    assert (report["new"], report["updated"]) == ([], [])
    assert sorted(report["unchanged"]) == _keys(cli)


def _keys(cli) -> list[str]:
    return sorted(entry["key"] for entry in json.loads(cli("list", "--json").stdout))


def test_markdown_abstracts_were_read_back_as_their_rendering(tmp_path):
    """`**x**` is written `\\textbf{x}` (BibTeX) or `x` (CSL); read back, the abstract
    changed and every record with markdown came back updated."""
    stored = engine.run(
        [_write(tmp_path, "list.txt", "ICML 2026\n\nWe introduce **FooNet** at 5\\%.\n")],
        engine.ConvertOptions(stages=()),
    ).records[0]
    for fmt in ("bibtex", "csl-json"):
        path = _write(tmp_path, f"back{writers.REGISTRY[fmt].suffixes[0]}", "")
        path.write_text(writers.render([stored], fmt), encoding="utf-8")
        [back] = engine.run([path], engine.ConvertOptions(stages=())).records
        assert back.abstract != stored.abstract  # the rendering, not the markdown
        again = roundtrip.read_back(back, stored)
        assert (again.id, again.abstract) == (stored.id, stored.abstract), fmt


def test_another_abstract_under_the_same_key_is_not_taken_for_ours(tmp_path):
    first, second = (
        engine.run(
            [_write(tmp_path, f"{n}.txt", f"ICML 2026\n\nWe introduce **FooNet** {text}.\n")],
            engine.ConvertOptions(stages=()),
        ).records[0]
        for n, text in (("a", "for parsing"), ("b", "for tagging"))
    )
    assert roundtrip.read_back(second, first) == second


def test_markdown_added_to_a_paper_list_is_an_update_not_a_rendering(tmp_path):
    plain, marked = (
        engine.run(
            [_write(tmp_path, f"{n}.txt", f"ICML 2026\n\nWe introduce {text} for parsing.\n")],
            engine.ConvertOptions(stages=()),
        ).records[0]
        for n, text in (("a", "FooNet"), ("b", "**FooNet**"))
    )
    assert roundtrip.read_back(marked, plain) == marked


def test_reading_status_in_custom_was_read_back_as_a_record_field(tmp_path):
    """`bib export` puts the library's annotations in CSL `custom`; the reader took
    `custom.reading-status` for a field of the record."""
    from annotations import exchange
    from annotations.store import Entry, Status

    [record] = engine.run(
        [_write(tmp_path, "a.bib", "@book{a, title = {T}, year = 2020}\n")],
        engine.ConvertOptions(stages=()),
    ).records
    entry = Entry(record=record, rating=4, status=Status.READ, personal_tags=("mine",))
    item = exchange.annotate_csl(csl_writer.item(record), entry)
    assert set(item["custom"]) <= csljson.LIBRARY_ANNOTATIONS  # what export adds
    [back] = csljson.read(json.dumps([item]).encode(), "a.json")
    assert back.fields == record.fields


def test_custom_arxiv_was_read_back_as_a_field_not_the_arxiv_id(tmp_path):
    text = "@article{a, title = {T}, year = 2020, eprint = {2401.01234}, archiveprefix = {arXiv}}\n"
    [record] = engine.run([_write(tmp_path, "a.bib", text)], engine.ConvertOptions()).records
    item = csl_writer.item(record)
    assert "URL" not in item and item["custom"]["arxiv"] == "2401.01234"
    [back] = csljson.read(json.dumps([item]).encode(), "a.json")
    assert (back.id, back.arxiv_id, back.fields) == (record.id, record.arxiv_id, record.fields)


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_csl_export_of_bold_initials_came_back_as_a_new_record(cli, tmp_path):
    """The id of a paper list's record is made from the words of its abstract as typed:
    `**F**ast **N**ets` are the words "f ast n ets"; CSL renders "Fast Nets", so the record
    read back had another id and was added as a new record (`amabench2026a`)."""
    abstract = (
        "We introduce **F**ast **N**ets, parsers of many languages that learn from few "
        "examples and are robust to noise in the input they are given."
    )
    source = _write(tmp_path, "list.txt", f"ICML 2026\n\n{abstract}\n")
    assert cli("add", source).exit_code == 0
    out = tmp_path / "out.json"
    assert cli("export", "-o", out).exit_code == 0
    [item] = json.loads(out.read_text(encoding="utf-8"))
    [back] = csljson.read(out.read_bytes(), str(out))
    [stored] = engine.run([source], engine.ConvertOptions(stages=())).records
    assert back.id != stored.id  # what made it new
    report = json.loads(cli("add", "--json", out).stdout)
    assert (report["new"], report["updated"], report["unchanged"]) == ([], [], [item["id"]])


KNUTH = """@article{knuth84,
  author = {Donald E. Knuth}, title = {Literate Programming},
  journal = {The Computer Journal}, year = 1984, month = MONTH, volume = 27
}
"""


@pytest.mark.parametrize(
    ("month", "fmt"),
    [
        ("dec", "biblatex"),
        ("{12}", "biblatex"),
        ("12", "biblatex"),
        ("{December}", "biblatex"),
        ("dec", "bibtex"),
        ("{December}", "bibtex"),
        ("{12}", "bibtex"),
    ],
)
def test_a_month_exported_as_biblatex_came_back_updated(cli, tmp_path, month, fmt):
    """Regression: `month = dec` read as "December", the BibLaTeX export wrote `month = {12}`,
    read back as "12" with the LaTeX `{12}`: an update. A month reads as its name however
    written, and a month written as a number keeps no LaTeX of its own."""
    source = tmp_path / "knuth.bib"
    source.write_text(KNUTH.replace("MONTH", month), encoding="utf-8")
    assert cli("add", source).exit_code == 0
    for _ in range(2):  # and once more from the export's export
        out = tmp_path / READABLE[fmt]
        assert cli("export", "-f", fmt, "-o", out).exit_code == 0
        report = json.loads(cli("add", "--json", out).stdout)
        assert (report["new"], report["updated"], report["unchanged"]) == ([], [], ["knuth84"])
