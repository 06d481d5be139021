"""`bib library copy`: move a whole library between SQLite files and PostgreSQL databases."""

from __future__ import annotations

import json
from pathlib import Path

import click

from annotations import is_url, open_store
from annotations.copy import copy_library
from bib.errors import BibError


@click.group("library")
def library_group() -> None:
    """Manage whole libraries: copy one into another, across backends.

    \b
    Examples:
      bib library copy ~/.local/share/bib/library.sqlite postgresql://me@db.lab/papers
      bib library copy postgresql://me@db.lab/papers team.sqlite
    """


@library_group.command("copy")
@click.argument("source", metavar="SRC")
@click.argument("dest", metavar="DST")
@click.option("--merge", is_flag=True, help="Add to a destination that already has papers.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows copied per table as JSON.")
def copy(source: str, dest: str, merge: bool, as_json: bool) -> None:
    """Copy a whole library (papers, pinned keys and aliases, notes with every revision,
    ratings, status, tags, Zotero sync state) from SRC to DST, each a SQLite file or a
    postgresql:// URL, in one transaction on DST.

    A DST that already holds papers is refused unless --merge, which keeps what DST has
    and adds the rest.

    \b
    Examples:
      bib library copy library.sqlite postgresql://me@db.lab/papers
      bib library copy --merge laptop.sqlite postgresql://me@db.lab/papers
      bib library copy postgresql://me@db.lab/papers snapshot.sqlite --json
    """
    if not is_url(source) and not Path(source).expanduser().is_file():
        raise BibError("no such library file (a copy needs an existing SRC)", source)
    with open_store(source) as src, open_store(dest) as dst:
        report = copy_library(src, dst, merge=merge)
    if as_json:
        click.echo(json.dumps({"copied": report.copied, "skipped": report.skipped}, indent=2))
    else:
        click.echo(
            f"copied {report.copied['records']} papers and {report.copied['notes']} notes"
            + (f" ({sum(report.skipped.values())} rows already there)" if merge else "")
        )
