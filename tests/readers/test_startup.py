"""Reading a `.bib` loads what reading needs: not the writers, jsonschema (only CSL-JSON
input and a refused item use it), bibtexparser or pyparsing (names are split by
`names.name_parts`). Those imports were a third of the start-up of reading a `.bib`."""

from __future__ import annotations

from tests.helpers import modules_after

HEAVY = ("jsonschema", "bibtexparser", "pyparsing")


def test_import_of_the_bibtex_reader_loads_no_heavy_module() -> None:
    loaded = modules_after("import bib.readers.bibtex")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_import_of_the_bibtex_reader_loads_no_writer() -> None:
    loaded = modules_after("import bib.readers.bibtex")
    assert not {name for name in loaded if name.startswith("bib.writers")}


def test_reading_a_bib_file_loads_no_heavy_module(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "refs.bib"
    path.write_text(
        '@article{a, author = {Ludwig van Beethoven and {\\"O}z, J.}, title = {T}, year = 2000}\n',
        encoding="utf-8",
    )
    loaded = modules_after(
        f"from bib.readers.bibtex import read\nlist(read(open({str(path)!r}, 'rb').read(), 'x'))"
    )
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
