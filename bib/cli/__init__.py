"""The `bib` command line: thin click commands over the library's stages.

Every domain error is caught here, once, and printed as `bib: error: ...` with its exit
status (2 for bad input or usage, 1 for a failed operation); nothing else prints tracebacks.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click
from click.shell_completion import CompletionItem

from bib import __version__, failures


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """A command known by name and one-line help, imported only when it runs (or is asked for
    its own `--help`), so that `bib --help` and light commands start at once."""

    name: str
    module: str
    attr: str
    help: str


COMMANDS: tuple[LazyCommand, ...] = (
    LazyCommand(
        "add", "bib.cli.library", "add", "Import paper lists, BibTeX or CSL-JSON into the library."
    ),
    LazyCommand("backup", "bib.cli.library", "backup", "Write a consistent copy of the library."),
    LazyCommand(
        "convert",
        "bib.cli.convert",
        "convert",
        "Convert paper lists, BibTeX and CSL-JSON into BibTeX, BibLaTeX or CSL-JSON.",
    ),
    LazyCommand("attach", "bib.cli.records", "attach", "Record a local file (a PDF) of a paper."),
    LazyCommand("edit", "bib.cli.records", "edit", "Edit a record in $EDITOR (a new revision)."),
    LazyCommand("export", "bib.cli.library", "export", "Export the library with its annotations."),
    LazyCommand("history", "bib.cli.records", "history", "Show every version a record has had."),
    LazyCommand(
        "library", "bib.cli.team", "library_group", "Copy a whole library between backends."
    ),
    LazyCommand(
        "list", "bib.cli.library", "list_", "List the papers in the library, optionally filtered."
    ),
    LazyCommand("note", "bib.cli.notes", "note", "Write, list, edit and delete notes on a paper."),
    LazyCommand("notes", "bib.cli.notes", "notes", "Export all notes or import a JSON export."),
    LazyCommand("open", "bib.cli.records", "open_", "Open a paper's PDF, DOI, arXiv page or URL."),
    LazyCommand("rate", "bib.cli.library", "rate", "Rate a paper from 1 to 5."),
    LazyCommand(
        "rekey",
        "bib.cli.library",
        "rekey",
        "Change a paper's citation key; the old key stays an alias.",
    ),
    LazyCommand(
        "resolve",
        "bib.cli.resolve",
        "resolve",
        "Find real titles, authors and ids on OpenReview, arXiv, Semantic Scholar.",
    ),
    LazyCommand(
        "restore", "bib.cli.records", "restore", "Bring back papers removed with `bib rm`."
    ),
    LazyCommand(
        "revert", "bib.cli.records", "revert", "Make an earlier version of a record current."
    ),
    LazyCommand("rm", "bib.cli.records", "rm", "Remove papers (softly; --purge for good)."),
    LazyCommand(
        "search",
        "bib.cli.library",
        "search",
        "Search titles, abstracts, tags and notes; best matches first.",
    ),
    LazyCommand(
        "show", "bib.cli.library", "show", "Show a paper with its tags, rating, status and notes."
    ),
    LazyCommand("set", "bib.cli.records", "set_", "Set fields of a record: FIELD=VALUE ..."),
    LazyCommand("status", "bib.cli.library", "status", "Set a paper's reading status."),
    LazyCommand("sync", "bib.cli.sync", "sync_group", "Sync the library with reference managers."),
    LazyCommand("tag", "bib.cli.library", "tag", "Add (+TAG) and remove (-TAG) personal tags."),
    LazyCommand(
        "tags", "bib.cli.tags", "tags_command", "Show the tags extracted from each record."
    ),
)
"""Every command: one row here and one click command in its module. A new command is one row."""

_BY_NAME = {command.name: command for command in COMMANDS}


class BibGroup(click.Group):
    """The top group: commands load lazily from `COMMANDS`; domain errors become one line on
    standard error and an exit status."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_BY_NAME)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = _BY_NAME.get(cmd_name)
        if entry is None:
            return None
        command = getattr(importlib.import_module(entry.module), entry.attr)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table, without importing a command module."""
        with formatter.section("Commands"):
            formatter.write_dl([(command.name, command.help) for command in COMMANDS])

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Command names from the table; options as click completes them."""
        if incomplete and not incomplete.startswith("-"):
            return [
                CompletionItem(command.name, help=command.help)
                for command in COMMANDS
                if command.name.startswith(incomplete)
            ]
        return super().shell_complete(ctx, incomplete)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.Abort, click.ClickException):
            raise
        except BrokenPipeError:
            _broken_pipe()
            ctx.exit(1)
        except Exception as exc:
            if failures.debug():
                import traceback  # only with BIB_DEBUG: it costs every command's start-up

                traceback.print_exc()
            failure = failures.describe(exc)
            click.echo(f"bib: error: {failure.message}", err=True)
            ctx.exit(failure.exit_code)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """click's own messages (usage, an editor that failed) as one `bib: error:` line too."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            result = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            click.echo(f"bib: error: {exc.format_message()}{hint}", err=True)
            sys.exit(2)
        except click.ClickException as exc:
            click.echo(f"bib: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code if exc.exit_code != 1 else 1)
        except click.Abort:
            click.echo("bib: error: aborted", err=True)
            sys.exit(1)
        try:
            sys.stdout.flush()  # what is still buffered fails here, not silently at exit
        except BrokenPipeError:
            _broken_pipe()
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)


def _broken_pipe() -> None:
    """The reader of standard output went away (`bib list | head -1`): one line, exit 1, as
    for every failed operation; nothing more is written to the pipe."""
    _quiet_stdout()
    click.echo(
        "bib: error: standard output was closed before everything was written (broken pipe)",
        err=True,
    )


def _quiet_stdout() -> None:
    """After the reader of standard output went away: nothing more to flush there."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`bib --version`: the version and the extractors' build (`bib.native`), which a
    bug report needs, since the compiled build runs the same sources faster."""
    if not value or ctx.resilient_parsing:
        return
    from bib import native

    click.echo(f"bib, version {__version__}\nextractors: {native.build().reason}")
    ctx.exit()


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=BibGroup, context_settings=CONTEXT_SETTINGS)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version, and whether the extractors run compiled, and exit.",
)
@click.option(
    "--library",
    metavar="PATH|URL",
    envvar="BIB_LIBRARY",
    help="The library: a SQLite file, or a team library at postgresql://user@host/db. "
    "Default: library.sqlite in the user data directory.",
)
@click.pass_context
def main(ctx: click.Context, library: str | None) -> None:
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
