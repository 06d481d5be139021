"""`bib convert --jobs N` on a `.bib` read in parts by worker processes
(`bib.readers.bibtex_parts`): the same bytes, warnings and first error for every N."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from bib import parallel
from bib.readers import bibtex_parts
from tests.convert.conftest import Told, progress_count

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


AGAIN = r"""@article{again, title = {One Sparse Router}, author = {Bo Chan}, year = 2010,
  doi = {10.1000/ONE}, note = {the same paper as one, far away}}
"""
"""The copy of `AHEAD`'s first paper, parts after it."""

AHEAD = (
    r"""@preamble{"\newcommand{\noopsort}[1]{}"}
@string{jn = {Journal of Parts}}
@article{one, title = {One Sparse Router}, author = {Bo Chan}, journal = jn, year = 2010,
  doi = {10.1000/one}, abstract = {We propose RouteNet, trained on ImageNet with PyTorch.}}
@string{jn = {Journal of Wholes}}
@article{two, title = {Two
@article{inner, title = {A line that starts with an entry, inside a value}}
}, author = {Cy Dee}, journal = jn, year = 2011}
@misc{cut, note =
@book{swallowed, title = {Read as a macro name}}
@article{One, title = {Repeated key}, author = {Ed Fox}, year = 2012}
@article{bidi, title = {Hidden """
    "\u202e"
    r"""text}, author = {Gus Hay}, year = 2014}
"""
    + AGAIN
    + r"""@article{broken, title = {never closed
@article{three, title = {Three}, author = {Fay Gil}, journal = jn, year = 2013}
"""
)
"""A `.bib` without crossref or xdata, whose parts workers read and extract ahead
(`convert._read_bib`): preambles, a redefined `@string`, a cut inside a value, a repeated
key, bidi controls, a paper whose two copies are parts apart, parse warnings."""


@pytest.fixture
def read_ahead(
    tiny_parts: None, parts_read_ahead: list[int], after_merge_in_workers: list[int]
) -> list[int]:
    """Tiny parts, what is left after the merge in workers too, and a count of the parts
    read ahead (the path under test is taken)."""
    return parts_read_ahead


def test_a_bib_extracted_ahead_in_workers_writes_the_same_bytes_and_warnings_for_every_jobs(
    told: Callable[..., Told],
    tmp_path: Path,
    read_ahead: list[int],
    after_merge_in_workers: list[int],
) -> None:
    path = tmp_path / "in.bib"
    path.write_text(AHEAD, encoding="utf-8")
    runs = {jobs: told([path], tmp_path / f"j{jobs}.bib", jobs) for jobs in "123"}
    assert read_ahead, "no part was read ahead"
    assert after_merge_in_workers, "the copies and parts read here were not extracted in workers"
    assert runs["1"] == runs["2"] == runs["3"]
    assert runs["2"][3] == 0
    assert "removed bidirectional control characters" in runs["2"][2]
    assert "1 duplicates merged" in runs["2"][2] or "1 duplicate merged" in runs["2"][2]


def test_strict_stops_at_the_parse_warning_before_a_later_records_warning_for_every_jobs(
    told: Callable[..., Told], tmp_path: Path, read_ahead: list[int]
) -> None:
    path = tmp_path / "in.bib"
    path.write_text(AHEAD, encoding="utf-8")
    runs = [told([path], tmp_path / f"j{n}.bib", n, "--strict") for n in "12"]
    assert runs[0] == runs[1]
    assert runs[1][3] == 2
    assert "bidirectional" not in runs[1][2]


def test_two_bibs_defining_a_string_differently_write_the_same_bytes_for_every_jobs(
    told: Callable[..., Told], tmp_path: Path, read_ahead: list[int]
) -> None:
    first, second = tmp_path / "a.bib", tmp_path / "b.bib"
    pressed = "@string{pr = {Press}}\n@book{five, title = {Five}, publisher = pr, year = 2016}\n"
    first.write_text(pressed + AHEAD, encoding="utf-8")
    second.write_text(
        "@string{pr = {Another Press}}\n"
        "@book{four, title = {Four}, author = {Hu Ide}, publisher = pr, year = 2015}\n",
        encoding="utf-8",
    )
    runs = {jobs: told([first, second], tmp_path / f"j{jobs}.bib", jobs) for jobs in "12"}
    assert read_ahead, "no part was read ahead"
    assert runs["1"] == runs["2"]
    assert "is defined differently in two inputs" in runs["2"][2]


CROSSREF = (
    r"""@string{pk = {hidden}}
@inbook{chapter, crossref = {Whole}, title = {A Chapter}, pages = {1--9}}
@incollection{macro, crossref = pk, title = {Its parent named through a macro}}
@inbook{lost, crossref = {nowhere}, title = {Lost}}
@misc{self, crossref = {self}, title = {Itself}}
@article{one, title = {One}, author = {Bo Chan}, year = 2010, xdata = {pub}}
@article{plain, title = {Plain Sparse Routing}, author = {Di Eng}, year = 2011}
@xdata{pub, publisher = {Shared """
    "\u202e"
    r"""Press}}
@book{whole, title = {The Whole Book}, author = {Ann Lee}, year = 2001, crossref = {set}}
@mvbook{set, title = {The Set}, publisher = {P}, year = 2000}
@collection{hidden, title = {Hidden Collection}, editor = {Ed Fox}, year = 2003}
@article{again, title = {Plain Sparse Routing}, author = {Di Eng}, year = 2011}
"""
)
"""A `.bib` whose children come before their parents, parts apart: a parent named in
another case, one named through a macro, one missing, a record naming itself, an xdata
parent with a bidi control (inherited as read, then stripped), a parent with a parent."""


def test_crossref_children_read_ahead_write_the_same_bytes_and_warnings_for_every_jobs(
    told: Callable[..., Told],
    tmp_path: Path,
    read_ahead: list[int],
    after_merge_in_workers: list[int],
) -> None:
    path = tmp_path / "in.bib"
    path.write_text(CROSSREF, encoding="utf-8")
    runs = {jobs: told([path], tmp_path / f"j{jobs}.bib", jobs) for jobs in "123"}
    assert read_ahead, "no part was read ahead"
    assert after_merge_in_workers, "the children were not extracted in workers"
    assert runs["1"] == runs["2"] == runs["3"]
    assert runs["2"][3] == 0
    assert b"Hidden Collection" in runs["2"][1]
    assert "crossref 'nowhere' is not an entry of the file" in runs["2"][2]
    assert "crossref 'self' is not an entry of the file" in runs["2"][2]


def test_strict_stops_at_the_same_crossref_warning_for_every_jobs(
    told: Callable[..., Told], tmp_path: Path, read_ahead: list[int]
) -> None:
    path = tmp_path / "in.bib"
    path.write_text(CROSSREF, encoding="utf-8")
    runs = [told([path], tmp_path / f"j{n}.bib", n, "--strict") for n in "12"]
    assert runs[0] == runs[1]
    assert runs[1][3] == 2
    assert "crossref 'nowhere'" in runs[1][2]


def test_the_progress_display_counts_each_record_of_a_bib_with_crossrefs_once(
    tmp_path: Path, read_ahead: list[int]
) -> None:
    """Regression: a crossref child read ahead and resolved here was counted as it was
    resolved and again as it went into the stages (17 for 11 records)."""
    path = tmp_path / "in.bib"
    path.write_text(CROSSREF, encoding="utf-8")
    records, counted = progress_count(path, 2)
    assert read_ahead, "no part was read ahead"
    assert counted == records == 11
    assert progress_count(path, 1) == (records, counted)


def test_the_progress_display_counts_each_record_of_a_part_read_again_here_once(
    tmp_path: Path, read_ahead: list[int], parts_read_here: list[int]
) -> None:
    """Regression: the records of a part the main process read again were counted as they
    were read and again as they went into the stages."""
    path = tmp_path / "in.bib"
    path.write_text(AHEAD.replace(AGAIN, ""), encoding="utf-8")
    records, counted = progress_count(path, 2)
    assert read_ahead, "no part was read ahead"
    assert parts_read_here, "no part was read again here"
    assert counted == records
    assert progress_count(path, 1) == (records, counted)
