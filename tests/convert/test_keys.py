"""Citation keys: safe, deterministic, unique by record id, pinned keys respected."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bib import convert as engine
from bib.keys import assign, base_key, fold
from bib.record import Record

SAFE = re.compile(r"[a-z0-9]+")
SEEDS = sorted((Path(__file__).resolve().parents[2] / "seeds").glob("*.txt"))


def test_fold_transliterates_to_ascii_lower_case():
    assert [fold(s) for s in ("Müller", "Łukasz", "S2L-PO", "François", "Straße")] == [
        "muller",
        "lukasz",
        "s2lpo",
        "francois",
        "strasse",
    ]


def test_key_is_method_name_plus_year():
    assert base_key(Record(id="x", method="USMoE", year=2026)) == "usmoe2026"


def test_key_falls_back_to_first_significant_title_word():
    record = Record(id="x", title="On the Impact of Data", year=2025)
    assert base_key(record) == "impact2025"


def test_safe_source_key_is_kept():
    assert base_key(Record(id="x", key="Muller2024Deep", method="X", year=2024)) == "Muller2024Deep"


def test_unsafe_source_key_loses_only_the_characters_bibtex_refuses():
    assert base_key(Record(id="x", key="a b,{c}", method="USMoE", year=2024)) == "abc"


def test_a_key_of_nothing_but_refused_characters_is_generated():
    assert base_key(Record(id="x", key="{ }", method="USMoE", year=2024)) == "usmoe2024"


@pytest.mark.parametrize(
    "key", ["1657:huygens", "smith.2020", "baez/article", "müller2020", "o'brien+x", "a-b_c"]
)
def test_citation_keys_replaced_without_a_word(key):
    """Issue 18: keys BibTeX, biber and pandoc accept were replaced by generated ones."""
    assert base_key(Record(id="x", key=key, method="USMoE", year=2024)) == key


def test_clashing_keys_get_suffixes_in_record_id_order():
    records = [Record(id=i, method="APO", year=2026) for i in ("abs:2", "abs:1", "abs:3")]
    keyed = {r.id: r.key for r in assign(records)}
    assert keyed == {"abs:1": "apo2026a", "abs:2": "apo2026b", "abs:3": "apo2026c"}


@given(st.permutations([Record(id=f"abs:{i}", method="Same", year=2026) for i in range(6)]))
def test_keys_do_not_depend_on_input_order(records):
    keyed = {r.id: r.key for r in assign(records)}
    assert keyed == {f"abs:{i}": f"same2026{'abcdef'[i]}" for i in range(6)}


def test_pinned_key_is_kept_and_never_given_to_another_record():
    records = [
        Record(id="abs:1", method="APO", year=2026),
        Record(id="abs:2", method="APO", year=2026),
    ]
    keyed = {r.id: r.key for r in assign(records, pinned={"abs:2": "apo2026"})}
    assert keyed == {"abs:2": "apo2026", "abs:1": "apo2026a"}


def test_keys_compare_case_insensitively():
    records = [Record(id="abs:1", key="Smith2020"), Record(id="abs:2", key="smith2020")]
    keys = [r.key.casefold() for r in assign(records)]
    assert len(set(keys)) == 2


@functools.cache
def _seed_keys() -> dict[str, str]:
    return {r.id: r.key for r in engine.load(SEEDS)}


@settings(max_examples=12)  # three files have six orders; each example converts all seeds
@given(st.permutations(SEEDS))
def test_seed_keys_are_the_same_in_any_file_order(order):
    assert {r.id: r.key for r in engine.load(order)} == _seed_keys()


def test_seed_keys_are_unique_and_safe():
    keys = [r.key for r in engine.load(SEEDS)]
    assert len(set(keys)) == len(keys) == 57
    assert all(SAFE.fullmatch(k) for k in keys)
