"""`bib convert --jobs N` on a `.bib` read in parts by worker processes
(`bib.readers.bibtex_parts`): the same bytes, warnings and first error for every N."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from bib import parallel
from bib.readers import bibtex_parts

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="workers need fork here")

BIB = r"""@preamble{"\newcommand{\noopsort}[1]{}"}
@string{jn = {Journal of Parts}}
@book{whole, title = {The Whole Book}, author = {Ann Lee}, year = 2001, publisher = {P}}
@set{shared, xdata = {}}
@xdata{pub, publisher = {Shared Press}, location = {Paris}}
@inbook{chapter, crossref = {whole}, title = {A Chapter}, pages = {1--9}}
@article{one, title = {One}, author = {Bo Chan}, journal = jn, year = 2010, xdata = {pub}}
@string{jn = {Journal of Wholes}}
@article{two, title = {Two
@article{inner, title = {A line that starts with an entry, inside a value}}
}, author = {Cy Dee}, journal = jn, year = 2011}
@misc{cut, note =
@book{swallowed, title = {Read as a macro name}}
@comment(
@book{commented, title = {x}}
)
@article{One, title = {Repeated key}, author = {Ed Fox}, year = 2012}
@article{broken, title = {never closed
@article{three, title = {Three}, author = {Fay Gil}, year = 2013}
"""


@pytest.fixture
def tiny_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `.bib` read in parts of a line or two, in worker processes."""
    monkeypatch.setattr(bibtex_parts, "AFTER", 0)
    monkeypatch.setattr(bibtex_parts, "PART", 40)


def _convert(cli: Callable[..., Result], path: Path, out: Path, jobs: str, *more: str) -> Result:
    return cli("convert", path, "-o", out, "-o", out.with_suffix(".json"), "--jobs", jobs, *more)


@pytest.mark.usefixtures("tiny_parts")
def test_a_bib_read_in_parts_writes_the_same_bytes_and_warnings_for_every_jobs(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = tmp_path / "in.bib"
    path.write_text(BIB, encoding="utf-8")
    told = {}
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"j{jobs}.bib"
        result = _convert(cli, path, out, jobs)
        assert result.exit_code == 0, result.stderr
        told[jobs] = (
            out.read_bytes(),
            out.with_suffix(".json").read_bytes(),
            result.stderr.replace(f"j{jobs}.", "j."),
        )
    assert told["1"] == told["2"] == told["3"]
    assert f"{path}:18: skipped @article 'broken'" in told["2"][2]
    assert "duplicate key 'One' (first at line 7)" in told["2"][2]


@pytest.mark.usefixtures("tiny_parts")
def test_strict_stops_at_the_same_first_error_for_every_jobs(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = tmp_path / "in.bib"
    path.write_text(BIB, encoding="utf-8")
    results = [_convert(cli, path, tmp_path / f"j{n}.bib", n, "--strict") for n in "12"]
    assert [r.exit_code for r in results] == [2, 2]
    assert results[0].stderr == results[1].stderr
    assert results[1].stderr.startswith(f"bib: error: {path}:")
