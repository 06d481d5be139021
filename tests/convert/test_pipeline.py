"""The pipeline on the seeds: what every seed record must carry."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bib import convert as engine

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
ICML_2026 = "Proceedings of the 43rd International Conference on Machine Learning"


@pytest.fixture(scope="module")
def result() -> engine.Result:
    return engine.run([SEEDS])


def test_directory_input_reads_all_three_seed_files(result):
    assert (result.stats.files, result.stats.records, result.stats.merged) == (3, 57, 0)


def test_every_seed_record_is_icml_2026_with_its_proceedings(result):
    assert {(r.venue, r.year, r.container_title) for r in result.records} == {
        ("ICML", 2026, ICML_2026)
    }


def test_every_seed_record_has_a_derived_title(result):
    assert all(r.title and r.title_derived for r in result.records)
    assert result.stats.titles_derived == 57


def test_records_come_sorted_by_unique_keys(result):
    keys = [r.key for r in result.records]
    assert keys == sorted(keys) and len(set(keys)) == 57


def test_usmoe_seed_gets_key_title_and_method(result):
    [record] = [r for r in result.records if r.key == "usmoe2026"]
    assert (record.method, record.title) == ("USMoE", "USMoE: Unified Sparse Mixture of Experts")


def test_extractor_stages_can_be_replaced(result):
    def shout(records):
        for record in records:
            yield replace(record, note="seen")

    records = engine.load([SEEDS], engine.ConvertOptions(stages=[shout]))
    assert all(r.note == "seen" and not r.title for r in records)
