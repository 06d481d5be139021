"""Properties over arbitrary text: no query breaks search, no note text is altered on the way."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from annotations import open_store
from annotations.sqlite import SQLiteStore
from bib.errors import BibError

fixture_ok = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@fixture_ok
@given(st.text(max_size=60))
def test_any_plain_query_either_searches_or_is_empty(store: SQLiteStore, query: str) -> None:
    try:
        store.search(query)
    except BibError as exc:
        assert str(exc) == "empty search query"


# Each example writes a fresh library file, so it carries a batch of texts (1,000 examples of
# one text each took four minutes on PostgreSQL), and its notes are deleted afterwards: a store
# that kept every example's notes made each later dump longer, the whole test quadratic.
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.text(min_size=1, max_size=200).filter(lambda t: t.strip()), min_size=1, max_size=12)
)
def test_note_text_survives_export_and_import_exactly(
    store: SQLiteStore, backend: str, tmp_path_factory: pytest.TempPathFactory, texts: list[str]
) -> None:
    # PostgreSQL text cannot hold NUL
    assume(backend == "sqlite" or not any("\x00" in text for text in texts))
    notes = [store.add_note("usmoe2026", text) for text in texts]
    try:
        data = store.dump_annotations()
        fresh: Path = tmp_path_factory.mktemp("fresh") / "library.sqlite"
        with open_store(fresh) as other:
            other.load_annotations(data)
            copied = {n.uuid: n.body for n in other.notes()}
        assert [copied[note.uuid] for note in notes] == [store.note(n.id).body for n in notes]
    finally:
        for note in notes:
            store.delete_note(note.id)
