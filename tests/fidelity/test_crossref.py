"""Issue 18, point 8: crossref and xdata resolved as biber resolves them for CSL-JSON (and
Zotero, which maps the same records), kept as `crossref` in BibTeX output.

References: biblatex's manual, appendix B (default inheritance: `title` -> `booktitle` for
an @inproceedings of a @proceedings, `title` -> `maintitle` for a part of a multi-volume
work, the fields never inherited); BibTeX's own xampl.bib read by pandoc and by bibtex.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bib import convert as engine
from bib import crossref, writers
from bib.record import EntryType, Record

SUFFIXES = {"bibtex": ".bib", "biblatex": ".biblatex.bib", "csl-json": ".json"}
XAMPL_CHILDREN = ("inbook-crossref", "incollection-crossref", "inproceedings-crossref")


def _items(path: Path) -> dict[str, dict]:
    records = engine.run([path], engine.ConvertOptions(stages=())).records
    return {item["id"]: item for item in json.loads(writers.render(records, "csl-json"))}


def _write(tmp_path: Path, text: str, name: str = "refs.bib") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def xampl(require, unavailable) -> Path:
    require("kpsewhich")
    found = subprocess.run(
        ["kpsewhich", "xampl.bib"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if not found:
        unavailable("BibTeX's xampl.bib is not installed (texlive-bibtex-extra)")
    return Path(found)


def test_crossref_inheritance_is_not_resolved_for_csl(require, xampl):
    """Issue 18 (Why): a crossref child lost its parent's fields in CSL-JSON. Reference:
    pandoc's reading of the same children (booktitle, editor, publisher, year)."""
    require("pandoc")
    done = subprocess.run(
        ["pandoc", "-f", "bibtex", "-t", "csljson", str(xampl)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    theirs = {item["id"]: item for item in json.loads(done.stdout)}
    ours = _items(xampl)
    # not `publisher`: xampl's children say `organization = ""`, which pandoc takes as given
    # and biber, which drops empty fields, does not
    compared = ("editor", "issued", "publisher-place", "volume")
    for key in XAMPL_CHILDREN:
        expected = {name: theirs[key].get(name) for name in compared}
        assert {name: ours[key].get(name) for name in compared} == expected, key
    assert "container-title" in ours["inproceedings-crossref"]
    series = ours["inbook-crossref"]["collection-title"].casefold()  # pandoc: sentence case
    assert series == theirs["inbook-crossref"]["collection-title"].casefold()


def test_crossref_is_kept_and_parents_come_after_children_in_bibtex(require, xampl, tmp_path):
    """BibTeX finds a parent only after its children: with parents sorted first it said
    "a bad cross reference" (real bibtex on our output of xampl.bib)."""
    require("bibtex")
    out = _write(tmp_path, writers.render(engine.run([xampl]).records, "bibtex"), "out.bib")
    text = out.read_text(encoding="utf-8")
    assert "crossref = {whole-proceedings}" in text
    assert text.index("{inproceedings-crossref,") < text.index("{whole-proceedings,")
    (tmp_path / "doc.aux").write_text(
        "\\citation{*}\n\\bibdata{out}\n\\bibstyle{plain}\n", encoding="utf-8"
    )
    subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, timeout=120, check=False)
    log = (tmp_path / "doc.blg").read_text(encoding="utf-8", errors="replace")
    assert "bad cross reference" not in log
    assert "I didn't find a database entry" not in log


def test_convert_writes_parents_after_children_in_bib_outputs_only(require, tmp_path):
    """The engine's sinks keep BibTeX's rule (`Writer.parents_last`): a parent whose key
    sorts first is written after its child, and real bibtex finds it; CSL-JSON, which has
    no such rule, stays in key order (two orders: two passes over the spool)."""
    require("bibtex")
    source = _write(
        tmp_path,
        "@proceedings{a-proc, editor={Ed, Itor}, title={Proceedings of X}, year={1999},"
        " publisher={Pub}}\n"
        "@inproceedings{z-paper, author={Doe, Jane}, title={A Paper}, crossref={a-proc}}\n",
        "in.bib",
    )
    outputs = {fmt: tmp_path / f"out{suffix}" for fmt, suffix in SUFFIXES.items()}
    sinks = [engine.FileSink(path, fmt) for fmt, path in outputs.items()]
    engine.convert([source], sinks, engine.ConvertOptions(stages=()))
    for fmt in ("bibtex", "biblatex"):
        text = outputs[fmt].read_text(encoding="utf-8")
        assert text.index("{z-paper,") < text.index("{a-proc,"), fmt
    items = json.loads(outputs["csl-json"].read_text(encoding="utf-8"))
    assert [item["id"] for item in items] == ["a-proc", "z-paper"]
    (tmp_path / "doc.aux").write_text(
        "\\citation{z-paper}\n\\bibdata{out}\n\\bibstyle{plain}\n", encoding="utf-8"
    )
    subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, timeout=120, check=False)
    log = (tmp_path / "doc.blg").read_text(encoding="utf-8", errors="replace")
    assert "bad cross reference" not in log
    assert "Proceedings of X" in (tmp_path / "doc.bbl").read_text(encoding="utf-8")


def test_proceedings_title_becomes_the_booktitle_of_its_papers(tmp_path):
    path = _write(
        tmp_path,
        "@inproceedings{paper, author={Doe, Jane}, title={A Paper}, crossref={proc}}\n"
        "@proceedings{proc, editor={Ed, Itor}, title={Proceedings of X}, subtitle={The Sub},"
        " year={1999}, publisher={Pub}, shorttitle={PX}, ids={old}}\n",
    )
    item = _items(path)["paper"]
    assert item["container-title"] == "Proceedings of X: The Sub"
    assert item["title"] == "A Paper"
    assert item["editor"] == [{"family": "Ed", "given": "Itor"}]
    assert item["issued"] == {"date-parts": [[1999]]}
    assert "title-short" not in item  # shorttitle is not inherited into a book title
    assert "ids" not in item.get("custom", {})  # never inherited (biblatex manual, B.1)


def test_a_part_of_a_multivolume_work_gets_its_maintitle():
    parent = Record(id="p", key="mv", entry_type=EntryType.MVBOOK, title="Collected Works")
    child = Record(id="c", key="v1", entry_type=EntryType.BOOK, title="Volume One")
    inherited = crossref.inherit(child, parent)
    assert inherited.title == "Volume One"
    assert dict(inherited.fields)["maintitle"] == "Collected Works"


def test_xdata_gives_its_fields_as_they_are(tmp_path):
    path = _write(
        tmp_path,
        "@xdata{pubinfo, publisher={Pub}, location={Berlin}}\n"
        "@book{b, author={Doe, Jane}, title={T}, year={2000}, xdata={pubinfo}}\n",
    )
    item = _items(path)["b"]
    assert (item["publisher"], item["publisher-place"]) == ("Pub", "Berlin")


def test_a_child_whose_parent_is_missing_gets_a_warning(tmp_path):
    path = _write(
        tmp_path, "@inproceedings{c, author={Doe, Jane}, title={T}, crossref={nowhere}}\n"
    )
    warnings: list[str] = []
    [record] = engine.run([path], engine.ConvertOptions(stages=(), report=warnings.append)).records
    assert record.key == "c"
    assert warnings == [
        f"warning: {path}:1: entry 'c': crossref 'nowhere' is not an entry of the file"
    ]


def test_cli_reports_the_missing_parent_and_converts(bib_process, tmp_path):
    path = _write(tmp_path, "@book{c, author={Doe, Jane}, title={T}, crossref={nowhere}}\n")
    done = bib_process("convert", path, "-o", tmp_path / "out.json")
    assert done.returncode == 0
    assert "crossref 'nowhere' is not an entry of the file" in done.stderr
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))[0]["id"] == "c"
