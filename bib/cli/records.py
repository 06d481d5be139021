"""`bib edit`, `set`, `history`, `revert`, `rm`, `restore`, `attach`, `open`: the day-to-day
care of the records in the library. The decisions live in `annotations.records`."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import click

from annotations import Store, codec, default_path
from annotations import records as library
from bib.cli.editor import edit as run_editor
from bib.cli.library import complete_key, diagnostic, echo_json, entry_json, open_library
from bib.errors import BibError, OperationError
from bib.record import Record

RETRY = "fix it and save; save it unchanged (or empty) to abandon"

key_argument = click.argument("key", shell_complete=complete_key)
keys_argument = click.argument("keys", nargs=-1, required=True, shell_complete=complete_key)


@click.command("edit")
@key_argument
@click.option("--yaml", "as_yaml", is_flag=True, help="Edit as YAML instead of BibLaTeX.")
@click.pass_context
def edit(ctx: click.Context, key: str, as_yaml: bool) -> None:
    """Edit a record in $VISUAL / $EDITOR; it is stored as a new revision.

    The record opens as one BibLaTeX entry (or YAML with --yaml). A text that does not
    read back opens again with the error at the top; leave it unchanged (or empty) to
    abandon with no change. The fields you change are yours: later imports keep your value
    and report the difference as a conflict. A key change goes through `bib rekey`.

    \b
    Examples:
      bib edit usmoe2026
      EDITOR=nano bib edit usmoe2026 --yaml
    """
    fmt = "yaml" if as_yaml else "biblatex"
    suffix = ".yaml" if as_yaml else ".bib"
    comment = "#" if as_yaml else "%"
    with open_library(ctx) as store:
        stored = store.resolve(key)
        text = library.edit_text(stored, fmt)
        shown, last_bad = text, ""
        while True:
            saved = run_editor(shown, suffix=suffix)
            content = _content(saved or "", comment)
            if saved is None or not content.strip():
                diagnostic(f"{stored.key}: unchanged (nothing saved)")
                return
            try:
                record = library.parse_edit(content, fmt, stored)
                break
            except BibError as exc:
                if content == last_bad:  # saved again unchanged: the user gives up
                    raise BibError(f"nothing saved: {exc}") from None
                last_bad = content
                shown = f"{comment} bib: error: {exc}\n{comment} {RETRY}\n{content}"
        entry = store.edit_record(key, record, origin="edit")
    diagnostic(f"{entry.record.key}: saved ({', '.join(entry.user_fields) or 'no change'})")


def _content(text: str, comment: str) -> str:
    """The text without the error lines `bib edit` put at its top."""
    lines = text.splitlines(keepends=True)
    prefixes = (f"{comment} bib: error:", f"{comment} {RETRY}")
    while lines and lines[0].startswith(prefixes):
        lines.pop(0)
    return "".join(lines)


@click.command("set")
@key_argument
@click.argument("assignments", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
@click.pass_context
def set_(ctx: click.Context, key: str, assignments: tuple[str, ...], as_json: bool) -> None:
    """Set fields of a record, for scripts: FIELD=VALUE ... (an empty VALUE clears it).

    FIELD is title, author (BibTeX `A and B`), year, venue, booktitle, doi, arxiv, url,
    code, abstract, note, type, or any other BibTeX field (volume, pages, ...). Stored as a
    new revision, like `bib edit`.

    \b
    Examples:
      bib set usmoe2026 title="Unified Sparse MoE" year=2026
      bib set usmoe2026 "author=Nguyen, An and Tran, Binh" pages=1--12
    """
    changes = library.parse_assignments(assignments)
    with open_library(ctx) as store:
        record = library.assigned(store.resolve(key), changes)
        entry = store.edit_record(key, record, origin="set")
    if as_json:
        echo_json(entry_json(entry, full=True))
        return
    click.echo(f"{entry.record.key}\t{', '.join(c.field for c in changes)}")


@click.command("history")
@key_argument
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def history(ctx: click.Context, key: str, as_json: bool) -> None:
    """Show every version a record has had, oldest first, the current one last.

    \b
    Examples:
      bib history usmoe2026
      bib history usmoe2026 --json | jq '.[-2].record.title'
    """
    with open_library(ctx) as store:
        versions = store.record_history(key)
    if as_json:
        echo_json([{**dataclasses.asdict(v), "record": codec.to_dict(v.record)} for v in versions])
        return
    previous: Record | None = None
    for version in versions:
        label = (
            "current"
            if not version.replaced
            else f"replaced {version.replaced} by {version.origin}"
        )
        changed = _changed(previous, version.record) if previous else ["(first version)"]
        click.echo(f"{version.number}\t{version.created}\t{label}\t{', '.join(changed) or '-'}")
        previous = version.record


def _changed(before: Record, after: Record) -> list[str]:
    data_before, data_after = codec.to_dict(before), codec.to_dict(after)
    return [
        name
        for name in data_after
        if name not in ("sources", "key", "id") and data_before.get(name) != data_after[name]
    ]


@click.command("revert")
@key_argument
@click.argument("revision", type=click.IntRange(1))
@click.pass_context
def revert(ctx: click.Context, key: str, revision: int) -> None:
    """Make an earlier version (a number from `bib history`) the current one.

    The current version is kept too: a revert is a new revision, and can be reverted.

    \b
    Examples:
      bib history usmoe2026
      bib revert usmoe2026 1
    """
    with open_library(ctx) as store:
        entry = library.revert(store, key, revision)
    diagnostic(f"{entry.record.key}: reverted to version {revision}")


@click.command("rm")
@keys_argument
@click.option("--purge", is_flag=True, help="Delete for good, with notes, ratings and tags.")
@click.option("--yes", is_flag=True, help="With --purge: do not ask for confirmation.")
@click.pass_context
def rm(ctx: click.Context, keys: tuple[str, ...], purge: bool, yes: bool) -> None:
    """Remove papers: hidden from list, search and export, notes and ratings kept.

    `bib restore KEY` brings one back; re-importing does not (unless `bib add --restore`).
    --purge deletes for good after a confirmation (or --yes).

    \b
    Examples:
      bib rm usmoe2026
      bib rm --purge --yes usmoe2026 wrong2025
    """
    with open_library(ctx) as store:
        if not purge:
            done = store.remove(list(keys))
            diagnostic(f"removed {', '.join(done)} (bring back with `bib restore`)")
            return
        current = [store.resolve(k).key for k in keys]
        if not yes:
            if not sys.stdin.isatty():
                raise BibError("--purge deletes for good: confirm with --yes")
            click.confirm(
                f"Delete {', '.join(current)} for good, with their notes?", abort=True, err=True
            )
        done = store.purge(current)
    diagnostic(f"purged {', '.join(done)}")


@click.command("restore")
@keys_argument
@click.pass_context
def restore(ctx: click.Context, keys: tuple[str, ...]) -> None:
    """Bring back papers removed with `bib rm`.

    \b
    Examples:
      bib restore usmoe2026
    """
    with open_library(ctx) as store:
        done = store.restore(list(keys))
    diagnostic(f"restored {', '.join(done)}")


@click.command("attach")
@key_argument
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--copy", is_flag=True, help="Copy the file into the library folder.")
@click.pass_context
def attach(ctx: click.Context, key: str, file: Path, copy: bool) -> None:
    """Record a local file (a PDF) of a paper; `bib open` opens it first.

    The path is kept as given (made absolute); with --copy the file is copied next to the
    library (`files/KEY/`) and that copy is recorded. A team library on PostgreSQL has no
    folder: --copy puts the file in your own data folder (beside the default library).

    \b
    Examples:
      bib attach usmoe2026 ~/Downloads/2601.01234.pdf
      bib attach usmoe2026 paper.pdf --copy
    """
    with open_library(ctx) as store:
        current = store.resolve(key).key
        target = file.resolve()
        if copy:
            folder = files_folder(store) / current
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / file.name
            shutil.copyfile(file, target)
        attached = store.attach(key, str(target), copied=copy)
    click.echo(attached.path)


def files_folder(store: Store) -> Path:
    """Where `attach --copy` puts files: beside a library file, else (a database on a
    server) in the user's own data folder, since a server has no folder to share."""
    if store.path is not None:
        return store.path.parent / "files"
    return default_path().parent / "files"


@click.command("open")
@key_argument
@click.option("--print", "print_", is_flag=True, help="Print the link instead of opening it.")
@click.option("--code", is_flag=True, help="The code link instead of the paper.")
@click.pass_context
def open_(ctx: click.Context, key: str, print_: bool, code: bool) -> None:
    """Open a paper: its PDF attachment, else its DOI, arXiv, OpenReview page or URL.

    \b
    Examples:
      bib open usmoe2026
      bib open usmoe2026 --print
      bib open usmoe2026 --code
    """
    with open_library(ctx) as store:
        target = library.best_target(store.entry(key), code=code)
    if print_:
        click.echo(target.url)
        return
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    if sys.platform == "win32":
        click.launch(target.url)
        return
    try:
        status = subprocess.call([opener, target.url])
    except OSError as exc:
        raise OperationError(f"cannot run {opener}: {exc.strerror}; use --print") from None
    if status != 0:
        raise OperationError(f"{opener} exited with status {status}; use --print")
    diagnostic(f"opened {target.kind}: {target.url}")


commands = [edit, set_, history, revert, rm, restore, attach, open_]
