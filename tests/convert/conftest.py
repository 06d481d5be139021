"""Fixtures for `bib convert` tests: bad inputs, each as a file that must be refused."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Told = tuple[bytes, bytes, str, int]
"""What one `bib convert` to `.bib` and `.json` gave: both files, its standard error (with
the output's name made `j.`), its exit status."""

GOOD = "We propose FairJudge, an adaptive judge.\n"

BAD_INPUTS: dict[str, tuple[str, bytes, str]] = {
    # name: (file name, content, expected message after "bib: error: FILE")
    "non_utf8": ("list.txt", b"ICML 2026\n\nGood.\n\nBad caf\xe9.\n", ":5: not UTF-8"),
    "empty_list": ("list.txt", b"ICML 2026 Papers\n\n", ": empty paper list"),
    "entry_without_text": (
        "list.txt",
        b"ICML 2026\n\n" + GOOD.encode() + b"\n12.\n",
        ":5: entry has no text",
    ),
    "no_venue_or_year": ("list.txt", GOOD.encode() + b"\nAnother one.\n", ":1: no venue and year"),
    "office_file_as_bib": (
        "refs.bib",
        b"PK\x03\x04\x14\x00\x06\x00word/document.xml",
        ": not a text file: this looks like a ZIP archive",
    ),
    "csv_renamed_txt": (
        "list.txt",
        b"title,authors,year\nDeep Cats,Jane Doe,2020\nShallow Dogs,John Roe,2021\n",
        ":1: not a paper list: this looks like a table (comma-separated, 3 columns)",
    ),
    "office_file_renamed_txt": (
        "list.txt",
        b"PK\x03\x04\x14\x00\x06\x00word/document.xml",
        ": not a text file: this looks like a ZIP archive",
    ),
    "string_bomb": (
        "refs.bib",
        b"@string{s0 = {xxxxxxxxxx}}\n"
        + b"".join(b"@string{s%d = s%d # s%d}\n" % (i + 1, i, i) for i in range(24))
        + b"@misc{a, title = s24}\n",
        ":18: value longer than",
    ),
    "invalid_csl_json": (
        "refs.json",
        b'[{"id": "a", "type": "nonsense"}]',
        ":1: invalid CSL-JSON item 0",
    ),
    "json_nan": (
        "refs.json",
        b'[{"id": "a", "type": "book", "title": "T",\n  "issued": {"date-parts": [[NaN]]}}]',
        ":2: not valid JSON: NaN",
    ),
    "json_1e999": (
        "refs.json",
        b'[{"id": "a", "type": "book", "title": "T",\n  "volume": 1e999}]',
        ":2: not valid JSON",
    ),
    "json_duplicate_key": (
        "refs.json",
        b'[{"id": "a", "type": "book",\n  "title": "T",\n  "title": "U"}]',
        ":3: not valid JSON",
    ),
    "json_4301_digit_integer": (
        "refs.json",
        b'[{"id": "a", "type": "book", "volume": ' + b"9" * 4301 + b"}]",
        ":1: not valid JSON: an integer of 4301 digits",
    ),
    "json_100k_deep": ("refs.json", b"[" * 100_000 + b"]" * 100_000, ":1: JSON nested more than"),
    "broken_json": ("refs.json", b'[{"id": "a",\n', ":2: not valid JSON"),
}


@pytest.fixture(params=sorted(BAD_INPUTS))
def bad_input(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    name, content, message = BAD_INPUTS[request.param]
    path = tmp_path / "in" / name
    path.parent.mkdir()
    path.write_bytes(content)
    return path, f"bib: error: {path}{message}"


@pytest.fixture
def good_list(tmp_path: Path) -> Path:
    path = tmp_path / "good.txt"
    path.write_text(f"ICML 2026 Papers\n\n{GOOD}", encoding="utf-8")
    return path


@pytest.fixture
def parts_read_ahead(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A count of the parts the engine read and extracted ahead in workers
    (`_Reading.keep_ahead`), so that a test of that path can assert it was taken."""
    from bib import convert

    counted: list[int] = []
    keep = convert._Reading.keep_ahead

    def counting(self: convert._Reading, *args: Any, **kwargs: Any) -> None:
        counted.append(1)
        keep(self, *args, **kwargs)

    monkeypatch.setattr(convert._Reading, "keep_ahead", counting)
    return counted


@pytest.fixture
def told(cli: Callable[..., Result]) -> Callable[..., Told]:
    """`told(inputs, out, jobs, *options)`: `bib convert` of `inputs` to `out` and its `.json`
    with `--jobs jobs`, as `Told`, to compare across `--jobs`."""

    def run(inputs: Sequence[Path], out: Path, jobs: str, *more: str) -> Told:
        result = cli(
            "convert", *inputs, "-o", out, "-o", out.with_suffix(".json"), "--jobs", jobs, *more
        )
        bib = out.read_bytes() if out.exists() else b""
        csl = out.with_suffix(".json").read_bytes() if out.exists() else b""
        return bib, csl, result.stderr.replace(out.stem + ".", "j."), result.exit_code

    return run


@pytest.fixture
def parts_read_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A count of the `.bib` parts the main process read again (`bibtex_parts.File.read`
    with the keys seen before it: a check of a worker's part failed)."""
    from bib.readers import bibtex_parts

    counted: list[int] = []
    read = bibtex_parts.File.read

    def counting(self: bibtex_parts.File, *args: Any, **kwargs: Any) -> bibtex_parts.Read:
        if len(args) > 2 or kwargs.get("seen") is not None:
            counted.append(1)
        return read(self, *args, **kwargs)

    monkeypatch.setattr(bibtex_parts.File, "read", counting)
    return counted


def progress_count(path: Path, jobs: int) -> tuple[int, int]:
    """The records a conversion of `path` with `jobs` gives, and how many its `progress`
    saw (`ConvertOptions.progress`: what the progress display counts)."""
    from bib import convert

    seen: list[object] = []

    def counting(items: Iterable[Any]) -> Iterator[Any]:
        for item in items:
            seen.append(item)
            yield item

    result = convert.run([path], convert.ConvertOptions(jobs=jobs, progress=counting))
    return result.stats.records, len(seen)


@pytest.fixture
def after_merge_in_workers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records left after the merge of inputs read ahead (a `.bib`'s crossref children, the
    merged copies) sent to workers from one on, three a batch; a count of the runs of them
    that went to workers (`Workers.run` past `after`), so that a test can assert it."""
    from bib import convert, parallel

    monkeypatch.setattr(convert, "AFTER_AHEAD", 1)
    monkeypatch.setattr(convert, "PARALLEL_BATCH", 3)
    counted: list[int] = []
    ordered_map = parallel.ordered_map

    def counting(work: Callable[[Any], Any], batches: Iterable[Any], jobs: int) -> Iterator[Any]:
        if work.__name__ == "batch_work":  # `Workers.run`'s
            counted.append(1)
        return ordered_map(work, batches, jobs)

    monkeypatch.setattr(parallel, "ordered_map", counting)
    return counted
