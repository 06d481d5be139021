"""`bib convert --jobs N` writes the same bytes for every N."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import Result

from bib import convert as engine
from bib import parallel, readers
from bib.errors import BibError
from bib.record import Record
from bib.testing import texlive_bibs

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
STRESS = Path(__file__).resolve().parents[1] / "data" / "stress.txt"

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="workers need fork here")


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers even for the seeds (57 records), in batches of a few records and paper lists
    read in parts of three paragraphs, so that every record crosses a process boundary and
    batches and parts end in odd places."""
    monkeypatch.setattr(engine, "PARALLEL_AFTER", 5)
    monkeypatch.setattr(engine, "PARALLEL_BATCH", 7)
    monkeypatch.setattr(engine, "LIST_PART", 3)


class Run(NamedTuple):
    exit_code: int
    stderr: str


def _both(cli: Callable[..., Result], out: Path, *args: object) -> tuple[Run, Run]:
    """`bib convert ARGS -o OUT --jobs 1` and the same with `--jobs 2` into a sibling of OUT
    (an existing output would be read for its keys), the outputs compared; the summary
    names OUT in both."""
    other = out.with_name(f"2-{out.name}")
    one = cli("convert", *args, "-o", out, "--jobs", "1")
    two = cli("convert", *args, "-o", other, "--jobs", "2")
    if out.exists() or other.exists():
        assert out.read_bytes() == other.read_bytes()
    told = two.stderr.replace(str(other), str(out))
    return Run(one.exit_code, one.stderr), Run(two.exit_code, told)


def _readable(path: Path) -> bool:
    """A small TeX Live `.bib` that `bib` reads without an error."""
    if path.stat().st_size > 20_000:
        return False
    try:
        return bool(list(readers.read(path)))
    except BibError:
        return False


def _entries(count: int, special: dict[int, str] | None = None) -> str:
    """A paper list of `count` abstracts, those numbered in `special` replaced."""
    special = special or {}
    texts = [
        special.get(i, f"We propose Net{i}, a framework for sparse routing number {i}.")
        for i in range(count)
    ]
    return "ICML 2026 Papers\n\n" + "\n\n".join(texts) + "\n"


@pytest.mark.parametrize("jobs", ["2", "3"])
@pytest.mark.usefixtures("small_threshold")
def test_outputs_are_byte_identical_for_every_jobs(
    cli: Callable[..., Result], tmp_path: Path, jobs: str
) -> None:
    outputs = {}
    for n in ("1", jobs):
        names = [tmp_path / f"j{n}.bib", tmp_path / f"j{n}.biblatex.bib", tmp_path / f"j{n}.json"]
        args = [a for name in names for a in ("-o", name)]
        result = cli("convert", SEEDS, STRESS, *args, "--jobs", n)
        assert result.exit_code == 0, result.stderr
        outputs[n] = [name.read_bytes() for name in names]
    assert outputs["1"] == outputs[jobs]


@pytest.mark.usefixtures("small_threshold")
def test_duplicates_merge_the_same_with_workers(cli: Callable[..., Result], tmp_path: Path) -> None:
    seed = sorted(SEEDS.glob("*.txt"))[0]
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert cli("convert", seed, seed, "-o", one, "--jobs", "1").exit_code == 0
    result = cli("convert", seed, seed, "-o", two, "--jobs", "2")
    assert result.exit_code == 0
    assert one.read_bytes() == two.read_bytes()
    assert "duplicates merged" in result.stderr and " 0 duplicates" not in result.stderr


def test_jobs_must_be_positive(cli: Callable[..., Result]) -> None:
    assert cli("convert", SEEDS, "--jobs", "0").exit_code == 2


@pytest.mark.usefixtures("small_threshold")
def test_bib_and_json_inputs_are_byte_identical_for_every_jobs(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    bib, json = tmp_path / "in.bib", tmp_path / "in.json"
    assert cli("convert", SEEDS, STRESS, "-o", bib, "-o", json, "--jobs", "1").exit_code == 0
    texlive = [path for path in texlive_bibs() if _readable(path)][:20]
    outputs = {}
    for n in ("1", "2"):
        names = [tmp_path / f"j{n}.bib", tmp_path / f"j{n}.json"]
        args = [a for name in names for a in ("-o", name)]
        result = cli("convert", bib, json, *texlive, *args, "--jobs", n)
        assert result.exit_code == 0, result.stderr
        told = result.stderr.replace(f"j{n}.", "j.")  # the summary names the outputs
        outputs[n] = ([name.read_bytes() for name in names], told)
    assert outputs["1"] == outputs["2"]


@pytest.mark.usefixtures("small_threshold")
def test_duplicates_in_distant_parts_of_one_list_merge_the_same(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    same = "We propose EchoNet. URL: https://doi.org/10.1234/echo"
    path = tmp_path / "list.txt"
    path.write_text(_entries(40, {2: same, 37: same}), encoding="utf-8")
    one, two = _both(cli, tmp_path / "out.json", path)
    assert one.exit_code == two.exit_code == 0
    assert one.stderr == two.stderr
    assert "1 duplicate merged" in two.stderr


@pytest.mark.usefixtures("small_threshold")
def test_warnings_come_in_the_same_order_with_the_same_lines(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    bidi = "We propose Evil\u202eNet{}, a trojan."
    path = tmp_path / "list.txt"
    text = _entries(30, {i: bidi.format(i) for i in (3, 11, 26)})
    path.write_text(text.replace("ICML 2026 Papers", "FooConf 2026 Papers"), encoding="utf-8")
    one, two = _both(cli, tmp_path / "out.bib", path)
    assert one.exit_code == two.exit_code == 0
    told = [line for line in two.stderr.splitlines() if line.startswith("bib: warning:")]
    assert told[0].startswith("bib: warning: venue 'FooConf' is not in the venue table")
    assert [line.split(":")[3] for line in told[1:]] == ["9", "25", "55"]
    assert one.stderr == two.stderr


@pytest.mark.usefixtures("small_threshold")
def test_strict_stops_at_the_same_first_warning(cli: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text(_entries(30, {i: f"We propose Evil\u202eNet{i}." for i in (17, 26)}), "utf-8")
    one, two = _both(cli, tmp_path / "out.bib", path, "--strict")
    assert one.exit_code == two.exit_code == 2
    assert (
        two.stderr
        == one.stderr
        == (f"bib: error: {path}:37: removed bidirectional control characters from abstract\n")
    )


@pytest.mark.parametrize(
    ("bad", "where"),
    [("12.", ":45: entry has no text"), ("Bad caf\udcff.", ":45: not UTF-8: byte 0xff")],
)
@pytest.mark.usefixtures("small_threshold")
def test_an_error_deep_in_a_list_names_the_same_file_and_line(
    cli: Callable[..., Result], tmp_path: Path, bad: str, where: str
) -> None:
    path = tmp_path / "list.txt"
    path.write_bytes(_entries(40, {21: bad}).encode("utf-8", "surrogateescape"))
    one, two = _both(cli, tmp_path / "out.bib", path)
    assert one.exit_code == two.exit_code == 2
    assert two.stderr == one.stderr
    assert two.stderr.startswith(f"bib: error: {path}{where}")
    assert not (tmp_path / "out.bib").exists()


@pytest.mark.usefixtures("small_threshold")
def test_load_gives_the_same_records_for_every_jobs() -> None:
    """What `bib add` and `bib tags` read through (`engine.load`)."""
    one = engine.load([SEEDS, STRESS, SEEDS], engine.ConvertOptions(jobs=1))
    assert engine.load([SEEDS, STRESS, SEEDS], engine.ConvertOptions(jobs=2)) == one


@pytest.mark.usefixtures("small_threshold")
def test_tags_are_the_same_with_workers(
    cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "usable_cores", lambda: 1)
    one = cli("tags", SEEDS, STRESS, "--json")
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    two = cli("tags", SEEDS, STRESS, "--json")
    assert one.exit_code == two.exit_code == 0
    assert one.stdout == two.stdout


def _poisoned(records: Iterable[Record]) -> Iterator[Record]:
    """A stage that refuses a record whose abstract says "Poison", naming where it is."""
    for record in records:
        if "Poison" in record.abstract:
            source = record.source
            raise BibError("poisoned", source.path if source else None, source and source.line)
        yield record


def _load_error(path: Path, jobs: int) -> str:
    with pytest.raises(BibError) as caught:
        engine.load([path], engine.ConvertOptions(jobs=jobs, stages=[_poisoned]))
    return str(caught.value)


@pytest.mark.usefixtures("small_threshold")
def test_a_stage_error_in_a_part_read_ahead_is_the_first_one_process_meets(
    tmp_path: Path,
) -> None:
    path = tmp_path / "list.txt"
    path.write_text(_entries(30, {9: "Poison one.", 20: "Poison two."}), "utf-8")
    assert _load_error(path, 2) == _load_error(path, 1) == f"{path}:21: poisoned"


@pytest.mark.usefixtures("small_threshold")
def test_a_reading_error_after_a_stage_error_comes_first_as_in_one_process(
    tmp_path: Path,
) -> None:
    path = tmp_path / "list.txt"
    path.write_text(_entries(30, {4: "Poison.", 25: "12."}), "utf-8")
    assert _load_error(path, 2) == _load_error(path, 1) == f"{path}:53: entry has no text"


@pytest.mark.usefixtures("small_threshold")
def test_a_list_on_standard_input_merges_the_same_with_workers(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    same = "We propose EchoNet. URL: https://doi.org/10.1234/echo"
    text = _entries(40, {5: same, 33: same})
    runs = [
        cli("convert", "-", "--from", "paperlist", "-f", "csl-json", "--jobs", n, input=text)
        for n in ("1", "2")
    ]
    assert runs[0].exit_code == runs[1].exit_code == 0
    assert runs[0].stdout == runs[1].stdout
    assert runs[0].stderr == runs[1].stderr
    assert "<stdin>:69 = <stdin>:13" in runs[1].stderr


def _rl_papers() -> list[dict[str, str]]:
    """ICLR 2020 papers whose authors gave `reinforcement learning` as a keyword: a list on
    which that topic is generic (bib.extract.generic), unlike the vocabulary's flags say."""
    data = Path(__file__).resolve().parents[1] / "data" / "author-keywords.json"
    papers = json.loads(data.read_text(encoding="utf-8"))["papers"]
    return [
        p for p in papers if any("reinforcement learning" in k.casefold() for k in p["keywords"])
    ]


@pytest.mark.usefixtures("small_threshold")
def test_a_list_whose_generic_topics_differ_from_the_flags_is_the_same_with_workers(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    papers = _rl_papers()
    listing = tmp_path / "rl.txt"
    listing.write_text(
        "ICLR 2020 Papers\n\n" + "\n\n".join(" ".join(p["abstract"].split()) for p in papers),
        encoding="utf-8",
    )
    items = [{"id": p["id"], "type": "paper-conference", "title": p["title"],
              "abstract": p["abstract"]} for p in papers]  # fmt: skip
    csl = tmp_path / "rl.json"
    csl.write_text(json.dumps(items), encoding="utf-8")
    for source in (listing, csl):
        out = tmp_path / f"{source.stem}-{source.suffix[1:]}.bib"
        one, two = _both(cli, out, source)
        assert one == two and one.exit_code == 0, one.stderr
        assert "reinforcement learning" in out.read_text(encoding="utf-8")
