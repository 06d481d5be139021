"""The test run's own settings: hypothesis profiles. The shared fixtures (the CLI, a
temporary library, the seeds, toolchain checks) come from the `bib.testing` plugin."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ["bib.testing"]

settings.register_profile(
    "ci", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
