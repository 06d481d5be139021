"""The conversion engine (`bib.convert`) on its own, without the command line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from pybtex.database import parse_string

from bib import convert as engine
from bib import parallel
from bib.errors import BibError
from bib.record import Record
from bib.writers import WriteOptions

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "seeds"
ABSTRACT = "We propose FairJudge, an adaptive judge for LLM evaluation."


def _list(tmp_path: Path, *abstracts: str) -> Path:
    path = tmp_path / "list.txt"
    path.write_text("ICML 2026\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


def test_every_sink_gets_its_format_and_pybtex_reads_the_bibtex(tmp_path: Path) -> None:
    bib, json_path = tmp_path / "out" / "refs.bib", tmp_path / "out" / "refs.json"
    sinks = [engine.FileSink(bib, "bibtex"), engine.FileSink(json_path, "csl-json")]
    stats = engine.convert([SEEDS], sinks, engine.ConvertOptions())
    keys = sorted(parse_string(bib.read_text(encoding="utf-8"), "bibtex").entries.keys())
    items = json.loads(json_path.read_text(encoding="utf-8"))
    assert len(keys) == stats.records == len(items)
    assert keys == sorted(item["id"] for item in items)


def test_a_sink_that_cannot_be_written_leaves_every_other_output_unwritten(
    tmp_path: Path,
) -> None:
    good = tmp_path / "new" / "refs.bib"
    (tmp_path / "taken").mkdir()
    sinks = [engine.FileSink(good, "bibtex"), engine.FileSink(tmp_path / "taken", "csl-json")]
    with pytest.raises(IsADirectoryError):
        engine.convert([_list(tmp_path, ABSTRACT)], sinks, engine.ConvertOptions())
    assert not good.exists() and not good.parent.exists()


def test_a_text_sink_hears_the_output_only_after_it_was_all_written(tmp_path: Path) -> None:
    heard: list[str] = []
    sinks = [engine.TextSink("csl-json", heard.append)]
    engine.convert([_list(tmp_path, ABSTRACT)], sinks, engine.ConvertOptions())
    text = "".join(heard)
    assert text.endswith("\n")
    assert [item["title"].split(":")[0] for item in json.loads(text)] == ["FairJudge"]


def test_a_pinned_key_is_written(tmp_path: Path) -> None:
    path = _list(tmp_path, ABSTRACT)
    (record,) = engine.load([path])
    heard: list[str] = []
    options = engine.ConvertOptions(pinned={record.id: "kept2026"})
    engine.convert([path], [engine.TextSink("csl-json", heard.append)], options)
    assert [item["id"] for item in json.loads("".join(heard))] == ["kept2026"]


def test_an_existing_output_is_read_for_the_keys_it_holds(tmp_path: Path) -> None:
    out = tmp_path / "refs.json"
    engine.convert([SEEDS], [engine.FileSink(out, "csl-json")], engine.ConvertOptions())
    heard: list[str] = []
    stats = engine.convert(
        [SEEDS], [engine.FileSink(out, "csl-json")], engine.ConvertOptions(report=heard.append)
    )
    assert heard == [f"{stats.records} keys kept from {out}"]


def test_strict_turns_a_warning_into_an_error_but_not_the_keys_kept(tmp_path: Path) -> None:
    out = tmp_path / "refs.json"
    path = _list(tmp_path, ABSTRACT, ABSTRACT)  # the same paper twice: merged, a warning
    engine.convert([path], [engine.FileSink(out, "csl-json")], engine.ConvertOptions())
    with pytest.raises(BibError, match="merged"):
        engine.convert(
            [path], [engine.FileSink(out, "csl-json")], engine.ConvertOptions(strict=True)
        )


def test_write_options_reach_every_entry(tmp_path: Path) -> None:
    heard: list[str] = []
    path = _list(tmp_path, "We propose CaféNet, a café judge.")
    options = engine.ConvertOptions(output=WriteOptions(ascii=True))
    engine.convert([path], [engine.TextSink("bibtex", heard.append)], options)
    text = "".join(heard)
    assert text.isascii() and "Caf" in text


def _counting(seen: list[str]) -> engine.Stage:
    def stage(records: Iterable[Record]) -> Iterator[Record]:
        for record in records:
            seen.append(record.id)
            yield record

    return stage


def test_a_paper_read_twice_goes_through_every_stage_once(tmp_path: Path) -> None:
    """Regression: merged papers were extracted once per copy, then again once merged."""
    one, two = tmp_path / "one.txt", tmp_path / "two.md"
    one.write_text(f"ICML 2026\n\n{ABSTRACT}\n\nOther paper.\n", encoding="utf-8")
    two.write_text(f"ICML 2026\n\n{ABSTRACT}\n", encoding="utf-8")
    seen: list[str] = []
    result = engine.run([one, two], engine.ConvertOptions(stages=[_counting(seen)]))
    assert result.stats.merged == 1
    assert sorted(seen) == sorted(r.id for r in result.records)


@pytest.mark.skipif(not parallel.can_fork(), reason="workers need fork here")
def test_lookups_run_here_once_per_paper_while_workers_extract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A network lookup (`bib convert --resolve`) no longer forces --jobs 1: the stages run
    in workers, the lookup in this process, once for each unique paper."""
    monkeypatch.setattr(engine, "PARALLEL_AFTER", 5)
    monkeypatch.setattr(engine, "PARALLEL_BATCH", 7)
    here = os.getpid()
    looked_up: list[str] = []

    def lookup(records: Iterable[Record]) -> Iterator[Record]:
        for record in records:
            assert os.getpid() == here
            looked_up.append(record.id)
            yield record

    options = engine.ConvertOptions(lookups=[lookup], jobs=2)
    with_workers = engine.run([SEEDS, SEEDS], options)
    alone = engine.run([SEEDS], engine.ConvertOptions())
    assert sorted(looked_up) == sorted(r.id for r in with_workers.records)
    assert with_workers.records == alone.records
