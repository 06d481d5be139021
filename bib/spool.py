"""The spool: byte strings on disk, each read back by its offset, so that a conversion
holds no record in memory while it waits for every key (`bib.convert.spool`).

Records go in as plain lists and tuples that `marshal` writes (`record_bytes`), several times
faster than pickle writes dataclasses and enums; a caller may keep any bytes instead (what it
renders of a record). A worker process hands its items over as a file (`write_items`, then
`Spool.add_file`), not through a pipe.
"""

from __future__ import annotations

import errno
import marshal
import os
import tempfile
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import IO, NamedTuple

from bib.record import (
    Author,
    EntryType,
    FieldLatex,
    LatexSource,
    Link,
    LinkRole,
    Record,
    Source,
    StringDef,
    Tag,
    TagKind,
)


class Spool:
    """Byte strings on disk, each read back by its offset: what `spool` keeps instead of
    records (a record as `record_bytes` encodes it, or what a caller renders of it).

    Items are appended through the file's buffer, without a seek (a seek flushes it: one
    system call an item); reading one back (`os.pread`, which leaves the file's position
    alone) flushes the buffer first when the item is still in it."""

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close)
        self._flushed = 0
        self.offsets = array("q")  # 8 bytes an item
        self._end = 0

    def add(self, record: Record) -> None:
        self.add_bytes(record_bytes(record))

    def add_bytes(self, data: bytes) -> None:
        self._file.write(data)
        self.offsets.append(self._end)
        self._end += len(data)

    def add_all(self, items: list[bytes]) -> None:
        """`add_bytes` each of `items`, in one write."""
        self._file.write(b"".join(items))
        self._added(map(len, items))

    def add_file(self, items: Items) -> None:
        """`add_all` of the items another process wrote (`write_items`), copied from file to
        file by the kernel (`os.copy_file_range`); their file is removed."""
        path, sizes = items
        if not path:
            return
        size = sum(sizes)
        self._file.flush()
        with open(path, "rb") as source:
            _copy(source.fileno(), self._file.fileno(), size, self._end)
        os.unlink(path)
        self._file.seek(self._end + size)  # the buffer's position, past what the kernel wrote
        self._flushed = self._end + size
        self._added(sizes)

    def _added(self, sizes: Iterable[int]) -> None:
        for size in sizes:
            self.offsets.append(self._end)
            self._end += size

    def get(self, index: int, key: str | None = None) -> Record:
        """The record added `index`-th, with `key` as its citation key when given."""
        return _record(marshal.loads(self.get_bytes(index)), key)

    def get_bytes(self, index: int) -> bytes:
        """The item added `index`-th: one `pread` of its bytes (a seek and a buffered read
        cost two system calls and read a whole buffer: 4.7 µs an item read out of order,
        against 2.8)."""
        start = self.offsets[index]
        end = self.offsets[index + 1] if index + 1 < len(self.offsets) else self._end
        if end > self._flushed:
            self._file.flush()
            self._flushed = self._end
        return os.pread(self._file.fileno(), end - start, start)

    def __len__(self) -> int:
        return len(self.offsets)

    def close(self) -> None:
        self._file.close()


_NO_KERNEL_COPY = frozenset({errno.EXDEV, errno.ENOSYS, errno.EOPNOTSUPP, errno.EINVAL})


def _copy(source: int, target: int, size: int, at: int) -> None:
    """The first `size` bytes of file `source` written into file `target` at `at`: by the
    kernel, or through this process where it cannot copy from file to file (another file
    system, an old kernel)."""
    copied = 0
    while copied < size:
        try:
            done = os.copy_file_range(source, target, size - copied, copied, at + copied)
        except OSError as failed:
            if failed.errno not in _NO_KERNEL_COPY:
                raise
            done = os.pwrite(target, os.pread(source, size - copied, copied), at + copied)
        if not done:
            raise OSError(f"{size - copied} bytes short of {size}")
        copied += done


class Items(NamedTuple):
    """Items another process wrote for a spool (`write_items`): their file (empty: none) and
    the size of each, in order."""

    path: str
    sizes: list[int]

    def plain(self) -> tuple[str, list[int]]:
        """As `marshal` writes it (a plain tuple)."""
        return (self.path, self.sizes)


NO_ITEMS = Items("", [])


def write_items(directory: str, items: Sequence[bytes]) -> Items:
    """`items` in a new file in `directory`, for the process that owns a spool to take in
    one copy (`Spool.add_file`): a worker's results then cross no pipe, which cost the
    parent about 4 ms a MiB (pickled, read, unpickled, unmarshalled, joined, written)."""
    if not items:
        return NO_ITEMS
    handle, path = tempfile.mkstemp(dir=directory)
    with open(handle, "wb") as file:
        file.write(b"".join(items))
    return Items(path, [len(item) for item in items])


_RECORD_FIELDS = tuple(f.name for f in fields(Record))
_values = attrgetter(*_RECORD_FIELDS)
"""Every field of a Record, in order, as one tuple (one C call)."""
_AT = {name: i for i, name in enumerate(_RECORD_FIELDS)}
_ENTRY_TYPES = {t.value: t for t in EntryType}
_ROLES = {r.value: r for r in LinkRole}
_KINDS = {k.value: k for k in TagKind}


def record_of(data: bytes) -> Record:
    """The record `record_bytes` wrote (in any process: worker processes get these bytes,
    cheaper to send than a Record)."""
    return _record(marshal.loads(data))


def record_bytes(record: Record) -> bytes:
    """A record as the spool keeps it by default (see `Spool.get`)."""
    return marshal.dumps(_plain(record))


def _plain(record: Record) -> list[object]:
    """A Record as plain lists, tuples, strings and numbers (marshal writes them several
    times faster than pickle writes dataclasses and enums)."""
    out = list(_values(record))
    out[_AT["entry_type"]] = record.entry_type.value
    if record.authors:
        out[_AT["authors"]] = [(a.family, a.given, a.literal, a.suffix) for a in record.authors]
    if record.links:
        out[_AT["links"]] = [(link.url, link.role.value) for link in record.links]
    if record.tags:
        out[_AT["tags"]] = [
            (t.kind.value, t.value, t.label, t.evidence, t.loose) for t in record.tags
        ]
    out[_AT["sources"]] = [(s.path, s.line) for s in record.sources]
    if (latex := record.latex) is not None:
        out[_AT["latex"]] = (
            [(f.name, f.latex, f.decoded, f.raw) for f in latex.fields],
            [(d.name, d.raw) for d in latex.strings],
            latex.preambles,
        )
    return out


def _record(plain: list[object], key: str | None = None) -> Record:
    """The Record `_plain` wrote (marshal reads its tuples back as tuples)."""
    plain[_AT["entry_type"]] = _ENTRY_TYPES[plain[_AT["entry_type"]]]  # type: ignore[index]
    if authors := plain[_AT["authors"]]:
        plain[_AT["authors"]] = tuple(Author(*a) for a in authors)  # type: ignore[attr-defined]
    if links := plain[_AT["links"]]:
        plain[_AT["links"]] = tuple(Link(u, _ROLES[r]) for u, r in links)  # type: ignore[attr-defined]
    if tags := plain[_AT["tags"]]:
        plain[_AT["tags"]] = tuple(
            Tag(_KINDS[k], v, label, e, loose)
            for k, v, label, e, loose in tags  # type: ignore[attr-defined]
        )
    plain[_AT["sources"]] = tuple(Source(*s) for s in plain[_AT["sources"]])  # type: ignore[attr-defined]
    if (latex := plain[_AT["latex"]]) is not None:
        kept: list[tuple[str, str, str, str]]
        strings: list[tuple[str, str]]
        preambles: tuple[str, ...]
        kept, strings, preambles = latex  # type: ignore[misc]
        plain[_AT["latex"]] = LatexSource(
            tuple(FieldLatex(*f) for f in kept),
            tuple(StringDef(*d) for d in strings),
            preambles,
        )
    if key is not None:
        plain[_AT["key"]] = key
    return Record(*plain)  # type: ignore[arg-type]
