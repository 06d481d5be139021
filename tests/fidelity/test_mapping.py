"""Issue 18, points 5 and 6: every CSL variable has a place in every format, and entry types
are mapped both ways by the table in bib/data/csl_biblatex.json.

References: the official CSL-JSON schema (schema/csl-data.json) lists the variables; pandoc's
own reading of biblatex types (`pandoc -f biblatex -t csljson`) and biber's data model
(`biber --tool --validate-datamodel`) judge the types.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bib import convert as engine
from bib import types, variables, writers
from bib.convert import Report
from bib.record import EntryType, Record

SUFFIX = {"csl-json": ".json", "biblatex": ".biblatex.bib", "bibtex": ".bib"}
LOST_IN_BIBTEX = {"event-title"}
"""Classic BibTeX output has no `eventtitle` (the agreed BibTeX field set, tests/writers);
BibLaTeX and CSL-JSON keep it (docs/formats.md)."""


def _records(path: Path, report: Report | None = None) -> list[Record]:
    """The records of `path` as read, through no extraction stage."""
    return engine.run([path], engine.ConvertOptions(stages=(), report=report)).records


def _every_variable(csl_type: str) -> dict[str, Any]:
    """One item with every variable of the CSL schema, each with a value of its kind."""
    item: dict[str, Any] = {"id": "everything", "type": csl_type}
    for name, kind in variables.kinds().items():
        if name in ("keyword", "journalAbbreviation", "shortTitle"):
            continue  # keyword: our tags; the other two are Zotero's aliases of CSL variables
        if kind == "name":
            item[name] = [{"family": f"Fam-{name}", "given": "Given"}]
        elif kind == "date":
            item[name] = {"date-parts": [[2001, 2, 3]]}
        else:
            item[name] = f"value of {name}"
    item |= {"language": "en-GB", "page": "11-12", "volume": "3", "issue": "4", "number": "5"}
    item |= {"DOI": "10.1000/xyz-123", "URL": "https://example.org/paper"}
    return item


def _through(tmp_path: Path, item: dict[str, Any], fmt: str) -> dict[str, Any]:
    """The item read, written in `fmt`, read back and written as CSL-JSON."""
    source = tmp_path / "in.json"
    source.write_text(json.dumps([item]), encoding="utf-8")
    records = _records(source)
    middle = tmp_path / f"middle{SUFFIX[fmt]}"
    middle.write_text(writers.render(records, fmt), encoding="utf-8")
    back = _records(middle)
    [out] = json.loads(writers.render(back, "csl-json"))
    return out


CSL_TYPES = (
    "book",
    "article-journal",
    "chapter",
    "paper-conference",
    "thesis",
    "report",
    "webpage",
    "software",
    "dataset",
    "post-weblog",
    "review",
    "periodical",
)


@pytest.mark.parametrize("csl_type", CSL_TYPES)
@pytest.mark.parametrize("fmt", ["csl-json", "biblatex", "bibtex"])
def test_every_csl_variable_comes_back_through_each_format(tmp_path, fmt, csl_type):
    item = _every_variable(csl_type)
    out = _through(tmp_path, item, fmt)
    lost = LOST_IN_BIBTEX if fmt == "bibtex" else set()
    changed = {name for name, value in item.items() if out.get(name) != value}
    assert changed == lost


def test_the_issue_variables_have_their_biblatex_fields(tmp_path):
    """The mapping of issue 18, point 5, after biblatex-csl-converter and citeproc-js."""
    item = {
        "id": "k",
        "type": "book",
        "title": "T",
        "editor": [{"family": "Ed", "given": "A"}],
        "translator": [{"family": "Tr", "given": "B"}],
        "container-author": [{"family": "Ca", "given": "C"}],
        "number": "TR-7",
        "volume": "2",
        "edition": "3",
        "ISBN": "978-3-16-148410-0",
        "ISSN": "1234-5678",
        "accessed": {"date-parts": [[2021, 3, 4]]},
        "original-date": {"date-parts": [[1850]]},
        "publisher-place": "Berlin",
        "genre": "Habilitation",
        "status": "forthcoming",
        "language": "de-DE",
        "page": "1-10",
    }
    source = tmp_path / "in.json"
    source.write_text(json.dumps([item]), encoding="utf-8")
    text = writers.render(_records(source), "biblatex")
    expected = {
        "editor": "Ed, A",
        "translator": "Tr, B",
        "bookauthor": "Ca, C",
        "number": "TR-7",
        "volume": "2",
        "edition": "3",
        "isbn": "978-3-16-148410-0",
        "issn": "1234-5678",
        "urldate": "2021-03-04",
        "origdate": "1850",
        "location": "Berlin",
        "type": "Habilitation",
        "pubstate": "forthcoming",
        "language": "de-DE",
        "pages": "1-10",
    }
    found = dict(re.findall(r"^  (\w+) = \{(.*)\},?$", text, flags=re.MULTILINE))
    assert {name: found.get(name) for name in expected} == expected


def test_an_articles_number_and_issue_are_its_eid_and_number(tmp_path):
    item = {"id": "k", "type": "article-journal", "title": "T", "number": "e17", "issue": "4"}
    source = tmp_path / "in.json"
    source.write_text(json.dumps([item]), encoding="utf-8")
    text = writers.render(_records(source), "biblatex")
    assert "eid = {e17}" in text and "number = {4}" in text


def _pandoc(path: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["pandoc", "-f", "biblatex", "-t", "csljson", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


ISSUES = (
    "@review{rev, author = {Taylor, Rabun}, number = {3}, volume = {67},\n"
    "  journaltitle = {Journal of Architectural Historians}, year = {2008}}\n"
    "@periodical{jcg, title = {Computers and Graphics}, year = 2011,\n"
    "  issuetitle = {Semantic {3D} Media and Content}, volume = 35, number = 4}\n"
)
"""biblatex-examples.bib's `jcg` and archaeologie-examples.bib's `Taylor2008`, cut down."""


@pytest.mark.parametrize(
    ("defect", "key", "variables"),
    [
        ("a review's number reached no CSL variable", "rev", ("issue", "volume")),
        (
            "a periodical's issuetitle reached no CSL variable",
            "jcg",
            ("title", "container-title", "issue"),
        ),
    ],
)
def test_the_issue_of_a_review_or_periodical_is_as_pandoc_reads_it(
    tmp_path, require, defect, key, variables
):
    """biblatex's `number` of a review or periodical is the journal issue (its data model;
    biblatex-csl-converter maps an article's so); a periodical's issue with a title is the
    item, in the periodical (CSL has no issue title)."""
    require("pandoc")
    source = tmp_path / "in.bib"
    source.write_text(ISSUES, encoding="utf-8")
    theirs = {item["id"]: item for item in _pandoc(source)}[key]
    ours = {item["id"]: item for item in json.loads(writers.render(_records(source), "csl-json"))}
    # pandoc makes English titles sentence case (CSL's advice): compared case-blind
    assert {v: str(ours[key].get(v)).casefold() for v in variables} == {
        v: str(theirs[v]).casefold() for v in variables
    }


def test_a_csl_item_with_an_empty_type_is_a_warning_not_a_rejected_file(tmp_path):
    source = tmp_path / "zotero.json"
    source.write_text(json.dumps([{"id": "a", "type": "", "title": "T"}]), encoding="utf-8")
    warnings: list[str] = []
    [record] = _records(source, warnings.append)
    assert record.entry_type is EntryType.MISC
    assert warnings == [f"warning: {source}:1: item 'a' has an empty type; read as 'document'"]


# --- types --------------------------------------------------------------------------------

DELIBERATE_TYPES = {
    "misc": "document",  # pandoc writes "", which the CSL schema does not allow
    "periodical": "periodical",  # CSL 1.0.2 has periodical; pandoc says article-journal
    "software": "software",  # CSL 1.0.2 has software; pandoc says book
    "standard": "standard",  # CSL 1.0.2 has standard; pandoc says legislation
    "performance": "performance",  # CSL 1.0.2 has performance; pandoc says speech
}
"""Where our CSL type differs from pandoc's reading: CSL 1.0.2 has the type (docs/formats.md)."""


@pytest.fixture(scope="module")
def pandoc_types(require, tmp_path_factory) -> dict[str, str]:
    require("pandoc")
    names = [t.value for t in EntryType if t is not EntryType.PREPRINT]
    path = tmp_path_factory.mktemp("types") / "types.bib"
    path.write_text(
        "".join(f"@{name}{{k-{name}, title={{T}}, date={{2001}}}}\n" for name in names),
        encoding="utf-8",
    )
    done = subprocess.run(
        ["pandoc", "-f", "biblatex", "-t", "csljson", str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return {item["id"][2:]: item["type"] for item in json.loads(done.stdout)}


def test_biblatex_types_are_the_csl_types_pandoc_reads(pandoc_types):
    ours = {name: types.csl_type(EntryType(name)) for name in pandoc_types}
    expected = pandoc_types | DELIBERATE_TYPES
    assert ours == expected


@pytest.mark.parametrize("fmt", ["biblatex", "bibtex", "csl-json"])
def test_every_csl_type_comes_back_through_each_format(tmp_path, fmt):
    kinds = [name for name in types.tables().csl]
    items = [{"id": f"k-{kind}", "type": kind, "title": "T"} for kind in kinds]
    source = tmp_path / "in.json"
    source.write_text(json.dumps(items), encoding="utf-8")
    middle = tmp_path / f"middle{SUFFIX[fmt]}"
    middle.write_text(writers.render(_records(source), fmt), encoding="utf-8")
    back = json.loads(writers.render(_records(middle), "csl-json"))
    assert {item["id"]: item["type"] for item in back} == {f"k-{kind}": kind for kind in kinds}


def test_every_biblatex_type_written_is_in_bibers_data_model(require, tmp_path):
    require("biber")
    items = [{"id": f"k-{kind}", "type": kind, "title": "T"} for kind in types.tables().csl]
    source = tmp_path / "in.json"
    source.write_text(json.dumps(items), encoding="utf-8")
    out = tmp_path / "out.bib"
    out.write_text(
        writers.render(_records(source), "biblatex"),
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            "biber",
            "--tool",
            "--validate-datamodel",
            "--output-file",
            str(tmp_path / "t.bib"),
            "out.bib",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if "Invalid entry type" in line] == []


@pytest.mark.parametrize(
    ("source_type", "bibtex_type", "kept"),
    [
        ("phdthesis", "phdthesis", {}),
        ("mastersthesis", "mastersthesis", {}),
        ("techreport", "techreport", {}),
        ("online", "misc", {"entrytype": "online"}),
        ("software", "misc", {"entrytype": "software"}),
        ("manual", "manual", {}),
        ("booklet", "booklet", {}),
    ],
)
def test_bibtex_fallback_types_read_back_as_their_type(tmp_path, source_type, bibtex_type, kept):
    source = tmp_path / "in.biblatex.bib"
    source.write_text(f"@{source_type}{{k, title={{T}}, year={{2001}}}}\n", encoding="utf-8")
    [record] = _records(source)
    text = writers.render([record], "bibtex")
    assert text.startswith(f"@{bibtex_type}{{k,")
    for name, value in kept.items():
        assert f"{name} = {{{value}}}" in text
    again = tmp_path / "again.bib"
    again.write_text(text, encoding="utf-8")
    [back] = _records(again)
    assert (back.entry_type, back.fields) == (record.entry_type, record.fields)


def test_thesis_with_institution_loses_school(tmp_path):
    """Issue 18 (Why): `@thesis` with `institution` lost `school` in BibTeX output."""
    source = tmp_path / "in.bib"
    source.write_text(
        "@thesis{k, author={Doe, Jane}, title={T}, institution={MIT}, type={phdthesis},"
        " year={2001}}\n",
        encoding="utf-8",
    )
    text = writers.render(_records(source), "bibtex")
    assert text.startswith("@phdthesis{k,") and "school = {MIT}" in text
    assert "type = " not in text  # implied by @phdthesis


@pytest.mark.parametrize("bibtype", ["manual", "booklet", "online", "software", "dataset"])
def test_many_types_collapse_to_csl_document(tmp_path, bibtype):
    """Issue 18 (Why): `@manual`, `@booklet`, `@online`, `@software`, `@dataset` became CSL
    `document`."""
    source = tmp_path / "in.bib"
    source.write_text(f"@{bibtype}{{k, title={{T}}, year={{2001}}}}\n", encoding="utf-8")
    [item] = json.loads(writers.render(_records(source), "csl-json"))
    assert item["type"] == types.csl_type(EntryType(bibtype)) != "document"


@pytest.mark.parametrize(
    ("series", "printed"),
    [("newseries", "new series"), ("oldseries", "old series"), ("3", "3rd series")],
)
def test_a_journals_series_key_was_written_as_the_key(
    tmp_path, require, unavailable, series, printed
):
    """An article's `series = {newseries}` or `3` reached CSL as "newseries", "3": biblatex
    prints a bibstring's text and an integer as an ordinal with "series" (biblatex.def's
    `series` format for articles; english.lbx's strings, kpsewhich'd), as pandoc does."""
    require("kpsewhich")
    found = subprocess.run(["kpsewhich", "english.lbx"], capture_output=True, text=True).stdout
    if not found.strip():
        unavailable("biblatex's english.lbx is not installed")
    strings = Path(found.strip()).read_text(encoding="utf-8")
    if not series.isdigit():
        assert re.search(rf"^\s*{series}\s*=\s*\{{\{{{printed}\}}", strings, re.MULTILINE)
    source = tmp_path / "in.bib"
    source.write_text(
        f"@article{{a, author = {{Doe, J}}, title = {{T}}, journaltitle = {{J}},"
        f" series = {{{series}}}, volume = 2, year = 1990}}"
        "\n@book{b, title = {T}, series = {newseries}, year = 1990}\n",
        encoding="utf-8",
    )
    items = {i["id"]: i for i in json.loads(writers.render(_records(source), "csl-json"))}
    assert (items["a"]["collection-title"], items["b"]["collection-title"]) == (
        printed,
        "newseries",
    )
