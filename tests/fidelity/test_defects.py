"""Issue 18: each defect found converting real bibliographies, as a regression test.

References: BibTeX's name syntax (Patashnik, "BibTeXing", section 4: von/Last/Jr/First,
`and others`), biblatex's manual (section 2.3.8: `date` is ISO 8601, `month` an integer),
the CSL-JSON schema (schema/csl-data.json: `date-parts`, name `suffix`, particles).
"""

from __future__ import annotations

import json
import subprocess

from bib import convert as engine
from bib.writers import bibtex, csljson


def _records(tmp_path, text, name="refs.bib"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return engine.run([path], engine.ConvertOptions(stages=())).records


def _item(tmp_path, text, name="refs.bib"):
    [record] = _records(tmp_path, text, name)
    return csljson.item(record)


def test_dates_keep_only_the_year_date_with_month_reaches_csl_issued(tmp_path):
    item = _item(tmp_path, "@article{a, title = {T}, date = {2019-06}}\n")
    assert item["issued"] == {"date-parts": [[2019, 6]]}


def test_dates_keep_only_the_year_ranges_are_kept(tmp_path):
    item = _item(tmp_path, "@inproceedings{a, title = {T}, date = {2019-06-01/2019-06-05}}\n")
    assert item["issued"] == {"date-parts": [[2019, 6, 1], [2019, 6, 5]]}


def test_month_jul_never_reaches_csl_issued(tmp_path):
    item = _item(tmp_path, "@article{a, title = {T}, year = 1999, month = jul}\n")
    assert item["issued"] == {"date-parts": [[1999, 7]]}


def test_urldate_goes_to_custom_instead_of_accessed(tmp_path):
    item = _item(tmp_path, "@online{a, title = {T}, urldate = {2020-01-02}}\n")
    assert item["accessed"] == {"date-parts": [[2020, 1, 2]]}
    assert "urldate" not in item.get("custom", {})


def test_biblatex_month_is_written_as_a_number(tmp_path):
    [record] = _records(tmp_path, "@article{a, title = {T}, year = 1999, month = jul}\n")
    assert bibtex.entry(record, dialect="biblatex")["month"] == "7"


def test_csl_input_drops_editor_translator_number_accessed_and_date_parts(tmp_path):
    item = {
        "id": "r1",
        "type": "report",
        "title": "T",
        "editor": [{"family": "Doe", "given": "Jane"}],
        "translator": [{"family": "Roe", "given": "Rick"}],
        "number": "TR-7",
        "collection-number": "12",
        "accessed": {"date-parts": [["2021", "3", "4"]]},
        "issued": {"date-parts": [[2020, 5, 17]]},
    }
    out = _item(tmp_path, json.dumps([item]), "refs.json")
    assert out["editor"] == [{"family": "Doe", "given": "Jane"}]
    assert out["translator"] == [{"family": "Roe", "given": "Rick"}]
    assert out["number"] == "TR-7"
    assert out["accessed"] == {"date-parts": [[2021, 3, 4]]}
    assert out["issued"] == {"date-parts": [[2020, 5, 17]]}
    assert out["collection-number"] == "12"


def test_a_csl_item_with_an_empty_type_rejects_the_whole_file(tmp_path):
    items = [{"id": "a", "type": "", "title": "A"}, {"id": "b", "type": "book", "title": "B"}]
    records = _records(tmp_path, json.dumps(items), "refs.json")
    assert sorted(r.key for r in records) == ["a", "b"]


def test_and_others_becomes_an_author_named_others(tmp_path):
    [record] = _records(tmp_path, "@book{a, title = {T}, author = {Doe, Jane and others}}\n")
    assert csljson.item(record)["author"] == [{"family": "Doe", "given": "Jane"}]
    assert bibtex.entry(record, dialect="bibtex")["author"] == "Doe, Jane and others"


def test_dezso_nagy_becomes_o_nagy_with_a_bare_combining_accent(tmp_path):
    item = _item(tmp_path, "@book{a, title = {T}, author = {Dezs\\H o Nagy}}\n")
    assert item["author"] == [{"family": "Nagy", "given": "Dezső"}]


def test_ford_jr_henry_loses_its_suffix(tmp_path):
    [record] = _records(tmp_path, "@book{a, title = {T}, author = {Ford, Jr., Henry}}\n")
    assert csljson.item(record)["author"] == [{"family": "Ford", "given": "Henry", "suffix": "Jr."}]
    assert bibtex.entry(record, dialect="bibtex")["author"] == "Ford, Jr., Henry"


def test_a_csl_particle_and_suffix_collapse_into_a_braced_family_name(tmp_path):
    name = {"family": "Gogh", "given": "Vincent", "non-dropping-particle": "van", "suffix": "Jr."}
    item = {"id": "a", "type": "book", "title": "T", "author": [name]}
    [record] = _records(tmp_path, json.dumps([item]), "refs.json")
    assert bibtex.entry(record, dialect="biblatex")["author"] == "van Gogh, Jr., Vincent"


def test_editor_with_a_braced_organisation_stays_one_name(tmp_path):
    [record] = _records(tmp_path, "@book{a, title = {T}, editor = {{Barnes and Noble}}}\n")
    assert csljson.item(record)["editor"] == [{"literal": "Barnes and Noble"}]
    assert bibtex.entry(record, dialect="bibtex")["editor"] == "{Barnes and Noble}"


def test_noopsort_year_is_read_as_the_printed_year(tmp_path):
    [record] = _records(tmp_path, "@book{a, title = {T}, year = {{\\noopsort{1973c}}1981}}\n")
    assert record.year == 1981


def test_csl_page_ranges_use_a_hyphen(tmp_path):
    item = _item(tmp_path, "@article{a, title = {T}, pages = {10--119}}\n")
    assert item["page"] == "10-119"


def _pandoc_item(tmp_path, text):
    """pandoc's reading of a .bib (the independent reference)."""
    path = tmp_path / "pandoc.bib"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run(
        ["pandoc", "-f", "bibtex", "-t", "csljson", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)[0]


def _kindless(name):
    """A CSL name with its particle, whatever its kind (pandoc calls BibTeX's von part a
    dropping particle, citeproc-js and bib a non-dropping one: docs/formats.md)."""
    found = name.get("dropping-particle") or name.get("non-dropping-particle") or ""
    rest = {k: v for k, v in name.items() if not k.endswith("particle")}
    return {**rest, "particle": found}


VON_NAMES = (
    "von Soden, W. and Ludwig van Beethoven and de la Fontaine, Jean and "
    "Eickstedt, Klaus-Valtin von and de V. Smit, G. and von Neumann, Jr, John"
)


def test_a_bibtex_von_part_stayed_in_the_csl_family_name(tmp_path, require):
    require("pandoc")
    text = "@book{a, title = {T}, author = {" + VON_NAMES + "}}\n"
    ours = _item(tmp_path, text)["author"]
    assert [_kindless(n) for n in ours] == [
        _kindless(n) for n in _pandoc_item(tmp_path, text)["author"]
    ]
    assert ours[0] == {"family": "Soden", "given": "W.", "non-dropping-particle": "von"}
    assert ours[3] == {"family": "Eickstedt", "given": "Klaus-Valtin", "dropping-particle": "von"}


def test_bibtex_output_of_csl_names_with_particles_keeps_them_for_pandoc(tmp_path, require):
    """BibTeX has one kind of particle (its von part); pandoc reads both back as particles."""
    require("pandoc")
    authors = [
        {"family": "Gogh", "given": "Vincent", "non-dropping-particle": "van"},
        {"family": "Fontaine", "given": "Jean", "dropping-particle": "de la"},
    ]
    item = {"id": "a", "type": "book", "title": "T", "author": authors}
    [record] = _records(tmp_path, json.dumps([item]), "refs.json")
    written = bibtex.entry(record, dialect="bibtex")["author"]
    back = _pandoc_item(tmp_path, "@book{a, title = {T}, author = {" + written + "}}\n")["author"]
    assert [_kindless(n) for n in back] == [_kindless(n) for n in authors]


def test_a_year_range_was_cut_to_its_first_year(tmp_path, require):
    """biber keeps `year = {1965--1981}` as the text it prints (the reference: its .bbl);
    the CSL for that span is a date range, which pandoc writes for `1965/1981`."""
    require("pandoc")
    item = _item(tmp_path, "@book{a, title = {T}, year = {1965--1981}}\n")
    pandoc = _pandoc_item(tmp_path, "@book{a, title = {T}, year = {1965/1981}}\n")["issued"]
    assert item["issued"] == pandoc == {"date-parts": [[1965], [1981]]}
    [record] = _records(tmp_path, "@book{a, title = {T}, year = {1965--1981}}\n")
    assert bibtex.entry(record, dialect="biblatex")["date"] == "1965/1981"
    assert _item(tmp_path, "@book{a, title = {T}, year = {1865--1865}}\n")["issued"] == {
        "date-parts": [[1865]]
    }


def test_lower_case_initials_are_no_particle(tmp_path, require):
    """BibTeX reads `cummings, e. e.` as First `e. e.`; pandoc too (no particle)."""
    require("pandoc")
    text = "@book{a, title = {T}, author = {cummings, e. e.}}\n"
    assert _item(tmp_path, text)["author"] == _pandoc_item(tmp_path, text)["author"]
