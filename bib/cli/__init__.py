"""The `bib` command line: thin click commands over the library's stages.

Every domain error is caught here, once, and printed as `bib: error: ...` with its exit
status (2 for bad input or usage, 1 for a failed operation); nothing else prints tracebacks.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import click

from bib import __version__
from bib.errors import BibError

COMMAND_MODULES: tuple[str, ...] = (
    "bib.cli.convert",
    "bib.cli.library",
    "bib.cli.notes",
    "bib.cli.resolve",
    "bib.cli.sync",
    "bib.cli.tags",
)
"""One module per command or command group; each exposes `commands`, a list of click commands."""


class BibGroup(click.Group):
    """A group that turns domain errors into one line on standard error and an exit status."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BibError as exc:
            click.echo(f"bib: error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:
            sys.stderr.close()
            ctx.exit(1)


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=BibGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", prog_name="bib")
@click.option(
    "--library",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="BIB_LIBRARY",
    help="The annotation library (SQLite file). Default: the user data directory.",
)
@click.pass_context
def main(ctx: click.Context, library: Path | None) -> None:
    """Turn conference paper lists, BibTeX and CSL-JSON into tagged references,
    keep reading notes in a local library, and sync it to Zotero.

    \b
    Examples:
      bib convert seeds/ -o refs.bib -o refs.json
      bib tags seeds/ --stats
      bib add seeds/ && bib note add usmoe2026 "Read section 3 again"
      bib sync zotero --dry-run
    """
    ctx.obj = {"library": library}


for _name in COMMAND_MODULES:
    for _command in importlib.import_module(_name).commands:
        main.add_command(_command)
