"""Commands start at once: `bib` loads a command's module only when that command runs."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from bib.cli import COMMANDS, LazyCommand, main

HEAVY = ("jsonschema", "bibtexparser", "rich", "pylatexenc", "ahocorasick", "importlib.metadata")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split())


def test_import_of_the_cli_loads_no_heavy_module() -> None:
    loaded = _modules_after("import bib.cli")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_top_level_help_loads_no_command_module() -> None:
    loaded = _modules_after(
        "from bib.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert not {name for name in loaded if name.startswith("bib.cli.")}
    assert not loaded & set(HEAVY)


@pytest.mark.parametrize("row", COMMANDS, ids=[row.name for row in COMMANDS])
def test_every_listed_command_loads_under_its_name(row: LazyCommand) -> None:
    command = main.get_command(click.Context(main), row.name)
    assert isinstance(command, click.Command)
    assert command.name == row.name


def test_unknown_command_is_one_error_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bib", "nonsense"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("bib: error: ")
