"""`bib note ...` (one note at a time) and `bib notes export|import` (all of them)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from annotations.rows import replaced_meanwhile
from bib.atomic import write_all, write_atomic
from bib.cli.editor import edit as run_editor
from bib.cli.editor import read_stdin
from bib.cli.library import (
    complete_key,
    diagnostic,
    echo_json,
    filter_options,
    make_filters,
    note_json,
    open_library,
    print_table,
)
from bib.errors import BibError


def note_text(text: str | None, *, current: str = "") -> str | None:
    """TEXT itself, standard input for `-`, or the user's $EDITOR when absent (None when
    the editor was closed without saving)."""
    if text == "-":
        return read_stdin()
    if text is not None:
        return text
    return run_editor(current, suffix=".md")


@click.group("note")
def note() -> None:
    """Write, list, edit and delete notes on a paper (markdown; every edit is kept).

    \b
    Examples:
      bib note add usmoe2026 "Routing as an LP: compare with BASE layers"
      bib note list usmoe2026
      bib note edit 12
      bib note history 12
    """


@note.command("add")
@click.argument("key", shell_complete=complete_key)
@click.argument("text", required=False)
@click.pass_context
def note_add(ctx: click.Context, key: str, text: str | None) -> None:
    """Add a note to a paper: TEXT, `-` to read standard input, or $EDITOR when absent.

    \b
    Examples:
      bib note add usmoe2026 "Read section 3 again"
      pbpaste | bib note add usmoe2026 -
      bib note add usmoe2026            (opens $EDITOR)
    """
    body = note_text(text)
    if body is None:
        raise BibError("empty note: nothing saved (the editor was closed without saving)")
    with open_library(ctx) as store:
        added = store.add_note(key, body)
    click.echo(added.id)
    diagnostic(f"added note {added.id} to {added.key}")


@note.command("list")
@click.argument("key", required=False, shell_complete=complete_key)
@click.option("--deleted", is_flag=True, help="Include deleted notes.")
@click.option("--user", "author", metavar="NAME", help="Only the notes NAME wrote.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def note_list(
    ctx: click.Context, key: str | None, deleted: bool, author: str | None, as_json: bool
) -> None:
    """List notes with their authors, of one paper or of the whole library.

    \b
    Examples:
      bib note list
      bib note list usmoe2026 --json
      bib note list --user alice
    """
    with open_library(ctx) as store:
        notes = store.notes(key, include_deleted=deleted, author=author)
    if as_json:
        echo_json([note_json(n) for n in notes])
        return
    print_table(
        ["id", "key", "author", "updated", "note"],
        (
            [
                str(n.id) + (" (deleted)" if n.deleted else ""),
                n.key,
                n.author or "-",
                n.updated[:16].replace("T", " "),
                n.body.strip().splitlines()[0][:80],
            ]
            for n in notes
        ),
    )


@note.command("edit")
@click.argument("note_id", type=int)
@click.argument("text", required=False)
@click.pass_context
def note_edit(ctx: click.Context, note_id: int, text: str | None) -> None:
    """Replace a note's text (TEXT, `-` for standard input, or $EDITOR); the old text is kept.

    \b
    Examples:
      bib note edit 12
      bib note edit 12 "Section 3 is the key part"
    """
    with open_library(ctx) as store:
        current = store.note(note_id)
        if current.deleted:
            raise BibError(f"note {note_id} is deleted; `bib note restore {note_id}` first")
        body = note_text(text, current=current.body)
        if body is None:
            diagnostic(f"note {note_id}: unchanged (the editor was closed without saving)")
            return
        edited = store.edit_note(note_id, body)
        other = replaced_meanwhile(store.history(note_id), current, edited)
    if other is not None:
        diagnostic(
            f"bib: note {note_id} changed while you were editing (by {other.author or 'someone'}"
            f" at {other.created}); your text is saved and theirs is kept in "
            f"`bib note history {note_id}`"
        )
    diagnostic(f"note {edited.id}: " + ("unchanged" if edited == current else "saved"))


@note.command("rm")
@click.argument("note_id", type=int)
@click.pass_context
def note_rm(ctx: click.Context, note_id: int) -> None:
    """Delete a note (softly: `bib note restore` brings it back).

    \b
    Examples:
      bib note rm 12
    """
    with open_library(ctx) as store:
        store.delete_note(note_id)
    diagnostic(f"deleted note {note_id} (restore with `bib note restore {note_id}`)")


@note.command("restore")
@click.argument("note_id", type=int)
@click.pass_context
def note_restore(ctx: click.Context, note_id: int) -> None:
    """Bring back a deleted note.

    \b
    Examples:
      bib note restore 12
    """
    with open_library(ctx) as store:
        store.restore_note(note_id)
    diagnostic(f"restored note {note_id}")


@note.command("history")
@click.argument("note_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def note_history(ctx: click.Context, note_id: int, as_json: bool) -> None:
    """Show every text a note has had, oldest first, the current one last.

    \b
    Examples:
      bib note history 12
      bib note history 12 --json
    """
    with open_library(ctx) as store:
        current = store.note(note_id)
        revisions = store.history(note_id)
    versions = [
        {"body": r.body, "author": r.author, "written": r.created, "replaced": r.replaced}
        for r in revisions
    ] + [
        {
            "body": current.body,
            "author": current.edited_by or current.author,
            "written": current.updated,
            "replaced": None,
        }
    ]
    if as_json:
        echo_json({"note": note_json(current), "versions": versions})
        return
    for number, version in enumerate(versions, 1):
        label = "current" if version["replaced"] is None else f"replaced {version['replaced']}"
        by = f" by {version['author']}" if version["author"] else ""
        click.echo(f"--- version {number}, written {version['written']}{by} ({label})")
        click.echo(str(version["body"]).rstrip())


@click.group("notes")
def notes() -> None:
    """Export all notes (markdown for Obsidian, JSON, W3C annotations) or import a JSON export.

    \b
    Examples:
      bib notes export -f markdown ~/vault/papers
      bib notes export -f json notes.json
      bib notes import notes.json
    """


@notes.command("export")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json", "w3c"]),
    required=True,
    help="markdown: one file per paper in DEST (a directory); json, w3c: one file.",
)
@filter_options
@click.option(
    "--force", is_flag=True, help="markdown: overwrite files edited since the last export."
)
@click.argument("dest")
@click.pass_context
def notes_export(
    ctx: click.Context,
    fmt: str,
    force: bool,
    tags: tuple[str, ...],
    status: str | None,
    min_rating: int | None,
    venue: str | None,
    dest: str,
) -> None:
    """Export the notes, ratings, status and personal tags of every annotated paper.

    \b
    markdown: DEST/KEY.md with YAML front matter (key, title, authors, year, venue,
              tags, rating, status), ready for an Obsidian vault. A file you edited
              since bib wrote it is kept (and named) unless --force.
    json:     the lossless exchange file (schema/annotations.schema.json), with every
              revision and deleted note; `bib notes import` reads it back.
    w3c:      a W3C Web Annotation (JSON-LD) AnnotationCollection.
    DEST `-` writes json or w3c to standard output.

    \b
    Examples:
      bib notes export -f markdown ~/vault/papers
      bib notes export -f json notes-$(date +%F).json
      bib notes export -f w3c - --tag moe
    """
    from annotations import exchange

    with open_library(ctx) as store:
        filters = make_filters(tags, status, min_rating, venue)
        if fmt == "json":  # the lossless backup keeps the notes of removed papers too
            filters = dataclasses.replace(filters, deleted=None)
        data = store.dump_annotations(filters)
    if fmt == "markdown":
        if dest == "-":
            raise BibError("markdown export needs a directory, not `-`")
        plan = exchange.markdown_plan(
            exchange.markdown_files(data), lambda name: _existing(Path(dest) / name), force=force
        )
        write_all({Path(dest) / name: text for name, text in plan.write.items()})
        diagnostic(f"wrote {len(plan.write)} files to {dest}")
        kept = plan.kept
        if kept:
            diagnostic(
                f"kept {len(kept)} files edited since bib wrote them (--force overwrites): "
                + ", ".join(kept)
            )
        return
    if fmt == "json":
        exchange.validate(data, dest)
        text = exchange.dumps(data)
    else:
        text = exchange.dumps(exchange.w3c(data))
    if dest == "-":
        click.echo(text, nl=False)
    else:
        write_atomic(dest, text)
        diagnostic(f"wrote the notes of {len(data['papers'])} papers to {dest}")


@notes.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def notes_import(ctx: click.Context, file: str, as_json: bool) -> None:
    """Merge a `bib notes export -f json` file into the library.

    The file is validated first; an invalid file changes nothing. Notes are matched by
    their uuid, so importing the same file again changes nothing; a newer text replaces
    an older one and the older one is kept as a revision.

    \b
    Examples:
      bib notes import notes.json
    """
    from annotations import exchange

    text = read_stdin() if file == "-" else _read(file)
    data = exchange.read_json(text, file)
    with open_library(ctx) as store:
        report = store.load_annotations(data)
    summary = {
        "papers_added": report.papers_added,
        "notes_added": report.notes_added,
        "notes_updated": report.notes_updated,
        "unchanged": report.unchanged,
    }
    if as_json:
        echo_json(summary)
        return
    click.echo(", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in summary.items()))


def _existing(path: Path) -> str | None:
    """The text of a file a markdown export would replace, None when there is none."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None


def _read(file: str) -> str:
    try:
        return Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BibError("no such file", file) from None
    except UnicodeDecodeError as exc:
        raise BibError(f"not UTF-8 text: {exc.reason}", file) from None


commands = [note, notes]
