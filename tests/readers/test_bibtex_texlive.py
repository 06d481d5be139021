"""Every `.bib` that TeX Live ships (written by others: Beebe, biblatex, KOMA-Script...):
each entry read, keys verbatim and in order, as pybtex (a port of BibTeX's scanner) reads
them."""

from __future__ import annotations

import pybtex.errors
import pytest
from pybtex.database import parse_string

from bib.readers.bibtex_syntax import parse
from bib.testing import texlive_bibs


@pytest.mark.slow
def test_every_texlive_entry_is_read_with_its_key(require):
    require("kpsewhich")
    files = texlive_bibs()
    if not files:
        pytest.skip("no .bib files under TEXMFDIST (install texlive-bibtex-extra)")
    pybtex.errors.set_strict_mode(False)
    compared = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # Latin-1 files: refused by our reader with a line, by design
        ours = [entry.key for entry in parse(text, str(path)).entries]
        assert ours == list(parse_string(text, "bibtex").entries.keys()), path
        compared += 1
    assert compared >= len(files) // 2
