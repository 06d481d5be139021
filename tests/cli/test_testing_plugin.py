"""The shared fixtures come from the `bib.testing` plugin, which every test run loads."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result


def test_the_plugin_is_registered(request: pytest.FixtureRequest) -> None:
    assert request.config.pluginmanager.has_plugin("bib.testing")


def test_the_cli_fixture_runs_bib_with_a_private_library(
    cli: Callable[..., Result], library_location: Path
) -> None:
    assert os.environ["BIB_LIBRARY"] == str(library_location)
    result = cli("list", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == []


def test_the_seed_records_are_every_paragraph_of_the_seeds(
    seeds: list[Path], seed_records: dict[str, object]
) -> None:
    assert {name.split(":")[0] for name in seed_records} == {p.name for p in seeds}
