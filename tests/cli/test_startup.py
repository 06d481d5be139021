"""Commands start at once: `bib` loads a command's module only when that command runs."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from bib.cli import COMMANDS, LazyCommand, main
from tests.helpers import modules_after

HEAVY = ("jsonschema", "bibtexparser", "rich", "pylatexenc", "ahocorasick", "importlib.metadata")


def test_import_of_the_cli_loads_no_heavy_module() -> None:
    loaded = modules_after("import bib.cli")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_top_level_help_loads_no_command_module() -> None:
    loaded = modules_after(
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


def test_light_commands_load_neither_subprocess_nor_traceback() -> None:
    """`note add` and `status` import the editor helpers and the error handler; starting a
    process and printing a traceback are only needed to edit and under BIB_DEBUG (2 % of the
    start-up's instructions, the margin to issue 16's 2x target)."""
    loaded = modules_after("import bib.cli, bib.cli.notes, bib.cli.library")
    assert not loaded & {"subprocess", "traceback"}, sorted(loaded & {"subprocess", "traceback"})


def test_opening_a_library_loads_neither_importlib_resources_nor_difflib(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Regression: every light command opens the library, and reading the shipped migrations
    through importlib.resources, with difflib for a rare message, had put `note add` and
    `status` at 2.06x and 2.04x the instructions of `import click` (issue 16: 2x)."""
    library = tmp_path / "library.sqlite"
    loaded = modules_after(
        "from annotations import open_store\n"
        f"with open_store({str(library)!r}) as store:\n"
        "    store.count()\n"
    )
    assert "annotations.sqlite" in loaded
    assert not loaded & {"importlib.resources", "difflib"}, sorted(
        loaded & {"importlib.resources", "difflib"}
    )


def test_a_conversion_to_a_file_loads_neither_jsonschema_bibtexparser_nor_rich(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The main process imports alone, before any worker is forked: jsonschema (checking a
    vocabulary file), bibtexparser (`writers.bibtex.dumps`) and rich (the progress display
    on a terminal) were a fifth of the instructions of converting a small `.bib` (xampl.bib,
    1,479 M -> 1,188 M)."""
    source, target = tmp_path / "a.bib", tmp_path / "b.bib"
    source.write_text("@article{a, title={A Title}, author={Ann Bee}, year={2020}}\n")
    loaded = modules_after(
        "from bib.cli import main\n"
        f"main(['convert', {str(source)!r}, '-o', {str(target)!r}], standalone_mode=False)"
    )
    assert target.exists()
    assert not loaded & {"jsonschema", "bibtexparser", "rich"}


def test_internal_error_under_bib_debug_prints_the_traceback(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The traceback module, imported only when needed, still serves BIB_DEBUG=1."""
    script = (
        "import bib.cli.library\n"
        "def boom(*args, **kwargs):\n"
        "    raise RuntimeError('boom')\n"
        "bib.cli.library.open_store = boom\n"
        "bib.cli.main(['status', 'somekey', 'read'])\n"
    )
    env = {"BIB_DEBUG": "1", "PATH": "/usr/bin:/bin", "BIB_LIBRARY": str(tmp_path / "l.sqlite")}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, env=env
    )
    assert "Traceback (most recent call last)" in result.stderr
    assert "RuntimeError: boom" in result.stderr
    assert "During handling" not in result.stderr  # the handler itself did not fail
    assert result.stderr.splitlines()[-1].startswith("bib: error: internal error: RuntimeError")
