"""JSON Schemas shipped with `bib`: the official CSL-JSON schema and our own."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def load(name: str) -> dict[str, Any]:
    """Load a schema by file name, e.g. `load("csl-data.json")`."""
    schema: dict[str, Any] = json.loads(
        resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    )
    return schema
