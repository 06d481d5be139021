"""`bib resolve`: real titles, authors and ids for library records, from OpenReview, arXiv
and Semantic Scholar; and the identifier forms `bib add` accepts (`arxiv:ID`, `doi:...`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from bib.record import Record
from bib.resolve.identifier import fetch_record, looks_like_identifier
from bib.resolve.provenance import provenance_of
from bib.resolve.score import Decision, Verdict
from bib.resolve.session import open_session
from bib.resolve.sources import REGISTRY
from bib.resolve.stage import Outcome, apply, resolve_records


def identifier_records(
    inputs: Sequence[str], *, offline: bool = False
) -> tuple[list[str], list[Record]]:
    """`bib add`'s inputs split into paths and the records their identifiers name (fetched)."""
    names = [text for text in inputs if looks_like_identifier(text)]
    if not names:
        return list(inputs), []
    session = open_session(online=not offline)
    try:
        records = [fetch_record(name, session) for name in names]
    finally:
        session.close()
    return [text for text in inputs if text not in names], records


def decision_json(record: Record, decision: Decision, applied: bool) -> dict[str, Any]:
    return {
        "key": record.key,
        "verdict": str(decision.verdict),
        "applied": applied,
        "candidates": [
            {
                "source": s.candidate.source,
                "id": s.candidate.source_id,
                "title": s.candidate.title,
                "year": s.candidate.year,
                "score": s.score,
            }
            for s in decision.candidates[:5]
        ],
    }


PROGRESS_EVERY = 100


def progress_every(total: int) -> Callable[[int], None]:
    """A progress line on standard error every PROGRESS_EVERY records."""

    def report(done: int) -> None:
        if done % PROGRESS_EVERY == 0:
            click.echo(f"bib: resolving {done}/{total}", err=True)

    return report


def unresolved(record: Record) -> bool:
    return not provenance_of(record.note) and (record.title_derived or not record.authors)


def ask(outcome: Outcome) -> Record | None:
    """Ask which candidate an ambiguous record is; None when the reader rejects them all."""
    record, decision = outcome.record, outcome.decision
    click.echo(f"\n{record.key}: {record.title}", err=True)
    shown = decision.candidates[:5]
    for number, scored in enumerate(shown, 1):
        c = scored.candidate
        click.echo(
            f"  {number}. [{scored.score:.2f}] {c.title} ({c.year}, {c.source} {c.source_id})",
            err=True,
        )
    choice = click.prompt("accept which (0 rejects)", type=click.IntRange(0, len(shown)), err=True)
    if choice == 0:
        return None
    chosen = shown[choice - 1]
    return apply(record, chosen.candidate, chosen.score)


@click.command("resolve")
@click.argument("keys", nargs=-1)
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=click.Choice(list(REGISTRY)),
    help="Ask only these sources (repeatable). Default: all, venue listings first.",
)
@click.option("--dry-run", is_flag=True, help="Show what would change; store nothing.")
@click.option("--offline", is_flag=True, help="Answer from the cache only; no network.")
@click.option("--review", is_flag=True, help="Accept or reject ambiguous matches one by one.")
@click.option("--json", "as_json", is_flag=True, help="Print the decisions as JSON.")
@click.pass_context
def resolve(
    ctx: click.Context,
    keys: tuple[str, ...],
    sources: tuple[str, ...],
    dry_run: bool,
    offline: bool,
    review: bool,
    as_json: bool,
) -> None:
    """Find each paper's real title, authors, DOI and arXiv id, and fill in what is missing.

    Without KEYs, every record not resolved yet. Matching is on the abstract (then title,
    year, authors); a match is applied only when it is clear, ambiguous ones are listed (or
    reviewed with --review); nothing you wrote is overwritten. Responses are cached, so a
    re-run or --offline needs no network.

    \b
    Examples:
      bib resolve
      bib resolve usmoe2026 --dry-run
      bib resolve --source openreview --json
      bib resolve --review
    """
    from bib.cli.library import diagnostic, echo_json, open_library

    with open_library(ctx) as store:
        if keys:
            records = [store.resolve(key) for key in keys]
        else:
            records = [e.record for e in store.entries(full=True) if unresolved(e.record)]
    session = open_session(online=not offline, sources=sources)
    try:
        outcomes = resolve_records(records, session.resolver, progress_every(len(records)))
    finally:
        session.close()
    changed: list[Record] = [o.record for o in outcomes if o.applied]
    if review and not as_json:
        for outcome in outcomes:
            if outcome.decision.verdict is Verdict.AMBIGUOUS:
                accepted = ask(outcome)
                if accepted is not None:
                    changed.append(accepted)
    if not dry_run and changed:
        with open_library(ctx) as store:
            store.upsert(changed)
    if as_json:
        echo_json(
            [decision_json(o.record, o.decision, o.applied and not dry_run) for o in outcomes]
        )
    else:
        for outcome in outcomes:
            best = outcome.decision.best
            where = (
                f"{best.candidate.source} {best.candidate.source_id} {best.score:.2f}"
                if best
                else "-"
            )
            click.echo(
                f"{outcome.decision.verdict}\t{outcome.record.key}\t{where}\t{outcome.record.title}"
            )
    counts = {v: sum(o.decision.verdict is v for o in outcomes) for v in Verdict}
    diagnostic(
        f"{counts[Verdict.RESOLVED]} resolved, {counts[Verdict.AMBIGUOUS]} ambiguous, "
        f"{counts[Verdict.UNRESOLVED]} unresolved; {session.http.network_requests} requests"
        + (" (dry run: nothing stored)" if dry_run else "")
    )


commands = [resolve]
