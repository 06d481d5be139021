"""`bib convert`: paper lists, BibTeX and CSL-JSON in; BibTeX, BibLaTeX and CSL-JSON out."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from bib import convert as engine
from bib import writers
from bib.cli import terminal
from bib.cli.options import jobs_option, jobs_or_cores
from bib.cli.tags import max_topics_option, parents_setting, vocabulary_option, with_parents_option
from bib.errors import BibError
from bib.readers import FORMATS
from bib.record import TagKind

if TYPE_CHECKING:
    from rich.console import Console

Item = TypeVar("Item")

PROGRESS_AFTER = 2000
"""Records after which a terminal gets a progress display: short runs stay quiet."""
PROGRESS_EVERY = 250
"""Records between two updates of the progress line."""


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _year(value: str | None) -> int | None:
    if value is None:
        return None
    if not value.strip().isdigit() or not 1000 <= int(value) <= 2999:
        raise BibError(f"--year must be a year such as 2026, not '{value}'")
    return int(value)


def _tag_kinds(value: str | None) -> tuple[TagKind, ...] | None:
    if value is None:
        return None
    kinds = []
    for name in filter(None, (part.strip().lower() for part in value.split(","))):
        try:
            kinds.append(TagKind(name))
        except ValueError:
            known = ", ".join(kind.value for kind in TagKind)
            raise BibError(f"unknown tag kind '{name}' (known: {known})") from None
    return tuple(kinds)


def _sinks(outputs: tuple[Path, ...], fmt: str | None) -> list[engine.Sink]:
    """Where every output goes (a file, or standard output), checked before any work."""
    if fmt is not None:
        writers.writer(fmt)  # a BibError naming the formats there are
    if not outputs:
        return [engine.TextSink(fmt or "bibtex", _echo)]
    if fmt is not None and len(outputs) > 1:
        raise BibError(
            "-f applies to a single -o; several outputs take their format from the suffix"
        )
    if fmt is not None:
        return [engine.FileSink(outputs[0], fmt)]
    return [engine.FileSink(path, writers.format_for_path(path)) for path in outputs]


def _echo(text: str) -> None:
    click.echo(text, nl=False)


def progress_stage(console: Console) -> engine.Progress:
    """The progress display on a terminal (rich is imported only then: a conversion to a
    file or a pipe never needs it)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    def stage(records: Iterable[Item]) -> Iterator[Item]:
        progress: Progress | None = None
        task = None
        try:
            for done, record in enumerate(records, 1):
                if progress is None and done >= PROGRESS_AFTER:
                    progress = Progress(
                        SpinnerColumn(),
                        TextColumn("reading and tagging: {task.completed} records"),
                        TimeElapsedColumn(),
                        console=console,
                        transient=True,
                    )
                    progress.start()
                    # no total: a task with one (rich's default is 100) counts as finished once
                    # past it, and its clock stops
                    task = progress.add_task("convert", completed=done, total=None)
                elif progress is not None and task is not None and done % PROGRESS_EVERY == 0:
                    progress.update(task, completed=done)
                yield record
        finally:
            if progress is not None:
                progress.stop()

    return stage


def _reporter() -> Callable[[str], None]:
    return lambda message: click.echo(f"bib: {message}", err=True)


@click.command("convert")
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "-f", "--format", "fmt", metavar="FORMAT", help=f"One of {', '.join(writers.FORMATS)}."
)
@click.option(
    "-o",
    "--output",
    "outputs",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here (repeatable); the format follows the suffix: "
    + ", ".join(f"{s} {w.name}" for w in writers.REGISTRY.values() for s in w.suffixes)
    + ".",
)
@click.option(
    "--venue", metavar="NAME", help="Venue short name (ICML, NeurIPS, ...); overrides list headers."
)
@click.option(
    "--venue-title",
    metavar="TEXT",
    help="Proceedings title (booktitle, container-title) of a paper list's venue, known or not.",
)
@click.option("--year", "year_text", metavar="YEAR", help="Year; overrides list headers.")
@click.option(
    "--from",
    "source_format",
    metavar="FORMAT",
    help="Input format of '-': paperlist, bibtex or csl-json.",
)
@click.option(
    "--ascii", "ascii_only", is_flag=True, help="Non-ASCII as LaTeX macros (classic BibTeX)."
)
@click.option(
    "--tags", "tag_text", metavar="KINDS", help="Tag kinds written as keywords, e.g. topic,method."
)
@click.option(
    "--keys-from",
    "keys_from",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Keep the citation keys of this .bib or .json (repeatable); existing outputs count too.",
)
@jobs_option
@click.option(
    "--strict", is_flag=True, help="Treat warnings (undefined @string, repeated key) as errors."
)
@click.option(
    "--resolve",
    "resolve_mode",
    is_flag=False,
    flag_value="strict",
    default=None,
    type=click.Choice(["strict", "best-effort"]),
    help="Find real titles and authors online (see `bib resolve`); =best-effort writes "
    "records unresolved when a source cannot be reached.",
)
@vocabulary_option
@max_topics_option
@with_parents_option
def convert(
    inputs: tuple[str, ...],
    fmt: str | None,
    outputs: tuple[Path, ...],
    venue: str | None,
    venue_title: str | None,
    year_text: str | None,
    source_format: str | None,
    ascii_only: bool,
    tag_text: str | None,
    keys_from: tuple[Path, ...],
    jobs: int | None,
    strict: bool,
    vocab_files: tuple[Path, ...],
    max_topics: int,
    with_parents: bool | None = None,
    resolve_mode: str | None = None,
) -> None:
    """Convert paper lists, BibTeX and CSL-JSON into BibTeX, BibLaTeX and CSL-JSON.

    INPUT is a file, a directory (its .txt, .md, .bib and .json files) or - for standard
    input. Every output is written only after all of them were rendered, so a bad input
    leaves existing files untouched. A summary goes to standard error. Records already in an
    output that exists (or in a --keys-from file) keep their citation keys there; only new
    records get new keys.

    \b
    Examples:
      bib convert seeds/ -o out/seeds.bib -o out/seeds.biblatex.bib -o out/seeds.json
      bib convert icml.txt --venue ICML --year 2026 -f csl-json > refs.json
      bib convert refs.bib -o refs.json
      bib convert seeds/ -o refs.ris                  # EndNote, Mendeley, Zotero
      bib convert --strict refs.bib -o refs.json   # any warning stops with exit 2
      cat list.txt | bib convert - --from paperlist --venue NeurIPS --year 2025
      bib convert list.txt --venue FooConf --venue-title "Proceedings of FooConf 2026"
      bib convert seeds/ -o refs.json --keys-from thesis.bib
      bib convert big-list.txt -o refs.bib --jobs 4
      bib convert seeds/ -o refs.bib --resolve=best-effort
      bib convert seeds/ -o refs.bib --with-parents   # topics' ancestors as keywords too
    """
    if source_format is not None and source_format not in FORMATS:
        raise BibError(f"unknown input format '{source_format}' (use one of: {', '.join(FORMATS)})")
    sinks = _sinks(outputs, fmt)
    kinds = _tag_kinds(tag_text)
    if kinds is None:
        kinds = writers.DEFAULT_TAG_KINDS
    # only the tags written are made: the contribution tags cost a fifth of the tagging
    stages = engine.tag_stages(vocab_files, max_topics, kinds, parents_setting(with_parents))
    # a network lookup runs once per paper, after merging, in this process (rate limits are
    # per client)
    lookups = [_resolve_stage(resolve_mode == "best-effort")] if resolve_mode else []
    report = _reporter()
    options = engine.ConvertOptions(
        source_format=source_format,
        venue=venue,
        venue_title=venue_title,
        year=_year(year_text),
        stages=stages,
        lookups=lookups,
        report=report,
        strict=strict,
        keys_from=keys_from,
        jobs=jobs_or_cores(jobs),
        progress=progress_stage(terminal.console(stderr=True)) if sys.stderr.isatty() else None,
        output=writers.WriteOptions(ascii=ascii_only, tag_kinds=kinds),
    )
    stats = engine.convert(inputs, sinks, options)
    where = ", ".join(
        str(sink.path) if isinstance(sink, engine.FileSink) else "stdout" for sink in sinks
    )
    click.echo(
        f"bib: {_count(stats.records, 'record')} from {_count(stats.files, 'file')}, "
        f"{_count(stats.merged, 'duplicate')} merged, "
        f"{_count(stats.titles_derived, 'title')} derived -> {where}",
        err=True,
    )


def _resolve_stage(best_effort: bool) -> engine.Stage:
    from bib.resolve.session import open_session
    from bib.resolve.stage import convert_stage

    session = open_session(online=True)
    click.get_current_context().call_on_close(session.close)
    warn = functools.partial(click.echo, err=True)
    return convert_stage(session.resolver, best_effort=best_effort, warn=warn)


commands = [convert]
