"""`bib convert`: paper lists, BibTeX and CSL-JSON in; BibTeX, BibLaTeX and CSL-JSON out."""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import marshal
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import click
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from bib import parallel, pipeline, stable_keys, writers
from bib.atomic import destination, publish, remove_stale
from bib.cli import terminal
from bib.cli.tags import max_topics_option, tag_stages, vocabulary_option
from bib.errors import BibError
from bib.readers import FORMATS
from bib.record import Record, TagKind

PROGRESS_AFTER = 2000
PROGRESS_EVERY = 250
"""Records between two updates of the progress line."""
BATCH_GC_THRESHOLD = 10_000
"""Allocations between collections of the youngest generation while converting (Python's
default is 700)."""
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
    if fmt is not None:
        writers.writer(fmt)  # a BibError naming the formats there are
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


@contextlib.contextmanager
def _batch_collection() -> Iterator[None]:
    """Rarer and cheaper cyclic garbage collection while converting.

    Records are trees of tuples and strings, without cycles, yet a conversion allocates
    enough to trigger a collection every few records, and each full one walks every
    long-lived object (the compiled vocabulary, every id and key): about 20 µs a record at
    10,000 records. Freezing what exists before the run keeps it out of every collection,
    and a larger first generation makes collections rarer; both are undone afterwards."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(BATCH_GC_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def _encoder(formats: list[str], options: dict[str, Any]) -> Callable[[Record], bytes]:
    """What the spool keeps of a record: its entry in each of `formats`, cut where its key
    goes (`writers.template`), so that writing needs only the keys (they need every record)."""

    def encode(record: Record) -> bytes:
        return marshal.dumps([writers.template(record, fmt, **options) for fmt in formats])

    return encode


def _write(
    spooled: pipeline.Spooled, formats: list[str], targets: list[tuple[Path | None, str]]
) -> None:
    """Stream every output into a temp file beside its target (standard output: an anonymous
    one), in key order, from the entries spooled in `formats`; rename them all only when every
    output was written, else delete them, so a failure leaves no output created or changed.

    Outputs in the same record order share one reading of the spool (BibTeX and CSL-JSON
    orders differ only when two keys differ in case alone).
    """
    _check_keys(spooled.keys)
    with contextlib.ExitStack() as cleanup:
        staged = [(path, fmt, _stage_file(path, cleanup)) for path, fmt in targets]
        passes: list[tuple[list[int], list[tuple[str, IO[str]]]]] = []
        for _, fmt, handle in staged:
            order = spooled.order(
                writers.order_key(fmt), parents_last=writers.writer(fmt).parents_last
            )
            same = next((p for p in passes if p[0] == order), None)
            if same is None:
                passes.append((order, [(fmt, handle)]))
            else:
                same[1].append((fmt, handle))
        for order, outputs in passes:
            entries = zip(
                map(spooled.keys.__getitem__, order),
                map(marshal.loads, spooled.items(order)),
                strict=True,
            )
            copies = itertools.tee(entries, len(outputs))
            pieces = [
                _entries(copy, fmt, formats.index(fmt))
                for copy, (fmt, _) in zip(copies, outputs, strict=True)
            ]
            # Lockstep: each output yields once per record, so tee holds one record at most.
            for step in zip(*pieces, strict=True):
                for piece, (_, handle) in zip(step, outputs, strict=True):
                    handle.write(piece)
        for path, _, handle in staged:
            if path is None:
                _echo_file(handle)
            elif destination(path).stream:
                _copy_to_stream(handle, destination(path).path)
            else:
                _publish(handle, destination(path).path)
        cleanup.pop_all()


Templates = Iterable[tuple[str, list[list[str]]]]
"""(key, `writers.template` of each format) of records, in output order."""


def _entries(templates: Templates, fmt: str, slot: int) -> Iterator[str]:
    """The pieces of a whole `fmt` output from (key, templates) of its records in order, where
    `slot` is the position of its format's template."""
    return writers.layout(fmt).wrap(key.join(cut[slot]) for key, cut in templates)


def _check_keys(keys: Iterable[str]) -> None:
    """Refuse a key that a writer would refuse: unsafe, or given twice."""
    seen: set[str] = set()
    for key in keys:
        if not writers.safe_key(key):
            raise BibError(f"citation key {key!r} is not safe for BibTeX and pandoc")
        if key in seen:
            raise BibError(f"citation key {key!r} is used by two records")
        seen.add(key)


def _stage_file(path: Path | None, cleanup: contextlib.ExitStack) -> IO[str]:
    """A text file to stream one output into; `cleanup` removes it (and any directory made
    for it) unless the caller pops the stack after publishing. Standard output and streams
    (devices, FIFOs) get an anonymous one, copied through when everything was written."""
    if path is None or destination(path).stream:
        return cleanup.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8", newline=""))
    path = destination(path).path
    remove_stale(path)
    missing = []
    directory = path.parent
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    path.parent.mkdir(parents=True, exist_ok=True)
    for directory in reversed(missing):  # the deepest is removed first
        cleanup.callback(_remove_empty_dir, directory)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    cleanup.callback(_remove, Path(tmp))
    return cleanup.enter_context(open(tmp, "w", encoding="utf-8", newline=""))


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _remove_empty_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()


def _publish(handle: IO[str], target: Path) -> None:
    """fsync the temp file and rename it over `target`, keeping its mode (`bib.atomic.publish`)."""
    handle.flush()
    os.fsync(handle.fileno())
    handle.close()
    publish(handle.name, target)


def _copy_to_stream(handle: IO[str], path: Path) -> None:
    """The staged output written through to a device or FIFO (never renamed over it)."""
    handle.seek(0)
    with open(path, "w", encoding="utf-8", newline="") as stream:
        while chunk := handle.read(1 << 20):
            stream.write(chunk)


def _echo_file(handle: IO[str]) -> None:
    """The staged standard output, as `click.echo(text, nl=not text.endswith("\\n"))`."""
    handle.seek(0)
    last = ""
    while chunk := handle.read(1 << 20):
        click.echo(chunk, nl=False)
        last = chunk[-1]
    if last != "\n":
        click.echo("")
    handle.close()


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
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    help="Worker processes for large inputs (default: the usable cores; 1: this process only).",
)
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
def convert(
    inputs: tuple[str, ...],
    fmt: str | None,
    outputs: tuple[Path, ...],
    venue: str | None,
    year_text: str | None,
    source_format: str | None,
    ascii_only: bool,
    tag_text: str | None,
    keys_from: tuple[Path, ...],
    jobs: int | None,
    strict: bool,
    vocab_files: tuple[Path, ...],
    max_topics: int,
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
      bib convert seeds/ -o refs.json --keys-from thesis.bib
      bib convert big-list.txt -o refs.bib --jobs 4
      bib convert seeds/ -o refs.bib --resolve=best-effort
    """
    if source_format is not None and source_format not in FORMATS:
        raise BibError(f"unknown input format '{source_format}' (use one of: {', '.join(FORMATS)})")
    targets = _targets(outputs, fmt)
    kinds = _tag_kinds(tag_text)
    if kinds is None:
        kinds = writers.DEFAULT_TAG_KINDS
    console = terminal.console(stderr=True)
    # only the tags written are made: the contribution tags cost a fifth of the tagging
    stages = tag_stages(vocab_files, max_topics, kinds)
    if resolve_mode:
        # a network stage runs once per paper, in this process (rate limits are per client)
        stages = [*stages, _resolve_stage(resolve_mode == "best-effort")]
        jobs = 1
    progress = progress_stage(console) if sys.stderr.isatty() else None
    options = {"ascii": ascii_only, "tag_kinds": kinds}
    formats = list(dict.fromkeys(fmt for _, fmt in targets))
    report = _reporter()
    pinned = stable_keys.pinned_from([p for p, _ in targets if p is not None], keys_from, report)
    with _batch_collection():
        spooled = pipeline.spool(
            inputs,
            fmt=source_format,
            venue=venue,
            year=_year(year_text),
            extractors=stages,
            report=pipeline.strict if strict else report,
            pinned=pinned,
            encode=_encoder(formats, options),
            jobs=jobs if jobs is not None else parallel.usable_cores(),
            progress=progress,
        )
        with spooled:
            _write(spooled, formats, targets)
    stats = spooled.stats
    where = ", ".join(str(path) if path else "stdout" for path, _ in targets)
    click.echo(
        f"bib: {_count(stats.records, 'record')} from {_count(stats.files, 'file')}, "
        f"{_count(stats.merged, 'duplicate')} merged, "
        f"{_count(stats.titles_derived, 'title')} derived -> {where}",
        err=True,
    )


def _resolve_stage(best_effort: bool) -> pipeline.Stage:
    from bib.resolve.session import open_session
    from bib.resolve.stage import convert_stage

    session = open_session(online=True)
    click.get_current_context().call_on_close(session.close)
    warn = functools.partial(click.echo, err=True)
    return convert_stage(session.resolver, best_effort=best_effort, warn=warn)


commands = [convert]
