"""A long `.bib` read in parts, in worker processes, with what `bibtex.read` gives.

The text is cut at line starts of `@name{` or `@name(` (`cuts`), and each part is parsed as a
slice of the whole text (`bibtex_syntax.parse` with `start`, `end` and its first line) and its
records built in a worker (`bib.parallel.ordered_map`). Nothing a part is given is trusted:

- the `@string`s it starts with come from a first pass over every `@string`/`@preamble`
  command the text seems to hold (`_presumed`, a regex then the tokenizer on each); a part
  reports the ones it really read, and any difference (one written inside a comment or a
  value, say) sends the whole file back to `bibtex.read`;
- a part reports where its last command really ended (`Document.resume`); when that is past
  the next cut (a cut inside a value, an `@comment(...)`), the next part is parsed again,
  here, from the right place;
- a part knows only its own keys: one already seen in an earlier part means its
  repeated-key warnings are wrong, and it is parsed again here with every key seen so far.

Warnings are told here, in file order, before the first record, as the whole-file parse
tells them; under `strict` the first is the error. The preambles go with the file's first
record (each part sends its first record both ways)."""

from __future__ import annotations

import bisect
import marshal
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from bib import parallel
from bib.errors import BibError
from bib.readers import bibtex, bibtex_syntax
from bib.readers.bibtex import _entry_record, _latex, _usable_strings
from bib.readers.paperlist import decode
from bib.record import Record, evolve
from bib.spool import record_bytes, record_of

AFTER = 1 << 20
"""Characters of `.bib` text from which reading in parts pays (benchmarks/convert.py
--bib-jobs): below it, forking the workers costs more than they save."""

PART = 1 << 18
"""Characters of a part (about 500 TeX Live entries): enough to keep a worker busy for a
while, few enough that `ordered_map`'s window keeps memory bounded."""

_CUT = re.compile(r"^[ \t]*@[ \t]*[A-Za-z_][\w:.+-]*[ \t]*[{(]", re.MULTILINE)
_ENTRY_KEY = re.compile(
    r"@[ \t]*([A-Za-z_][\w:.+-]*)[ \t]*(?:\{[ \t\n]*([^\s,}]*)|\([ \t\n]*([^\s,)]*))"
)
"""An entry's start and its key (`bibtex_syntax._Parser.entry`), matched at an `@` that only
blanks put after a line start (`_keys`)."""
_NOT_ENTRIES = frozenset({"string", "preamble", "comment"})
_COMMAND = re.compile(r"@[ \t\n]*(?:string|preamble)[ \t\n]*[{(]", re.IGNORECASE)
"""Where an `@string` or `@preamble` may start (`bibtex_syntax._AT` with one of them)."""


@dataclass(frozen=True, slots=True)
class Part:
    start: int
    end: int
    line: int
    """The line of `start`."""


def cuts(text: str, size: int = PART) -> list[Part]:
    """`text` as parts of about `size` characters, each but the first starting at a line
    that starts with `@name{` or `@name(`."""
    parts, start, line = [], 0, 1
    while start < len(text):
        found = _CUT.search(text, start + size) if start + size < len(text) else None
        end = found.start() if found is not None else len(text)
        parts.append(Part(start, end, line))
        line += text.count("\n", start, end)
        start = end
    return parts


@dataclass(slots=True)
class _Presumed:
    """What the first pass found: the `@string`s and `@preamble`s, each with its place."""

    strings: list[tuple[int, bibtex_syntax.StringDef]]
    preambles: list[tuple[int, bibtex_syntax.Chunk]]
    macros: list[bibtex_syntax.Macros]
    """The `@string`s defined before each part's start."""
    keys: dict[str, tuple[int, int]]
    """Each entry key (casefolded): where it first seems to be, and its line."""


def _presumed(text: str, path: str, parts: list[Part]) -> _Presumed:
    """Every command `_COMMAND` finds, read by the tokenizer in turn (macros carried on), as
    if each were one: the parts check it."""
    macros = bibtex_syntax.predefined()
    found = _Presumed([], [], [], _keys(text))
    places = iter(parts)
    part = next(places, None)
    pos, line = 0, 1
    for match in _COMMAND.finditer(text):
        while part is not None and part.start <= match.start():
            found.macros.append(dict(macros))
            part = next(places, None)
        line += text.count("\n", pos, match.start())
        pos = match.start()
        doc = bibtex_syntax.parse(text, path, start=pos, end=pos + 1, line=line, macros=macros)
        found.strings.extend((pos, s) for s in doc.strings)
        found.preambles.extend((pos, p) for p in doc.preambles)
    while part is not None:
        found.macros.append(dict(macros))
        part = next(places, None)
    return found


def _keys(text: str) -> dict[str, tuple[int, int]]:
    """Where each key first seems to be an entry's, and its line (`_ENTRY_KEY`, tried at
    each `@` that `str.find` finds: a multi-line regex starting with blanks at a line start
    tries every position of the text; 0.145 -> 0.068 s on 20,000 TeX Live entries)."""
    keys: dict[str, tuple[int, int]] = {}
    pos, line = 0, 1
    at = text.find("@")
    while at >= 0:
        match = None
        if not text[text.rfind("\n", 0, at) + 1 : at].strip(" \t"):
            match = _ENTRY_KEY.match(text, at)
        if match is None:
            at = text.find("@", at + 1)
            continue
        key = match[2] if match[2] is not None else match[3]
        if key and match[1].lower() not in _NOT_ENTRIES:
            line += text.count("\n", pos, at)
            pos = at
            keys.setdefault(key.casefold(), (pos, line))
        at = text.find("@", match.end())
    return keys


class _Seen(dict[str, int]):
    """The keys a part has seen (`bibtex_syntax._Parser.seen`): its own, and those the first
    pass found before the part's `start`; the keys asked about are kept (`asked`), so that
    the answers can be checked against the parts read before."""

    def __init__(self, keys: dict[str, tuple[int, int]], start: int) -> None:
        super().__init__()
        self.first = keys
        self.start = start
        self.asked: dict[str, int] = {}
        """Each key asked about, and the line the first pass gave it (-1: not seen)."""

    def _before(self, key: str) -> int:
        found = self.first.get(key)
        return found[1] if found is not None and found[0] < self.start else -1

    def __contains__(self, key: object) -> bool:
        assert isinstance(key, str)
        if dict.__contains__(self, key):
            return True
        line = self.asked.setdefault(key, self._before(key))
        return line >= 0

    def __getitem__(self, key: str) -> int:
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        return self._before(key)


Then = Callable[[list[Record]], bytes]
"""What a worker makes of the records of a part it read, sent back instead of them
(`read_parts`): a caller's own work on them, done in the same task."""


@dataclass(slots=True)
class Read:
    """One part as read: where it started and where the next one must."""

    index: int
    start: int
    resume: int
    problems: list[tuple[str, int]]
    strings: list[bibtex_syntax.StringDef]
    preambles: list[bibtex_syntax.Chunk]
    keys: list[tuple[str, int]]
    """Each record's key (casefolded) and line, as `bibtex_syntax` keeps them in `seen`."""
    asked: list[tuple[str, int]]
    """The keys of earlier parts this part asked about, with the first pass's answers."""
    records: list[bytes]
    first: bytes
    """The first record with the file's preambles (empty when there is no record)."""
    total: int
    """Its records (`records` is empty when a worker sent `ahead` instead)."""
    ahead: bytes | None = None
    """What the worker made of the records (`Then`), None when they were sent."""

    def plain(self) -> tuple[Any, ...]:
        """What `marshal` sends from a worker (`of_plain` reads it back)."""
        strings = [(s.name, s.value, s.raw, s.line) for s in self.strings]
        preambles = [(p.text, p.line) for p in self.preambles]
        return (self.index, self.start, self.resume, self.problems, strings, preambles,
                self.keys, self.asked, self.records, self.first, self.total,
                self.ahead)  # fmt: skip

    @classmethod
    def of_plain(cls, plain: tuple[Any, ...]) -> Read:
        index, start, resume, problems, strings, preambles, keys, asked = plain[:8]
        records, first, total, ahead = plain[8:]
        return cls(
            index,
            start,
            resume,
            problems,
            [bibtex_syntax.StringDef(*s) for s in strings],
            [bibtex_syntax.Chunk(*p) for p in preambles],
            keys,
            asked,
            records,
            first,
            total,
            ahead,
        )


@dataclass(frozen=True, slots=True)
class File:
    """What every part is read with: the file and what the first pass found in it."""

    text: str
    path: str
    parts: list[Part]
    presumed: _Presumed
    strings: bibtex._Usable
    preambles: tuple[str, ...]
    decoding: bibtex.Decoding
    """The run's: each worker has its own copy (forked), as a single process has one."""

    def read(
        self,
        index: int,
        start: int,
        seen: dict[str, int] | None = None,
        then: Then | None = None,
    ) -> Read:
        """Part `index` from `start` (its own, or where the part before really ended), with
        the keys `seen` before it (None: those the first pass found, checked later); with
        `then`, what it makes of the records instead of them (the first part's first
        record with the file's preambles, as if no part before had a record)."""
        looked = _Seen(self.presumed.keys, start) if seen is None else None
        part = self.parts[index]
        line = part.line + self.text.count("\n", part.start, start)
        doc = bibtex_syntax.parse(
            self.text,
            self.path,
            start=start,
            end=part.end,
            line=line,
            macros=dict(self.presumed.macros[index]),
            seen=looked if looked is not None else seen,
        )
        records: list[Record] = []
        first: Record | None = None
        for entry in doc.entries:
            record = _entry_record(entry, self.path, self.decoding)
            if first is None:
                first = evolve(record, latex=_latex(entry, record, self.strings, self.preambles))
            records.append(evolve(record, latex=_latex(entry, record, self.strings, ())))
        ahead = None
        if then is not None:
            ahead = then([first, *records[1:]] if index == 0 and first is not None else records)
        return Read(
            index,
            start,
            doc.resume,
            [(p.message, p.line) for p in doc.problems],
            doc.strings,
            doc.preambles,
            [(e.key.casefold(), e.line) for e in doc.entries],
            list(looked.asked.items()) if looked is not None else [],
            [] if then is not None else list(map(record_bytes, records)),
            record_bytes(first) if first is not None and then is None else b"",
            len(records),
            ahead,
        )


def read(
    data: bytes,
    path: str,
    *,
    report: Callable[[str], None] | None = None,
    strict: bool = False,
    jobs: int = 1,
) -> Iterator[Record]:
    """`bibtex.read`, its parts parsed and built in `jobs` worker processes when the file is
    `AFTER` characters or more (and workers can be forked)."""
    file = split(data, path, jobs)
    done = read_parts(file, jobs) if file is not None else None
    if done is None:  # the whole-file parse, as in one process
        yield from bibtex.read(data, path, report=report, strict=strict)
        return
    tell(done, path, report, strict)
    yield from _records(done)


def split(data: bytes, path: str, jobs: int) -> File | None:
    """The file cut into parts, with what the first pass found in it; None when it is read
    whole: under `AFTER` characters, with one job, without fork, or when the first pass
    meets an expansion bound (the whole-file parse says where)."""
    if jobs < 2 or len(data) < AFTER or not parallel.can_fork():
        return None
    text = decode(data, path)
    parts = cuts(text, PART)
    try:
        presumed = _presumed(text, path, parts)
    except BibError:
        return None
    strings = _usable_strings([s for _, s in presumed.strings])
    preambles = tuple(chunk.text for _, chunk in presumed.preambles)
    return File(text, path, parts, presumed, strings, preambles, bibtex.Decoding())


def read_parts(
    file: File,
    jobs: int,
    then: Then | None = None,
    arrived: Callable[[Read], None] | None = None,
) -> list[Read] | None:
    """Every part read (in workers), checked, and read again here where a check fails; None
    when the first pass was wrong about the `@string`s or `@preamble`s. With `then`, a
    worker sends what it makes of its part's records (`Read.ahead`) instead of them; a
    part read again here sends its records (and so does the first part with a record when
    it is not the first part and the file has preambles: its worker could not know).
    `arrived` sees each part that kept its `ahead`, in order, once it is checked (while the
    workers read on), and may take it (`ahead` set to empty bytes)."""

    def work(index: int) -> bytes:
        part = file.parts[index]
        try:
            return marshal.dumps(file.read(index, part.start, then=then).plain())
        except BibError:
            return b""  # read again here, where it is raised in order

    done: list[Read] = []
    seen: dict[str, int] = {}
    at = 0
    for index, blob in enumerate(parallel.ordered_map(work, range(len(file.parts)), jobs)):
        part = file.parts[index]
        if at >= part.end:
            continue  # the part before ran past this whole part
        found = Read.of_plain(marshal.loads(blob)) if blob else None
        if (
            found is None
            or found.start != at
            or any(seen.get(key, -1) != line for key, line in found.asked)
        ):
            if any(part.start <= pos < at for pos, _ in file.presumed.strings):
                return None  # the macros this part starts with are not known here
            try:
                found = file.read(index, at, dict(seen))
            except BibError:
                return None
        if not _as_presumed(found, file.presumed):
            return None
        if found.ahead is not None and found.total and index > 0 and file.preambles and not seen:
            found = file.read(index, at, dict(seen))  # the file's first record, not ahead
        seen.update(found.keys)
        if arrived is not None and found.ahead is not None:
            arrived(found)
        done.append(found)
        at = found.resume
    return done


def _as_presumed(found: Read, presumed: _Presumed) -> bool:
    """Whether a part read the `@string`s and `@preamble`s the first pass found in it."""
    return _within(presumed.strings, found.start, found.resume) == found.strings and (
        _within(presumed.preambles, found.start, found.resume) == found.preambles
    )


Placed = TypeVar("Placed")


def _within(placed: list[tuple[int, Placed]], start: int, stop: int) -> list[Placed]:
    """The items of `placed` (in order of place) placed in `start`..`stop`: a bisection, so
    that checking every part of a file with many `@string`s is not parts x strings."""
    first = bisect.bisect_left(placed, start, key=_place)
    last = bisect.bisect_left(placed, stop, lo=first, key=_place)
    return [item for _, item in placed[first:last]]


def _place(placed: tuple[int, object]) -> int:
    return placed[0]


def tell(done: list[Read], path: str, report: Callable[[str], None] | None, strict: bool) -> None:
    """The parts' warnings, in order (with `strict`, the first as the error), or the error
    of a file without entries: as the whole-file parse tells them, before any record."""
    problems = False
    for found in done:
        for message, line in found.problems:
            problems = True
            if strict:
                raise BibError(message, path, line)
            if report is not None:
                report(f"warning: {path}:{line}: {message}")
    if not any(found.total for found in done):
        raise bibtex.no_entries(path, problems)


def _records(done: list[Read]) -> Iterator[Record]:
    """The records of parts read without `then`, the first with the file's preambles."""
    first = True
    for found in done:
        yield from records(found, first)
        first = first and not found.total


def records(found: Read, first: bool) -> Iterator[Record]:
    """The records a part sent (not `ahead`); `first`: no part before it had one, so its
    first record is the file's, with the preambles."""
    for data in found.records:
        yield record_of(found.first if first else data)
        first = False
