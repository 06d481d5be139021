"""Issue 18, point 3, in the library: what a `.bib` input wrote (`Record.latex`: each field's
LaTeX, the `@string`s it references, the file's `@preamble`s) is stored with the record, so
`bib add` then `bib export` gives back what `bib convert` gives (docs/decisions/latex-source.md).

The reference is pybtex, an independent BibTeX parser: it reads `bib convert`'s output and
the library's export of the same file, and every field must say the same thing.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest

from annotations import migrate, open_store
from annotations.latex_source import pruned, with_file_preambles
from annotations.records import assign_keys
from annotations.sqlite import connect
from bib import convert as engine
from bib import writers
from bib.cli.library import render_entries
from bib.testing import texlive_bibs
from tests.helpers import pybtex_fields

pybtex_database = pytest.importorskip("pybtex.database")
pybtex_errors = pytest.importorskip("pybtex.errors")

ROOT = Path(__file__).resolve().parents[2]
PREVIOUS = 30
"""The schema before the library kept the LaTeX (0031): the version a user upgrades from."""

THESIS = r"""@preamble{"\providecommand{\noopsort}[1]{}"}
@string{jacm = "Journal of the {ACM}"}
@string{jacm12 = jacm # " 12"}

@article{knuth1974,
  author = {Donald E. Knuth and {\noopsort{a}}{The {NASA} Team}},
  title = {Structured Programming with {\tt go to} Statements in {NASA}},
  journal = jacm12,
  year = 1974,
  volume = 6,
  pages = {261--301},
}

@book{lamport1994,
  author = {Leslie Lamport},
  title = {{\LaTeX}: {A} Document Preparation System},
  publisher = {Addison-Wesley},
  year = 1994,
  note = {Second edition, \copyright{} 1994},
}
"""
NOT_BIBLIOGRAPHIES = frozenset(
    {"amsj.bib", "archaeologie-lstlocations.bib", "archaeologie-lstpublishers.bib"}
)
"""Files of @string definitions only: nothing to add (`bib convert` refuses them too)."""
LATIN1 = frozenset({"jbtest.bib"})
"""Refused with one error line by `bib convert` and `bib add` alike (tests/fidelity)."""


def _converted(path: Path, fmt: str) -> str:
    return writers.render(engine.run([path]).records, fmt)


@pytest.fixture
def thesis(tmp_path: Path) -> Path:
    path = tmp_path / "thesis.bib"
    path.write_text(THESIS, encoding="utf-8")
    return path


def _export(cli, *args: object, library: object = None) -> str:
    chosen = () if library is None else ("--library", library)
    result = cli(*chosen, "export", *args)
    assert result.exit_code == 0, result.stderr
    return str(result.stdout)


@pytest.mark.parametrize("fmt", ["bibtex", "biblatex"])
def test_library_export_loses_the_inputs_latex(cli, thesis: Path, fmt: str) -> None:
    """The store kept decoded records only: `{\\tt go to}` came back as `go to`, `{NASA}`
    unprotected, `jacm12` expanded, and the `@preamble` was gone."""
    assert cli("add", thesis).exit_code == 0
    exported = _export(cli, "-f", fmt)
    for written in (
        r"@preamble{{\providecommand{\noopsort}[1]{}}}",
        '@string{jacm12 = jacm # " 12"}',
        r"{Structured Programming with {\tt go to} Statements in {NASA}}",
        r"{{\LaTeX}: {A} Document Preparation System}",
    ):
        assert written in exported
    assert pybtex_fields(exported) == pybtex_fields(_converted(thesis, fmt))


def test_adding_the_same_bib_again_reports_every_record_unchanged(cli, thesis: Path) -> None:
    assert cli("add", thesis).exit_code == 0
    report = json.loads(cli("add", "--json", thesis).stdout)
    assert (report["new"], report["updated"]) == ([], [])
    assert sorted(report["unchanged"]) == ["knuth1974", "lamport1994"]


@pytest.mark.parametrize("fmt", ["bibtex", "biblatex"])
def test_our_export_of_a_bib_added_back_reports_every_record_unchanged(
    cli, thesis: Path, tmp_path: Path, fmt: str
) -> None:
    assert cli("add", thesis).exit_code == 0
    out = tmp_path / "out.bib"
    assert cli("export", "-f", fmt, "-o", out).exit_code == 0
    report = json.loads(cli("add", "--json", out).stdout)
    assert (report["new"], report["updated"]) == ([], [])


def test_other_latex_for_the_same_values_is_an_update(cli, thesis: Path, tmp_path: Path) -> None:
    assert cli("add", thesis).exit_code == 0
    other = tmp_path / "other.bib"
    other.write_text(THESIS.replace(r"{\LaTeX}: {A}", r"{{\LaTeX}: {A}}"), encoding="utf-8")
    report = json.loads(cli("add", "--json", other).stdout)
    assert report["updated"] == ["lamport1994"]
    assert r"{{{\LaTeX}: {A}}" in _export(cli)


def test_a_changed_value_drops_its_latex_and_the_others_keep_theirs(cli, thesis: Path) -> None:
    assert cli("add", thesis).exit_code == 0
    assert cli("set", "knuth1974", "title=Structured Programming Revisited").exit_code == 0
    exported = _export(cli, "-f", "bibtex")
    assert "{\\tt go to}" not in exported
    assert "title = {Structured Programming Revisited}" in exported
    assert "journal = jacm12" in exported
    assert cli("revert", "knuth1974", "1").exit_code == 0
    assert r"{Structured Programming with {\tt go to} Statements in {NASA}}" in _export(cli)


def test_a_preamble_goes_with_every_record_of_its_file(cli, thesis: Path) -> None:
    """The reader gives a file's `@preamble`s to its first record; an export of another of
    its records needs the macros too."""
    assert cli("add", thesis).exit_code == 0
    assert cli("tag", "lamport1994", "+book").exit_code == 0
    exported = _export(cli, "--tag", "book")
    assert exported.startswith(r"@preamble{{\providecommand{\noopsort}[1]{}}}")
    assert "@string" not in exported  # lamport1994 references none


def test_library_export_put_the_preambles_of_two_files_in_key_order(cli, tmp_path: Path) -> None:
    """The header named the `@preamble`s of the first record in key order first: xampl.bib's
    `\\newcommand{\\noopsort}` came after another file's, which defines it ("already
    defined"). They go in file order (path, then line), as BibTeX reads them."""
    for name, key, preamble in (
        ("a", "zz2020", r"\newcommand{\x}{1}"),
        ("b", "aa2020", r"\renewcommand{\x}{2}"),
    ):
        (tmp_path / f"{name}.bib").write_text(
            f'@preamble{{"{preamble}"}}\n@misc{{{key}, title = {{T{name}}}, year = 2020}}\n',
            encoding="utf-8",
        )
    assert cli("add", tmp_path / "b.bib", tmp_path / "a.bib").exit_code == 0
    assert _export(cli).startswith(
        "@preamble{{\\newcommand{\\x}{1}}}\n@preamble{{\\renewcommand{\\x}{2}}}\n"
    )


def test_strings_two_added_files_define_differently_are_written_expanded(
    cli, tmp_path: Path
) -> None:
    for name, journal in (("a", "Journal A"), ("b", "Journal B")):
        (tmp_path / f"{name}.bib").write_text(
            f'@string{{j = "{journal}"}}\n'
            f"@article{{{name}2020, title = {{T{name}}}, journal = j, year = 2020}}\n",
            encoding="utf-8",
        )
        assert cli("add", tmp_path / f"{name}.bib").exit_code == 0
    result = cli("export", "-f", "bibtex")
    assert "@string{j" not in result.stdout
    assert "journal = {Journal A}" in result.stdout and "journal = {Journal B}" in result.stdout
    assert "@string 'j' is defined differently" in result.stderr
    assert cli("tag", "a2020", "+mine").exit_code == 0
    alone = cli("export", "-f", "bibtex", "--tag", "mine")
    assert '@string{j = "Journal A"}' in alone.stdout and "journal = j," in alone.stdout
    assert alone.stderr == ""


def test_library_export_flattened_an_imported_annote(cli, tmp_path: Path) -> None:
    """An imported `annote` was written escaped from its decoded text, with or without notes
    of ours: `\\par` came out as `par`, `\\texttt{x}` as `x` (book.bib in TeX Live)."""
    path = tmp_path / "annotated.bib"
    path.write_text(
        "@book{b, title = {T}, year = 2000,\n"
        "  annote = {First \\texttt{annote} paragraph.\\par Second one.}}\n",
        encoding="utf-8",
    )
    assert cli("add", path).exit_code == 0
    written = r"First \texttt{annote} paragraph.\par Second one."
    assert f"annote = {{{written}}}" in _export(cli, "-f", "bibtex")
    assert cli("note", "add", "b", "My *own* note").exit_code == 0
    with_ours = pybtex_fields(_export(cli, "-f", "bibtex"))["b"]["annote"]
    assert with_ours.startswith(written) and with_ours.endswith(r"My \emph{own} note")


def test_a_library_copy_keeps_the_latex_both_ways(
    cli, library: Any, thesis: Path, tmp_path: Path
) -> None:
    """SQLite -> this backend -> SQLite: across backends when this one is PostgreSQL."""
    first, last = tmp_path / "first.sqlite", tmp_path / "last.sqlite"
    assert cli("--library", first, "add", thesis).exit_code == 0
    assert cli("library", "copy", first, library).exit_code == 0
    assert cli("library", "copy", library, last).exit_code == 0
    expected = _export(cli, library=first)
    assert r"{\tt go to}" in expected
    assert _export(cli) == expected
    assert _export(cli, library=last) == expected


# Upgrading a library made by the previous schema


def _previous_sqlite(path: Path) -> None:
    conn = connect(path, upto=PREVIOUS)
    assert migrate.user_version(conn) == PREVIOUS
    _fill_previous(conn.execute)
    conn.close()


def _previous_postgres(url: str) -> None:
    folder = ROOT / "annotations" / "pg_migrations"
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute(
            "CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied TEXT NOT NULL)"
        )
        conn.execute("CREATE TEMP TABLE migration_context (name TEXT PRIMARY KEY, value TEXT)")
        for migration in migrate.migrations(folder):
            if migration.number > PREVIOUS:
                continue
            conn.execute(migration.sql.encode())
            conn.execute(
                "INSERT INTO schema_migrations VALUES (%s, %s, 't')",
                (migration.number, migration.name),
            )
        _fill_previous(lambda sql, params=(): conn.execute(sql.replace("?", "%s"), params))


def _fill_previous(execute: Any) -> None:
    stamp = "2026-01-01T00:00:00.000Z"
    data = '{"id": "id-1", "key": "old2025", "title": "Old", "year": 2025}'
    execute(
        "INSERT INTO records (id, key, data, added, updated) VALUES ('id-1', 'old2025', ?, ?, ?)",
        (data, stamp, stamp),
    )
    execute(
        "INSERT INTO record_revisions (record_id, data, created, replaced, origin)"
        " VALUES ('id-1', ?, ?, ?, 'edit')",
        (data, stamp, stamp),
    )


def test_a_library_of_the_previous_schema_upgrades_and_then_keeps_latex(
    backend: str, library: Any, cli, thesis: Path
) -> None:
    if backend == "sqlite":
        _previous_sqlite(library)
    else:
        _previous_postgres(library)
    with open_store(library) as upgraded:
        [old] = upgraded.entries()
        assert (old.record.key, old.record.title, old.record.latex) == ("old2025", "Old", None)
        assert [v.record.title for v in upgraded.record_history("old2025")] == ["Old", "Old"]
    assert "title = {Old}" in _export(cli)
    assert cli("add", thesis).exit_code == 0
    assert r"{\tt go to}" in _export(cli)


@pytest.mark.sqlite_only
def test_the_upgrade_keeps_a_backup_of_the_previous_schema(library: Path) -> None:
    _previous_sqlite(library)
    open_store(library).close()
    saved = sqlite3.connect(f"{library}.schema-{PREVIOUS}.bak")
    columns = [row[1] for row in saved.execute("PRAGMA table_info(records)")]
    assert "latex" not in columns
    assert saved.execute("SELECT key FROM records").fetchall() == [("old2025",)]


# TeX Live's own .bib files


def _readable() -> list[Path]:
    return [p for p in texlive_bibs() if p.name not in NOT_BIBLIOGRAPHIES | LATIN1]


def _add(store: Any, records: list[Any]) -> Any:
    """What `bib add` does with the records of a file, without the tag stages (as the
    convert corpus tests)."""
    return store.upsert(assign_keys(store, with_file_preambles(records)))


@pytest.fixture(scope="module")
def texlive_library(tmp_path_factory: pytest.TempPathFactory, unavailable) -> list[Any]:
    files = _readable()
    if not files:
        unavailable("TeX Live's .bib files are not installed (texlive-bibtex-extra)")
    root = tmp_path_factory.mktemp("texlive-library")
    found = []
    for index, path in enumerate(files):
        try:
            records = engine.run([path], engine.ConvertOptions(stages=())).records
        except Exception as exc:  # a file of @strings only (archaeologie-lstabbrv.bib)
            if "no BibTeX entries" in str(exc):
                continue
            raise
        with open_store(root / f"{index}.sqlite") as store:
            _add(store, records)
            again = _add(store, records)
            entries = store.entries(full=True)
            found.append(
                {
                    "path": path,
                    "records": records,
                    "again": again,
                    "entries": entries,
                    "exports": {f: render_entries(entries, f) for f in ("bibtex", "biblatex")},
                }
            )
    return found


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["bibtex", "biblatex"])
def test_texlive_bibs_added_and_exported_read_as_their_conversion(texlive_library, fmt) -> None:
    differences = []
    compared = 0
    for item in texlive_library:
        ours = pybtex_fields(item["exports"][fmt])
        for key, fields in pybtex_fields(writers.render(item["records"], fmt)).items():
            compared += len(fields)
            if ours.get(key) != fields:
                differences.append((item["path"].name, key))
    assert compared > 10_000
    assert differences == []


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["bibtex", "biblatex"])
def test_texlive_bibs_added_and_exported_are_their_conversion_byte_for_byte(
    texlive_library, fmt
) -> None:
    for item in texlive_library:
        assert item["exports"][fmt] == writers.render(item["records"], fmt), item["path"].name


@pytest.mark.slow
def test_texlive_bibs_added_again_report_every_record_unchanged(texlive_library) -> None:
    for item in texlive_library:
        again = item["again"]
        assert (again.new, again.updated) == ([], []), item["path"].name
        assert len(again.unchanged) == len(item["entries"])


@pytest.mark.slow
def test_the_library_gives_back_each_records_latex_exactly(texlive_library) -> None:
    """What was stored is what a writer would use of what was read (`pruned`), decoded
    values, `@string`s and `@preamble`s included."""
    for item in texlive_library:
        read = with_file_preambles(item["records"])
        expected = {r.id: pruned(r) for r in read}
        assert {e.record.id: e.record.latex for e in item["entries"]} == expected
