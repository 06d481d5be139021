"""User settings: `config.toml` in the user's config directory, or the file `$BIB_CONFIG`.

Only settings that change a default live here; a command-line option always wins. The file
is TOML (read with the standard library's `tomllib`):

    [tags]
    with_parents = true   # write the ancestors of each topic into keywords

A file that is not valid TOML, or a setting of the wrong type, is one error line naming the
file; a missing file means the defaults.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from bib.errors import BibError


@dataclass(frozen=True, slots=True)
class Settings:
    with_parents: bool = False
    """Add the ancestors of every topic tag to the keywords written (`--with-parents`)."""


def config_path() -> Path:
    found = os.environ.get("BIB_CONFIG")
    if found:
        return Path(found)
    return Path(platformdirs.user_config_dir("bib")) / "config.toml"


def load(path: Path | None = None) -> Settings:
    """The settings of `path` (default: `config_path()`), or the defaults without a file."""
    path = path or config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise BibError(f"cannot read settings: {exc.strerror or exc}", path) from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BibError(f"not valid TOML: {exc}", path) from None
    tags: Any = document.get("tags", {})
    if not isinstance(tags, dict):
        raise BibError("[tags] must be a table", path)
    with_parents = tags.get("with_parents", False)
    if not isinstance(with_parents, bool):
        raise BibError("tags.with_parents must be true or false", path)
    return Settings(with_parents=with_parents)
