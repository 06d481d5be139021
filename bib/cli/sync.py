"""`bib sync zotero`: push the library's papers, tags and notes to a Zotero library."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from bib.cli import terminal

log = logging.getLogger("bib.zotero")
REQUEST_TIMEOUT = 30.0
LONG_RUN = 100
"""Objects to pull or push from which a progress bar is worth drawing."""


@click.group("sync")
def sync_group() -> None:
    """Sync the library with reference managers.

    \b
    Examples:
      bib sync zotero --dry-run
      bib sync zotero --pull-only          # bring Zotero edits back, write nothing
      bib sync zotero --collection "Reading group"
    """


@sync_group.command("zotero")
@click.option("--dry-run", is_flag=True, help="Read from Zotero and report; write nothing.")
@click.option("--collection", metavar="NAME", help="Put every paper into this collection.")
@click.option(
    "--prefer",
    type=click.Choice(["local", "remote"]),
    default=None,
    help="Which side wins a field changed both here and in Zotero (this run's and the "
    "open ones); without it such a conflict stays open, each side keeping its value.",
)
@click.option(
    "--endpoint",
    default="https://api.zotero.org",
    show_default=True,
    envvar="ZOTERO_ENDPOINT",
    help="Zotero Web API base URL (self-hosted servers, tests).",
)
@click.option("--library-id", metavar="ID", help="Default: ZOTERO_LIBRARY_ID or the keyring.")
@click.option(
    "--library-type",
    type=click.Choice(["user", "group"]),
    help="Default: ZOTERO_LIBRARY_TYPE, else user.",
)
@click.option(
    "--recreate-deleted",
    "--restore",
    "recreate_deleted",
    is_flag=True,
    help="Push again papers that were trashed or deleted in Zotero (under a new key).",
)
@click.option(
    "--tag-prefix",
    default="/",
    show_default=True,
    help="Prefix of the reading-status and rating tags (/unread, /rating:4).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=600.0,
    show_default=True,
    help="Seconds the whole run may take (each request also times out after 30 s at most).",
)
@click.option("--push-only", is_flag=True, help="Only push; bring nothing back from Zotero.")
@click.option("--pull-only", is_flag=True, help="Only pull; write nothing to Zotero.")
@click.option("--force", is_flag=True, help="Apply a pull even if it marks many papers deleted.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
def zotero(
    ctx: click.Context,
    dry_run: bool,
    collection: str | None,
    prefer: str,
    endpoint: str,
    library_id: str | None,
    library_type: str | None,
    recreate_deleted: bool,
    tag_prefix: str,
    timeout: float,
    push_only: bool,
    pull_only: bool,
    force: bool,
    as_json: bool,
) -> None:
    """Pull what changed in Zotero, then push every paper with its tags, notes, rating and status.

    Incremental and idempotent: only what changed since the last sync is written, and a
    paper is never created twice, even after a crash or a lost response. A field edited
    both here and in Zotero is a conflict; --prefer decides which side wins, and every
    conflict is reported and, without --prefer, left open (each side keeps its value, the
    next run lists it again) until --prefer local|remote settles it. Papers deleted in
    Zotero stay deleted unless --recreate-deleted.

    The API key comes from ZOTERO_API_KEY or the system keyring (service bib-zotero);
    the library from ZOTERO_LIBRARY_ID / ZOTERO_LIBRARY_TYPE or the options. Exit status
    0 when nothing failed, 1 when something did, 2 for bad usage (no API key).

    \b
    Examples:
      export ZOTERO_API_KEY=...  ZOTERO_LIBRARY_ID=1234567
      bib sync zotero --dry-run
      bib sync zotero --pull-only          # bring Zotero edits back, write nothing
      bib sync zotero
      bib sync zotero --json | jq .open_conflicts   # conflicts left open
      bib sync zotero --prefer local        # settle them: our values win
      bib sync zotero --library-type group --library-id 98765 --collection "Lab reading"
    """
    from annotations import open_store
    from annotations.sync_state import SyncState
    from bib.zotero import library, mapping, pull, sync
    from bib.zotero.client import ZoteroClient, check_endpoint, load_credentials

    endpoint = check_endpoint(endpoint)
    credentials = load_credentials(library_id=library_id, library_type=library_type)
    client = ZoteroClient(
        credentials,
        endpoint=endpoint,
        timeout=min(REQUEST_TIMEOUT, timeout),
        run_timeout=timeout,
        notice=_notice,
    )
    options = sync.SyncOptions(
        prefer=prefer,  # type: ignore[arg-type]
        collection=collection,
        recreate_deleted=recreate_deleted,
        dry_run=dry_run,
        mapping=mapping.Options(tag_prefix=tag_prefix),
    )
    name = sync.library_id(endpoint, credentials.library_type, credentials.library_id)
    try:
        with open_store(ctx.obj.get("library") if ctx.obj else None) as store:
            state = SyncState(store, name)
            pulled = None
            if not push_only:
                with _progress("Pulling from Zotero") as progress:
                    pulled = pull.Puller(
                        store,
                        client,
                        state,
                        prefer=prefer,  # type: ignore[arg-type]
                        force=force,
                        tag_prefix=tag_prefix,
                        dry_run=dry_run,
                    ).run(progress)
            papers = library.papers(store)
            report = sync.Report(dry_run=dry_run)
            if not pull_only:
                remote = pulled.remote if pulled is not None else None
                with _progress("Pushing to Zotero") as progress:
                    report = sync.sync(papers, client, state, options, progress, remote)
            if pulled is not None and not dry_run and report.ok:
                state.set_library_version(pulled.library_version)
            still_open = _open_conflicts(store, state)
    finally:
        client.close()
    _print(report, pulled, still_open, as_json)
    if not report.ok:
        ctx.exit(1)


def _notice(message: str) -> None:
    """Retries and waits, as they happen, on standard error (never on standard output)."""
    click.echo(message, err=True)


@contextmanager
def _progress(what: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on standard error, only on a terminal and only once a run has
    LONG_RUN objects to go; never when standard error is piped. Retry notices written
    meanwhile go above the bar (rich redirects standard error while it is live)."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.progress import Progress

    with Progress(console=terminal.console(stderr=True), transient=True) as bar:
        task = None

        def update(done: int, total: int) -> None:
            nonlocal task
            if task is None and total >= LONG_RUN:
                task = bar.add_task(what, total=total)
            if task is not None:
                bar.update(task, completed=done, total=total)

        yield update


def _open_conflicts(store: Any, state: Any) -> list[dict[str, Any]]:
    """The conflicts left open after the run, named by citation key, both values shown."""
    from annotations import Filters

    conflicts = state.conflicts()
    if not conflicts:
        return []
    cites = {e.record.id: e.record.key for e in store.entries(Filters(deleted=None))}
    notes = {n.uuid: n for n in store.notes(include_deleted=True)}
    out = []
    for c in conflicts.values():
        if c.kind == "note":
            note = notes.get(c.local_id)
            cite, what = (note.key, f"note {note.id}") if note else ("?", f"note {c.local_id}")
        else:
            cite, what = cites.get(c.local_id, c.local_id), "item"
        out.append(
            {
                "citation_key": cite,
                "what": what,
                "field": c.field,
                "local": c.local,
                "remote": c.remote,
            }
        )
    return out


def _print(report: object, pulled: object, still_open: list[dict[str, Any]], as_json: bool) -> None:
    from bib.zotero.pull import PullReport
    from bib.zotero.sync import Report

    assert isinstance(report, Report)
    assert pulled is None or isinstance(pulled, PullReport)
    if as_json:
        out = report.as_dict()
        out["pulled"] = pulled.as_dict() if pulled is not None else None
        out["open_conflicts"] = still_open
        click.echo(json.dumps(out, indent=2, ensure_ascii=False))
        return
    if pulled is not None:
        for clash in pulled.conflicts:
            if clash.kept != "open":
                where = f"{clash.citation_key}\t{clash.what}\t{clash.field}"
                click.echo(f"conflict\t{where}\tkept {clash.kept}")
        for key in pulled.deleted_in_zotero:
            click.echo(f"deleted\t{key}\tdeleted or trashed in Zotero; kept here")
        for cite, name in pulled.cleared:
            click.echo(f"cleared\t{cite}\t{name}\temptied in Zotero")
        for move in pulled.moved:
            into = ", ".join(move.added) or "-"
            out_of = ", ".join(move.removed) or "-"
            click.echo(f"moved\t{move.citation_key}\tinto: {into}\tout of: {out_of}")
        click.echo(
            f"pulled: {len(pulled.updated)} updated, {len(pulled.imported)} imported, "
            f"{pulled.notes_added} notes added, {pulled.notes_revised} notes revised, "
            f"{len(pulled.deleted_in_zotero)} deleted in Zotero"
        )
    for conflict in report.conflicts:
        if conflict.kept == "open" and not report.dry_run:
            continue  # listed below with the other open ones
        click.echo(
            f"conflict\t{conflict.citation_key}\t{conflict.what}\t{conflict.field}\t"
            f"kept {conflict.kept}"
        )
    for c in still_open:
        click.echo(
            f"conflict\t{c['citation_key']}\t{c['what']}\t{c['field']}\topen: "
            f"here {_short(c['local'])}, in Zotero {_short(c['remote'])}"
        )
    for failure in report.failures:
        click.echo(f"failed\t{failure.citation_key}\t{failure.what}\t{failure.message}")
    for key in report.deleted_in_zotero:
        click.echo(f"skipped\t{key}\tdeleted in Zotero (use --recreate-deleted)")
    for item_type, fields in report.dropped_fields.items():
        click.echo(
            f"bib: note: the server has no {', '.join(fields)} for {item_type}; left out",
            err=True,
        )
    prefix = "would be " if report.dry_run else ""
    met = len(report.conflicts) + (len(pulled.conflicts) if pulled is not None else 0)
    c, u, n = report.created, report.updated, report.unchanged
    click.echo(
        f"{prefix}created: {c['item']} items, {c['note']} notes, {c['collection']} collections; "
        f"{prefix}updated: {u['item']} items, {u['note']} notes; "
        f"unchanged: {n['item']} items, {n['note']} notes; "
        f"{prefix}deleted: {report.deleted['note']} notes; "
        f"conflicts: {met}; open: {len(still_open)}; "
        f"failed: {len(report.failures)}"
    )
    if still_open:
        click.echo(
            f"bib: note: {len(still_open)} conflicts left open; "
            "--prefer local or --prefer remote settles them",
            err=True,
        )


def _short(value: Any, width: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


commands = [sync_group]
