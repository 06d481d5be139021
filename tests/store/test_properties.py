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


@fixture_ok
@given(st.text(min_size=1, max_size=200).filter(lambda t: t.strip()))
def test_note_text_survives_export_and_import_exactly(
    store: SQLiteStore, backend: str, tmp_path_factory: pytest.TempPathFactory, text: str
) -> None:
    assume(backend == "sqlite" or "\x00" not in text)  # PostgreSQL text cannot hold NUL
    note = store.add_note("usmoe2026", text)
    data = store.dump_annotations()
    fresh: Path = tmp_path_factory.mktemp("fresh") / "library.sqlite"
    with open_store(fresh) as other:
        other.load_annotations(data)
        (copied,) = [n for n in other.notes() if n.uuid == note.uuid]
    assert copied.body == store.note(note.id).body
