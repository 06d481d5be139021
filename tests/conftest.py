"""The test run's own settings: hypothesis profiles, and the one PostgreSQL server a test
worker starts. The shared fixtures (the CLI, a temporary library, the seeds, toolchain
checks) come from the `bib.testing` plugin."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from postgres_server import Server, Unavailable, throwaway

pytest_plugins = ["bib.testing"]


@pytest.fixture(scope="session")
def postgres_server(unavailable: Callable[[str], Any]) -> Iterator[Server]:
    """One real PostgreSQL server per test worker (see tests/postgres_server.py), shared by the
    store and the Zotero sync tests."""
    try:
        with throwaway() as server:
            yield server
    except Unavailable as exc:
        unavailable(f"no PostgreSQL server: {exc}")


# CI is derandomized (each test's examples seeded from its own name), so that CI runs the
# examples the last local run of this profile ran; `explore` is the random search for new
# failures, run locally before a change lands (README, "For developers").
settings.register_profile(
    "ci",
    max_examples=1000,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
