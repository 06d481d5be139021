"""Keys stay put when a list grows and is converted onto the same output again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

SEED = Path(__file__).resolve().parents[2] / "seeds" / "000_465737449dbd50b8.txt"
SECOND_USMOE = (
    "We propose USMoE, a different unified sparse mixture of experts approach for vision "
    "transformers that routes tokens by a learned score and improves accuracy on ImageNet by "
    "two points while halving compute."
)


def _keys(path: Path) -> list[str]:
    return [
        line.split("{", 1)[1].rstrip(",")
        for line in path.read_text().splitlines()
        if line.startswith("@")
    ]


def _grown(tmp_path: Path) -> Path:
    grown = tmp_path / "grown.txt"
    grown.write_text(SEED.read_text().rstrip("\n") + "\n\n" + SECOND_USMOE + "\n")
    return grown


def test_usmoe2026_keeps_its_key_when_a_second_usmoe_paper_arrives(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """Regression: the existing `usmoe2026` became `usmoe2026a` and every \\cite broke."""
    out = tmp_path / "refs.bib"
    assert cli("convert", SEED, "-o", out).exit_code == 0
    before = set(_keys(out))
    assert "usmoe2026" in before
    result = cli("convert", _grown(tmp_path), "-o", out)
    assert result.exit_code == 0
    after = set(_keys(out))
    assert before <= after
    assert after - before == {"usmoe2026a"}
    assert "keys kept from" in result.stderr


def test_a_fresh_output_gives_the_crowded_key_suffixes_by_record_id(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "fresh.bib"
    assert cli("convert", _grown(tmp_path), "-o", out).exit_code == 0
    assert {"usmoe2026a", "usmoe2026b"} <= set(_keys(out))


def test_keys_from_another_file_are_kept_in_a_new_output(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    thesis = tmp_path / "thesis.bib"
    assert cli("convert", SEED, "-o", thesis).exit_code == 0
    out = tmp_path / "refs.json"
    assert cli("convert", _grown(tmp_path), "-o", out, "--keys-from", thesis).exit_code == 0
    text = out.read_text()
    assert '"id": "usmoe2026"' in text and '"id": "usmoe2026a"' in text


def test_an_unreadable_existing_output_is_simply_replaced(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    out = tmp_path / "refs.json"
    out.write_text("not json at all")
    result = cli("convert", SEED, "-o", out)
    assert result.exit_code == 0
    assert '"id": "usmoe2026"' in out.read_text()


SEEDS = SEED.parent


@pytest.mark.parametrize("name", ["refs.json", "refs.bib"])
def test_keys_of_abstracts_with_markup_inside_words_stay_on_a_second_run(
    cli: Callable[..., Result], tmp_path: Path, name: str
) -> None:
    """Regression: `**A**gent **M**emory` makes the id's words "a gent m emory" while our
    outputs show "Agent Memory", so the record read back had another id and a second run onto
    the same output renamed `amabench2026`, `logicsage2026` and `metis2026` to `...a`."""
    out = tmp_path / name
    assert cli("convert", SEEDS, "-o", out).exit_code == 0
    first = out.read_bytes()
    result = cli("convert", SEEDS, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes() == first
