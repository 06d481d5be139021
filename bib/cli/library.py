"""`bib add`, `show`, `list`, `search`, `rekey`, `rate`, `status`, `tag`, `export`, `backup`:
the library of papers and what the reader adds to them."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import click
from click.shell_completion import CompletionItem

from annotations import MARK, Entry, Filters, Status, Store, open_store
from annotations.store import Reading
from bib.cli import terminal
from bib.cli.options import jobs_option, jobs_or_cores
from bib.errors import BibError
from bib.record import Record

STATUSES = [str(s) for s in Status]
EXPORT_FORMATS = ["bibtex", "biblatex", "csl-json", "ris"]


# Shared by the library and notes commands


def open_library(ctx: click.Context) -> Store:
    """The library chosen by --library / BIB_LIBRARY, behind the backend-neutral interface."""
    obj = ctx.find_root().obj or {}
    return open_store(obj.get("library"))


def complete_key(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Citation keys and aliases for the shell: one indexed query, no record decoded; an
    unreadable library completes nothing rather than print an error into the shell."""
    library = ctx.find_root().params.get("library")
    try:
        with open_store(library) as store:
            return [CompletionItem(key) for key in store.complete_keys(incomplete)]
    except Exception:  # completion must never break the user's shell line
        return []


def on_terminal() -> bool:
    return sys.stdout.isatty()


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


def diagnostic(message: str) -> None:
    click.echo(message, err=True)


def plain_snippet(text: str) -> str:
    """Snippet markers as `[[...]]`, as `bib tags --explain` marks evidence.

    Markdown bold would be ambiguous: the texts searched are markdown themselves.
    """
    return text.replace(MARK[0], "[[").replace(MARK[1], "]]").replace("\n", " ")


def entry_json(entry: Entry, *, full: bool) -> dict[str, Any]:
    record = entry.record
    data: dict[str, Any] = {
        "key": record.key,
        "id": record.id,
        "title": record.title,
        "authors": [a.display for a in record.authors],
        "year": record.year,
        "venue": record.venue,
        "url": record.url,
        "rating": entry.rating,
        "status": str(entry.status),
        "personal_tags": list(entry.personal_tags),
        **({"readings": [reading_json(r) for r in entry.readings]} if entry.readings else {}),
        "tags": [{"kind": str(t.kind), "value": t.value} for t in record.tags],
        "notes": entry.note_count,
        "deleted": entry.deleted,
    }
    if full:
        data["aliases"] = list(entry.aliases)
        data["abstract"] = record.abstract
        data["doi"] = record.doi
        data["added"] = entry.added
        data["updated"] = entry.updated
        data["notes"] = [note_json(n) for n in entry.notes]
        data["deleted_at"] = entry.deleted_at
        data["user_fields"] = list(entry.user_fields)
        data["attachments"] = [dataclasses.asdict(a) for a in entry.attachments]
    return data


def note_json(note: Any) -> dict[str, Any]:
    return {
        "id": note.id,
        "uuid": note.uuid,
        "key": note.key,
        "body": note.body,
        "author": note.author,
        "edited_by": note.edited_by,
        "created": note.created,
        "updated": note.updated,
        "deleted_at": note.deleted_at,
    }


def reading_json(reading: Reading) -> dict[str, Any]:
    return {
        "user": reading.user,
        "rating": reading.rating,
        "status": str(reading.status),
        "updated": reading.updated,
    }


def reader_options(func: Any) -> Any:
    """--user NAME and --all-users: whose rating and reading status to show (and filter)."""
    func = click.option(
        "--all-users",
        is_flag=True,
        help="Show every reader's rating and status, not just one person's.",
    )(func)
    return click.option(
        "--user",
        "user",
        metavar="NAME",
        help="Whose rating and status (default: you: BIB_USER, else the login name).",
    )(func)


def readings_text(readings: Sequence[Reading]) -> str:
    """`alice ***, read; bob reading`: every reader of a paper, for a table cell."""
    return "; ".join(
        f"{r.user} " + ", ".join(filter(None, [stars(r.rating) if r.rating else "", str(r.status)]))
        for r in readings
    )


def print_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """A rich table on a terminal; tab-separated columns, no header, in a pipe."""
    rows = list(rows)
    if not on_terminal():
        for row in rows:
            click.echo("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in row))
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    # the first column (the citation key) is never cut or wrapped: the others give way
    widest = max((len(row[0]) for row in rows if row), default=0)
    for index, header in enumerate(headers):
        if index == 0:
            table.add_column(
                header, no_wrap=True, overflow="ignore", min_width=max(widest, len(header))
            )
        else:
            table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*row)
    console = terminal.console()
    # narrower than a key, the terminal may wrap the line, but the key arrives whole
    console.width = max(console.width, widest + 2 + 2 * (len(headers) - 1))
    console.print(table)


def filter_options(func: Any) -> Any:
    """--tag, --status, --min-rating, --venue: the same selection for list and export."""
    options = [
        click.option(
            "--tag",
            "tags",
            multiple=True,
            help="Extracted or personal tag (repeatable: all must match); a topic matches "
            "the papers tagged with it or any topic below it.",
        ),
        click.option("--status", type=click.Choice(STATUSES), help="Reading status."),
        click.option(
            "--min-rating", type=click.IntRange(1, 5), help="Only papers rated at least N."
        ),
        click.option("--venue", help="Venue, e.g. ICML (case-insensitive)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def make_filters(
    tags: tuple[str, ...], status: str | None, min_rating: int | None, venue: str | None
) -> Filters:
    return Filters(
        tags=tags,
        status=Status(status) if status else None,
        min_rating=min_rating,
        venue=venue,
        below=topics_below(tags),
    )


def topics_below(tags: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each tag that names a topic (by slug, label or synonym) -> that topic and the topics
    below it: `--tag reinforcement-learning` finds the papers tagged `rlvr`."""
    if not tags:
        return {}
    from bib.extract import hierarchy, vocabulary

    shipped = vocabulary.shipped()
    out = {}
    for tag in tags:
        slug = hierarchy.resolve(tag, shipped)
        if slug is not None:
            out[tag] = (slug, *hierarchy.subtree(slug, shipped))
    return out


def stars(rating: int | None) -> str:
    return "*" * rating if rating else "-"


# Commands


@click.command("add")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--venue", help="Venue for paper lists whose header does not name one.")
@click.option("--year", type=int, help="Year for paper lists whose header does not name one.")
@click.option(
    "--from",
    "fmt",
    type=click.Choice(["paperlist", "bibtex", "csl-json"]),
    help="Input format of '-' (standard input), as for convert.",
)
@click.option(
    "--restore", is_flag=True, help="Bring back papers removed with `bib rm` that are imported."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--strict", is_flag=True, help="Treat warnings (undefined @string, repeated key) as errors."
)
@jobs_option
@click.pass_context
def add(
    ctx: click.Context,
    inputs: tuple[str, ...],
    venue: str | None,
    year: int | None,
    fmt: str | None,
    restore: bool,
    as_json: bool,
    strict: bool,
    jobs: int | None,
) -> None:
    """Import paper lists, BibTeX or CSL-JSON into the library.

    Importing again is safe: known papers keep their citation key (pinned when first
    stored) and their notes; changed metadata is updated, and no field is ever emptied.
    A field you edited (`bib edit`, `bib set`) keeps your value; a different imported one
    is reported as a conflict. Papers removed with `bib rm` stay removed unless --restore.
    Everything is stored in one transaction: a failure stores nothing.

    \b
    Examples:
      bib add seeds/
      bib add icml2026.txt --venue ICML --year 2026
      bib add refs.bib zotero-export.json
      bib add --strict refs.bib          # any warning stops with exit 2, nothing stored
      cat list.txt | bib add - --from paperlist --venue NeurIPS --year 2025
      bib add arxiv:2503.22996 https://openreview.net/forum?id=ID doi:10.1234/x
      bib add big-list.txt --jobs 4      # worker processes for a large input
    """
    from annotations.latex_source import with_file_preambles
    from annotations.records import assign_keys
    from bib import convert as engine
    from bib.cli.resolve import identifier_records

    paths, fetched = identifier_records(inputs)
    records = (
        engine.load(
            paths,
            engine.ConvertOptions(
                source_format=fmt,
                venue=venue,
                year=year,
                report=lambda m: diagnostic(f"bib: {m}"),
                strict=strict,
                jobs=jobs_or_cores(jobs),
            ),
        )
        if paths
        else []
    )
    records = with_file_preambles(records) + fetched
    with open_library(ctx) as store:
        records = read_back(store, records)
        report = store.upsert(assign_keys(store, records), restore=restore)
    if as_json:
        echo_json(dataclasses.asdict(report))
        return
    for key in report.new:
        click.echo(f"new\t{key}")
    for key in report.updated:
        click.echo(f"updated\t{key}")
    for key in report.restored:
        click.echo(f"restored\t{key}")
    for conflict in report.conflicts:
        diagnostic(
            f"bib: conflict: {conflict.key}: you edited {conflict.field}; kept yours "
            f"({conflict.ours!r}), the import has {conflict.theirs!r}"
        )
    if report.removed:
        diagnostic(
            f"bib: {len(report.removed)} removed papers left removed (--restore brings them "
            "back): " + ", ".join(report.removed)
        )
    diagnostic(
        f"{len(report.new)} new, {len(report.updated)} updated, {len(report.unchanged)} unchanged"
    )


def read_back(store: Store, records: list[Record]) -> list[Record]:
    """The records read back from our own export as the stored ones they were written
    from (`roundtrip.read_back`), found by id, or by key when their abstract-made id
    changed with the rendering."""
    from bib.readers import roundtrip

    pinned = store.pinned_keys()
    by_key = {key.casefold(): record_id for record_id, key in pinned.items()}
    out = []
    for record in records:
        record_id = record.id if record.id in pinned else by_key.get(record.key.casefold())
        if record_id is None:
            out.append(record)
            continue
        out.append(roundtrip.read_back(record, store.resolve(pinned[record_id])))
    return out


@click.command("show")
@click.argument("key", shell_complete=complete_key)
@reader_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def show(ctx: click.Context, key: str, user: str | None, all_users: bool, as_json: bool) -> None:
    """Show a paper with its tags, rating, status and notes (with their authors).

    Rating and status are yours; --user NAME shows another reader's, --all-users
    everyone's.

    \b
    Examples:
      bib show usmoe2026
      bib show usmoe2026 --all-users
      bib show usmoe2026 --user alice --json | jq .notes
    """
    with open_library(ctx) as store:
        entry = store.entry(key, user=user)
        whose = user or store.user
    if not all_users:
        entry = dataclasses.replace(entry, readings=())
    if as_json:
        echo_json({**entry_json(entry, full=True), "user": whose})
        return
    from bib.resolve.provenance import provenance_of

    record = entry.record
    lines = [f"{record.key}: {record.title}" + (" (derived title)" if record.title_derived else "")]
    if record.authors:
        lines.append("authors:  " + "; ".join(a.display for a in record.authors))
    lines.append(f"venue:    {' '.join(filter(None, [record.venue, str(record.year or '')]))}")
    if record.url:
        lines.append(f"url:      {record.url}")
    if resolved := provenance_of(record.note):
        lines.append(f"resolved: {resolved}")
    if all_users:
        for reading in entry.readings or ():
            lines.append(f"reader:   {readings_text([reading])}")
        if not entry.readings:
            lines.append("reader:   - (nobody has rated it or set a status)")
    else:
        lines.append(f"rating:   {stars(entry.rating)}" + (f" ({user})" if user else ""))
        lines.append(f"status:   {entry.status}" + (f" ({user})" if user else ""))
    lines.append(f"my tags:  {', '.join(entry.personal_tags) or '-'}")
    if record.tags:
        lines.append("tags:     " + ", ".join(f"{t.value} ({t.kind})" for t in record.tags))
    if entry.aliases:
        lines.append(f"aliases:  {', '.join(entry.aliases)}")
    for attachment in entry.attachments:
        lines.append(f"file:     {attachment.path}" + (" (copy)" if attachment.copied else ""))
    if entry.user_fields:
        lines.append(f"edited:   {', '.join(entry.user_fields)}")
    if entry.deleted:
        lines.append(f"removed:  {entry.deleted_at} (`bib restore {record.key}` brings it back)")
    if record.abstract:
        lines += ["", record.abstract]
    for note in entry.notes:
        by = f" by {note.author}" if note.author else ""
        lines += ["", f"--- note {note.id}{by} ({note.updated})", note.body.rstrip()]
    click.echo("\n".join(lines))


@click.command("list")
@filter_options
@reader_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def list_(
    ctx: click.Context,
    tags: tuple[str, ...],
    status: str | None,
    min_rating: int | None,
    venue: str | None,
    user: str | None,
    all_users: bool,
    as_json: bool,
) -> None:
    """List the papers in the library, optionally filtered.

    Rating and status (and --status, --min-rating) are yours; --user NAME shows and
    filters another reader's; --all-users adds a column with every reader's.

    \b
    Examples:
      bib list
      bib list --tag mixture-of-experts --status to-read
      bib list --min-rating 4 --venue ICML --json
      bib list --user alice --status read
      bib list --all-users
    """
    with open_library(ctx) as store:
        entries = store.entries(
            make_filters(tags, status, min_rating, venue), user=user, all_users=all_users
        )
    if as_json:
        echo_json([entry_json(e, full=False) for e in entries])
        return
    if all_users:
        print_table(
            ["key", "year", "venue", "readers", "notes", "my tags", "title"],
            (
                [
                    e.record.key,
                    str(e.record.year or ""),
                    e.record.venue,
                    readings_text(e.readings) or "-",
                    str(e.note_count),
                    ",".join(e.personal_tags),
                    e.record.title,
                ]
                for e in entries
            ),
        )
        return
    print_table(
        ["key", "year", "venue", "rating", "status", "notes", "my tags", "title"],
        (
            [
                e.record.key,
                str(e.record.year or ""),
                e.record.venue,
                stars(e.rating),
                str(e.status),
                str(e.note_count),
                ",".join(e.personal_tags),
                e.record.title,
            ]
            for e in entries
        ),
    )


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option(
    "--limit", type=click.IntRange(1), default=20, show_default=True, help="Most results."
)
@click.option(
    "--fts", "raw", is_flag=True, help='QUERY is FTS5 syntax (OR, NEAR, column:, "phrases").'
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
def search(
    ctx: click.Context, query: tuple[str, ...], limit: int, raw: bool, as_json: bool
) -> None:
    """Search titles, abstracts, tags and notes; best matches first.

    Every word must occur (`word*` matches a prefix). A query that names a topic (its
    slug, label or a synonym) also finds the papers tagged with any topic below it
    (`bib search reinforcement learning` finds the `rlvr` papers). With --fts the query is
    SQLite FTS5 syntax; a malformed one is reported as bad usage.

    \b
    Examples:
      bib search mixture of experts
      bib search "rout*" --limit 5
      bib search --fts 'title:judge OR "linear programming"' --json
    """
    text = " ".join(query)
    below = {} if raw else topics_below([text])
    with open_library(ctx) as store:
        hits = store.search(text, limit=limit, raw=raw, also=below.get(text, ()))
    if as_json:
        echo_json(
            [
                {
                    "key": h.key,
                    "title": h.title,
                    "score": h.score,
                    "snippets": [{"field": f, "text": plain_snippet(t)} for f, t in h.snippets],
                }
                for h in hits
            ]
        )
        return
    if not hits:
        diagnostic("no matches")
        return
    if on_terminal():
        from rich.markup import escape

        console = terminal.console()
        for hit in hits:
            console.print(f"[bold]{escape(hit.key)}[/bold]  {escape(hit.title)}")
            for name, text in hit.snippets:
                shown = escape(text.replace("\n", " ")).replace(MARK[0], "[bold yellow]")
                console.print(f"  {name}: " + shown.replace(MARK[1], "[/bold yellow]"))
        return
    for hit in hits:
        click.echo(f"{hit.key}\t{hit.title}")
        for name, text in hit.snippets:
            click.echo(f"  {name}: {plain_snippet(text)}")


@click.command("rekey")
@click.argument("old", shell_complete=complete_key)
@click.argument("new")
@click.pass_context
def rekey(ctx: click.Context, old: str, new: str) -> None:
    """Change a paper's citation key on purpose; the old key keeps resolving.

    \b
    Examples:
      bib rekey usmoe2026 nguyen2026usmoe
    """
    with open_library(ctx) as store:
        record = store.rekey(old, new)
    click.echo(f"{old} -> {record.key}")


@click.command("rate")
@click.argument("key", shell_complete=complete_key)
@click.argument("rating", type=click.IntRange(1, 5), required=False)
@click.option("--clear", is_flag=True, help="Remove the rating.")
@click.pass_context
def rate(ctx: click.Context, key: str, rating: int | None, clear: bool) -> None:
    """Rate a paper from 1 to 5 (exported as JabRef's `ranking`).

    \b
    Examples:
      bib rate usmoe2026 4
      bib rate usmoe2026 --clear
    """
    if clear == (rating is not None):
        raise BibError("give a rating from 1 to 5, or --clear")
    with open_library(ctx) as store:
        entry = store.rate(key, None if clear else rating)
    click.echo(f"{entry.record.key}\t{stars(entry.rating)}")


@click.command("status")
@click.argument("key", shell_complete=complete_key)
@click.argument("status", type=click.Choice(STATUSES))
@click.pass_context
def status(ctx: click.Context, key: str, status: str) -> None:
    """Set a paper's reading status.

    \b
    Examples:
      bib status usmoe2026 to-read
      bib status usmoe2026 read
    """
    with open_library(ctx) as store:
        entry = store.set_status(key, Status(status))
    click.echo(f"{entry.record.key}\t{entry.status}")


@click.command(
    "tag", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.argument("key", shell_complete=complete_key)
@click.argument("changes", nargs=-1, required=True)
@click.pass_context
def tag(ctx: click.Context, key: str, changes: tuple[str, ...]) -> None:
    """Add (+TAG or TAG) and remove (-TAG) personal tags, kept apart from extracted ones.

    \b
    Examples:
      bib tag usmoe2026 +moe +reread
      bib tag usmoe2026 -reread
      bib tag usmoe2026 -- -h      (a tag that looks like an option)
    """
    add: list[str] = []
    remove: list[str] = []
    for change in changes:
        if change.startswith("-") and len(change) > 1:
            remove.append(change[1:])
        elif change.startswith("+") and len(change) > 1:
            add.append(change[1:])
        elif change not in ("+", "-"):
            add.append(change)
        else:
            raise BibError(f"empty tag in '{change}'")
    with open_library(ctx) as store:
        entry = store.tag(key, add, remove)
    click.echo(f"{entry.record.key}\t{','.join(entry.personal_tags)}")


@click.command("export")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(EXPORT_FORMATS),
    help="Default: from -o's suffix, else bibtex.",
)
@filter_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here (atomically) instead of standard output.",
)
@click.pass_context
def export(
    ctx: click.Context,
    fmt: str | None,
    tags: tuple[str, ...],
    status: str | None,
    min_rating: int | None,
    venue: str | None,
    output: Path | None,
) -> None:
    """Export the library with its annotations.

    \b
    Notes go into BibTeX `annote` / BibLaTeX `annotation` / CSL `note`; the rating into
    JabRef's `ranking` (rank1..rank5); the status into JabRef's `readstatus` (read -> read,
    reading -> skimmed); personal tags into JabRef's `groups`; in CSL-JSON rating, status
    and personal tags go into `custom`. None of them ever goes into keywords.

    \b
    Examples:
      bib export -o library.bib
      bib export -f biblatex --min-rating 4 -o best.bib
      bib export -f csl-json --tag moe > moe.json
    """
    from bib import writers
    from bib.atomic import write_atomic

    if fmt is None:
        fmt = writers.format_for_path(output) if output else "bibtex"
    with open_library(ctx) as store:
        entries = store.entries(make_filters(tags, status, min_rating, venue), full=True)
    text = render_entries(entries, fmt, report=lambda m: diagnostic(f"bib: {m}"))
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)
        diagnostic(f"wrote {len(entries)} records to {output}")


def render_entries(
    entries: Sequence[Entry], fmt: str, *, report: Callable[[str], None] | None = None
) -> str:
    """The export text; `report` gets a warning for each `@string` that records from two
    `.bib` files define differently (written expanded, as `bib convert` does)."""
    from annotations import exchange
    from bib import writers
    from bib.writers import csljson

    if fmt == "csl-json":
        items = [
            exchange.annotate_csl(csljson.item(e.record, writers.DEFAULT_TAG_KINDS), e)
            for e in entries
        ]
        return csljson.dumps(items)
    from annotations.latex_source import preambles_in_source_order

    records = preambles_in_source_order([exchange.annotated_record(e, fmt) for e in entries])
    if report is not None and writers.writer(fmt).header is not None:
        for line in writers.definitions(records).warnings():
            report(line)
    return writers.render(records, fmt)


@click.command("backup")
@click.argument("dest", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def backup(ctx: click.Context, dest: Path) -> None:
    """Write a consistent copy of the library (SQLite backup API), atomically.

    Safe while other bib commands run. Restore by copying the file back or
    pointing --library at it.

    \b
    Examples:
      bib backup ~/backups/library-$(date +%F).sqlite
    """
    with open_library(ctx) as store:
        store.backup(dest)
    diagnostic(f"backed up the library to {dest}")


commands = [add, show, list_, search, rekey, rate, status, tag, export, backup]
