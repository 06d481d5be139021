"""`bib tags`: each record's extracted tags with their evidence, or counts over all records."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import click

from bib import convert as engine
from bib import settings
from bib.cli import terminal
from bib.cli.options import jobs_option, jobs_or_cores
from bib.errors import BibError
from bib.extract import tags as tagging
from bib.readers import FORMATS
from bib.record import Record, Span, Tag, TagKind

if TYPE_CHECKING:
    from rich.console import Console

KIND_ORDER = (
    TagKind.METHOD,
    TagKind.TOPIC,
    TagKind.DATASET,
    TagKind.MODEL,
    TagKind.CODE,
    TagKind.CONTRIBUTION,
    TagKind.KEYPHRASE,
)
STYLES = {
    TagKind.METHOD: "bold magenta",
    TagKind.TOPIC: "bold cyan",
    TagKind.DATASET: "bold green",
    TagKind.MODEL: "bold yellow",
    TagKind.CODE: "bold blue",
    TagKind.CONTRIBUTION: "italic",
    TagKind.KEYPHRASE: "bold white",
}


def vocabulary_option(function):  # type: ignore[no-untyped-def]
    """`--vocab FILE` (repeatable), shared with `bib convert`."""
    return click.option(
        "--vocab",
        "vocab_files",
        multiple=True,
        type=click.Path(dir_okay=False, path_type=Path),
        help="A vocabulary file (JSON) that adds or overrides topics, datasets and models.",
    )(function)


def max_topics_option(function):  # type: ignore[no-untyped-def]
    return click.option(
        "--max-topics",
        type=click.IntRange(0, 50),
        default=tagging.DEFAULT_MAX_TOPICS,
        show_default=True,
        help="At most this many topic tags per record.",
    )(function)


def with_parents_option(function):  # type: ignore[no-untyped-def]
    """`--with-parents/--without-parents`, shared with `bib convert` (default: the setting
    `tags.with_parents` of the config file, else off)."""
    return click.option(
        "--with-parents/--without-parents",
        "with_parents",
        default=None,
        help="Add every ancestor of each topic (grpo: rlvr, reinforcement-learning ...); "
        "default: tags.with_parents in config.toml, else off.",
    )(function)


def parents_setting(with_parents: bool | None) -> bool:
    """`--with-parents/--without-parents`, else `tags.with_parents` of config.toml."""
    return settings.load().with_parents if with_parents is None else with_parents


def _kinds(values: Sequence[str]) -> tuple[TagKind, ...]:
    return tuple(TagKind(v) for v in values) if values else KIND_ORDER


def _selected(record: Record, kinds: Sequence[TagKind]) -> list[Tag]:
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    chosen = [t for t in record.tags if t.kind in kinds]
    return sorted(chosen, key=lambda t: order.get(t.kind, len(order)))


def tag_json(tag: Tag) -> dict[str, object]:
    return {
        "kind": tag.kind.value,
        "value": tag.value,
        "label": tag.label,
        "evidence": [list(span) for span in sorted(tag.evidence)],
    }


def record_json(record: Record, kinds: Sequence[TagKind]) -> dict[str, object]:
    return {
        "key": record.key,
        "id": record.id,
        "title": record.title,
        "tags": [tag_json(t) for t in _selected(record, kinds)],
    }


def _listing(records: Sequence[Record], kinds: Sequence[TagKind]) -> str:
    lines: list[str] = []
    for record in records:
        lines.append(f"{record.key}  {record.title}".rstrip())
        by_kind: dict[TagKind, list[str]] = {}
        for tag in _selected(record, kinds):
            by_kind.setdefault(tag.kind, []).append(
                tag.label if tag.kind is TagKind.CODE else tag.value
            )
        for kind in KIND_ORDER:
            if kind in by_kind:
                lines.append(f"  {kind.value + ':':14}{', '.join(by_kind[kind])}")
        if not by_kind:
            lines.append("  (no tags)")
        lines.append("")
    return "\n".join(lines)


def _merged(spans: Sequence[Span]) -> list[Span]:
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def bracketed(text: str, spans: Sequence[Span]) -> str:
    """The text with every evidence span marked `[[like this]]`, for plain output."""
    out, last = [], 0
    for start, end in _merged(spans):
        out.append(text[last:start])
        out.append(f"[[{text[start:end]}]]")
        last = end
    out.append(text[last:])
    return "".join(out)


def _explain(console: Console, records: Sequence[Record], kinds: Sequence[TagKind]) -> None:
    from rich.text import Text  # here: `bib convert` imports this module for its options

    colour = console.is_terminal and not os.environ.get("NO_COLOR")
    for record in records:
        chosen = _selected(record, kinds)
        lines = [f"{record.key}  {record.title}".rstrip()]
        if colour:
            console.print(lines[0], markup=False, highlight=False)
            text = Text(record.abstract)
            for tag in chosen:
                for start, end in tag.evidence:
                    text.stylize(STYLES.get(tag.kind, "bold"), start, end)
            console.print(text, highlight=False)
        else:
            spans = [span for tag in chosen for span in tag.evidence]
            lines.append(bracketed(record.abstract, spans))
        for tag in chosen:
            words = sorted({record.abstract[s:e] for s, e in tag.evidence})
            evidence = "; ".join(f'"{w}"' for w in words) or "(record metadata)"
            line = f"  {tag.kind.value:13}{tag.value}  <- {evidence}"
            if colour:
                console.print(Text(line, style=STYLES.get(tag.kind, "")), highlight=False)
            else:
                lines.append(line)
        if not colour:
            click.echo("\n".join(lines))
        click.echo()


BAR = 16
"""Width of the longest bar in the --stats chart."""
ONE_PER_RECORD = (TagKind.METHOD, TagKind.CODE)
"""Kinds whose values are (nearly) unique per record: counted as one row, "has one"."""


class TagCount(TypedDict):
    """One row of `bib tags --stats`: a tag and how many records carry it."""

    kind: str
    value: str
    label: str
    records: int


def tag_counts(records: Sequence[Record], kinds: Sequence[TagKind]) -> list[TagCount]:
    """How many records carry each tag, most frequent first within each kind."""
    counts: Counter[tuple[TagKind, str]] = Counter()
    labels: dict[tuple[TagKind, str], str] = {}
    for record in records:
        seen = set()
        for tag in _selected(record, kinds):
            key = (tag.kind, "(any)" if tag.kind in ONE_PER_RECORD else tag.value)
            if key not in seen:
                seen.add(key)
                counts[key] += 1
                labels.setdefault(key, f"records with a {tag.kind.value} tag"
                                  if tag.kind in ONE_PER_RECORD else tag.label)  # fmt: skip
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    ranked = sorted(counts.items(), key=lambda kv: (order[kv[0][0]], -kv[1], kv[0][1]))
    return [
        TagCount(kind=kind.value, value=value, label=labels[(kind, value)], records=n)
        for (kind, value), n in ranked
    ]


def _stats(console: Console, records: Sequence[Record], kinds: Sequence[TagKind], top: int) -> None:
    from rich.table import Table  # here: `bib convert` imports this module for its options
    from rich.text import Text

    rows = tag_counts(records, kinds)
    table = Table(title=f"Tags over {len(records)} records", title_justify="left")
    table.add_column("kind", no_wrap=True)
    table.add_column("tag", overflow="fold", min_width=24)
    table.add_column("records", justify="right", no_wrap=True)
    table.add_column("share", justify="right", no_wrap=True)
    table.add_column("", no_wrap=True, max_width=BAR)
    most = max((row["records"] for row in rows), default=1)
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    for row in rows:
        kind = TagKind(row["kind"])
        if shown[kind.value] >= top:
            hidden[kind.value] += 1
            continue
        shown[kind.value] += 1
        n = row["records"]
        bar = "\u2588" * max(1, round(BAR * n / most))
        table.add_row(
            kind.value,
            row["value"],
            str(n),
            f"{100 * n / max(len(records), 1):.0f}%",
            Text(bar, style=STYLES.get(kind, "")),
        )
    console.print(table)
    for name, n in hidden.items():
        console.print(f"... and {n} more {name} tags (--top N shows more, --json all)")


@click.command("tags")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="A JSON array, one object per record.")
@click.option("--explain", is_flag=True, help="Show each abstract with the evidence marked.")
@click.option("--stats", is_flag=True, help="How many records carry each tag (table and bars).")
@click.option(
    "--kind",
    "kind_names",
    multiple=True,
    type=click.Choice([k.value for k in KIND_ORDER]),
    help="Only tags of this kind (repeatable).",
)
@click.option(
    "--top",
    type=click.IntRange(1),
    default=20,
    show_default=True,
    help="With --stats: rows per kind in the table.",
)
@vocabulary_option
@max_topics_option
@with_parents_option
@click.option("--venue", help="Venue short name (ICML, NeurIPS, ...); overrides list headers.")
@click.option("--year", type=click.IntRange(1000, 2999), help="Year; overrides list headers.")
@click.option(
    "--from",
    "source_format",
    type=click.Choice(FORMATS),
    help="Input format of '-': paperlist, bibtex or csl-json.",
)
@jobs_option
def tags_command(
    inputs: tuple[str, ...],
    as_json: bool,
    explain: bool,
    stats: bool,
    kind_names: tuple[str, ...],
    top: int,
    vocab_files: tuple[Path, ...],
    max_topics: int,
    with_parents: bool | None,
    venue: str | None,
    year: int | None,
    source_format: str | None,
    jobs: int | None,
) -> None:
    """Show the tags extracted from each record: topics, method, datasets, models, code
    and contribution type, each traceable to the words of the abstract that produced it.

    INPUT is a paper list, a BibTeX or CSL-JSON file, a directory or - for standard input.

    \b
    Examples:
      bib tags seeds/                         # a readable listing per record
      bib tags seeds/ --json > tags.json      # evidence as [start, end] spans
      bib tags seeds/ --explain --kind topic  # abstracts with the evidence marked
      bib tags seeds/ --stats                 # how many records carry each tag
      bib tags refs.bib --vocab my-topics.json --max-topics 5
      bib tags seeds/ --with-parents --kind topic   # each topic's ancestors too
      bib tags big-list.txt --stats --jobs 4    # worker processes for a large input
    """
    if explain and (as_json or stats):
        raise BibError("--explain shows abstracts; it does not combine with --json or --stats")
    kinds = _kinds(kind_names)
    options = engine.ConvertOptions(
        source_format=source_format,
        venue=venue,
        year=year,
        stages=engine.tag_stages(vocab_files, max_topics, kinds, parents_setting(with_parents)),
        report=lambda message: click.echo(f"bib: {message}", err=True),
        stdin=sys.stdin.buffer,
        jobs=jobs_or_cores(jobs),
    )
    records = engine.load(inputs, options)
    if stats and as_json:
        payload = {"records": len(records), "tags": tag_counts(records, kinds)}
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
    elif as_json:
        click.echo(
            json.dumps([record_json(r, kinds) for r in records], ensure_ascii=False, indent=2)
        )
    elif stats:
        _stats(terminal.console(), records, kinds, top)
    elif explain:
        _explain(terminal.console(), records, kinds)
    else:
        click.echo(_listing(records, kinds), nl=False)


commands = [tags_command]
