"""`bib convert`: paper lists, BibTeX and CSL-JSON in; BibTeX, BibLaTeX and CSL-JSON out."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import click
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from bib import pipeline, writers
from bib.atomic import write_atomic
from bib.errors import BibError
from bib.readers import FORMATS
from bib.record import Record, TagKind

OUTPUT_FORMATS = ("bibtex", "biblatex", "csl-json")
PROGRESS_AFTER = 2000
"""Records after which a terminal gets a progress display: short runs stay quiet."""


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


def _targets(outputs: tuple[Path, ...], fmt: str | None) -> list[tuple[Path | None, str]]:
    """(path or None for stdout, format) of every output, checked before any work."""
    if fmt is not None and fmt not in OUTPUT_FORMATS:
        raise BibError(f"unknown output format '{fmt}' (use one of: {', '.join(OUTPUT_FORMATS)})")
    if not outputs:
        return [(None, fmt or "bibtex")]
    if fmt is not None and len(outputs) > 1:
        raise BibError(
            "-f applies to a single -o; several outputs take their format from the suffix"
        )
    if fmt is not None:
        return [(outputs[0], fmt)]
    return [(path, writers.format_for_path(path)) for path in outputs]


def progress_stage(console: Console) -> pipeline.Stage:
    def stage(records: Iterable[Record]) -> Iterator[Record]:
        progress: Progress | None = None
        task = None
        try:
            for done, record in enumerate(records, 1):
                if progress is None and done >= PROGRESS_AFTER:
                    progress = Progress(
                        SpinnerColumn(),
                        TextColumn("converting: {task.completed} records"),
                        TimeElapsedColumn(),
                        console=console,
                        transient=True,
                    )
                    progress.start()
                    task = progress.add_task("convert", completed=done)
                elif progress is not None and task is not None and done % 250 == 0:
                    progress.update(task, completed=done)
                yield record
        finally:
            if progress is not None:
                progress.stop()

    return stage


@click.command("convert")
@click.argument("inputs", nargs=-1, required=True)
@click.option("-f", "--format", "fmt", metavar="FORMAT", help="bibtex, biblatex or csl-json.")
@click.option(
    "-o",
    "--output",
    "outputs",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here (repeatable); .bib -> bibtex, .biblatex.bib -> biblatex, .json -> csl-json.",
)
@click.option(
    "--venue", metavar="NAME", help="Venue short name (ICML, NeurIPS, ...); overrides list headers."
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
def convert(
    inputs: tuple[str, ...],
    fmt: str | None,
    outputs: tuple[Path, ...],
    venue: str | None,
    year_text: str | None,
    source_format: str | None,
    ascii_only: bool,
    tag_text: str | None,
) -> None:
    """Convert paper lists, BibTeX and CSL-JSON into BibTeX, BibLaTeX and CSL-JSON.

    INPUT is a file, a directory (its .txt, .md, .bib and .json files) or - for standard
    input. Every output is written only after all of them were rendered, so a bad input
    leaves existing files untouched. A summary goes to standard error.

    \b
    Examples:
      bib convert seeds/ -o out/seeds.bib -o out/seeds.biblatex.bib -o out/seeds.json
      bib convert icml.txt --venue ICML --year 2026 -f csl-json > refs.json
      bib convert refs.bib -o refs.json
      cat list.txt | bib convert - --from paperlist --venue NeurIPS --year 2025
    """
    if source_format is not None and source_format not in FORMATS:
        raise BibError(f"unknown input format '{source_format}' (use one of: {', '.join(FORMATS)})")
    targets = _targets(outputs, fmt)
    kinds = _tag_kinds(tag_text)
    console = Console(stderr=True)
    stages = list(pipeline.DEFAULT_STAGES)
    if sys.stderr.isatty():
        stages.append(progress_stage(console))
    result = pipeline.run(
        inputs,
        fmt=source_format,
        venue=venue,
        year=_year(year_text),
        extractors=stages,
        report=lambda message: click.echo(f"bib: {message}", err=True),
    )
    options = {"ascii": ascii_only} | ({"tag_kinds": kinds} if kinds is not None else {})
    rendered = [
        (path, writers.render(result.records, out_fmt, **options)) for path, out_fmt in targets
    ]
    for path, text in rendered:
        if path is None:
            click.echo(text, nl=not text.endswith("\n"))
        else:
            write_atomic(path, text)
    stats = result.stats
    where = ", ".join(str(path) if path else "stdout" for path, _ in targets)
    click.echo(
        f"bib: {_count(stats.records, 'record')} from {_count(stats.files, 'file')}, "
        f"{_count(stats.merged, 'duplicate')} merged, "
        f"{_count(stats.titles_derived, 'title')} derived -> {where}",
        err=True,
    )


commands = [convert]
