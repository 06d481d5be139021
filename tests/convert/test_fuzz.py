"""Any input, however broken, ends in exit 0 or 2: on error one line, no traceback, and
nothing written (the output file keeps what it had)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bib.cli import main

PREVIOUS = "previous contents\n"

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
_csl_like = st.lists(
    st.fixed_dictionaries(
        {"id": st.text(max_size=8), "type": st.sampled_from(["article-journal", "", "book", "x"])},
        optional={"title": _json, "issued": _json, "author": _json, "volume": _json},
    ),
    max_size=3,
)
_bib_like = st.lists(
    st.sampled_from(["@article{", "@string{", "k,", "title = ", "{", "}", '"', "#", " and ",
                     "\\'", "\\", "x", "=", ",", "\n", "@comment", "%", "2026", "ü"]),
    max_size=40,
).map("".join)  # fmt: skip


def _convert(suffix: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source, out = Path(folder) / f"in{suffix}", Path(folder) / "out.bib"
        source.write_bytes(data)
        out.write_text(PREVIOUS)
        result = CliRunner().invoke(main, ["convert", str(source), "-o", str(out)])
        assert result.exit_code in (0, 2), (result.exit_code, result.output, result.exception)
        assert "Traceback" not in result.stderr
        if result.exit_code == 2:
            assert result.stderr.splitlines()[-1].startswith("bib: error: ")
            assert out.read_text() == PREVIOUS


_SETTINGS = settings(
    max_examples=int(os.environ.get("BIB_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@_SETTINGS
@given(st.binary(max_size=300), st.sampled_from([".txt", ".bib", ".json"]))
def test_random_bytes_never_crash_any_reader(data: bytes, suffix: str) -> None:
    _convert(suffix, data)


@_SETTINGS
@given(_json)
def test_random_json_never_crashes_the_csl_reader(value: object) -> None:
    _convert(".json", json.dumps(value).encode())


@_SETTINGS
@given(_csl_like)
def test_csl_shaped_json_never_crashes_the_csl_reader(items: list[dict[str, object]]) -> None:
    _convert(".json", json.dumps(items).encode())


@_SETTINGS
@given(_bib_like)
def test_bibtex_shaped_text_never_crashes_the_bibtex_reader(text: str) -> None:
    _convert(".bib", text.encode())
