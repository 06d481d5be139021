"""Every file bib writes goes through here, and what happens depends on what the target is.

- A regular file, or a new path: written to a temp file beside it, fsynced, renamed over it
  (its mode kept), so a reader sees the old file or the new one, never half of either.
- A symbolic link: followed, and its target replaced that way; the link stays a link.
- A character device, FIFO or socket (`/dev/null`, `/dev/stdout`, a named pipe): written
  through as a stream, never renamed over (that would turn `/dev/full` into a regular file).
- A directory, or a path through a file: the OS's error, one `bib: error:` line, exit 2.
Temp files are named `.NAME.XXXX.tmp`; stale ones of ours beside a target (left by a killed
run) are removed on the next write to it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

STALE_AFTER_S = 3600
"""A temp file of ours older than this is left over from a run that was killed."""


@dataclass(frozen=True, slots=True)
class Destination:
    """Where the bytes for a target really go: `path` (a link's target, resolved), and whether
    it is a stream to write through (`stream`) rather than a file to replace."""

    path: Path
    stream: bool


def destination(target: str | Path) -> Destination:
    """What `target` is, links followed; OSError (ENOTDIR, EISDIR) for a place that cannot
    take a file."""
    path = Path(target)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        info = path.stat()
    except FileNotFoundError:
        _check_parent(path, target)
        return Destination(path, stream=False)
    except NotADirectoryError:
        raise _not_a_directory(target) from None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target))
    if stat.S_ISREG(info.st_mode):
        return Destination(path, stream=False)
    return Destination(path, stream=True)


def _check_parent(path: Path, target: str | Path) -> None:
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise _not_a_directory(target)
            return


def _not_a_directory(target: str | Path) -> OSError:
    """The operating system's own error (callers that may do without a file catch OSError;
    the CLI words it as one line, bib.failures)."""
    return NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(target))


def remove_stale(path: Path) -> None:
    """Delete temp files of ours beside `path` that a killed run left behind."""
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.[A-Za-z0-9_]{{8}}\.tmp$")
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if pattern.match(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    if now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_S:
                        os.unlink(entry.path)


class Staged:
    """One file being written for `target`: bytes go to `file` (a temp file beside the
    target; for a stream, an anonymous one), and only `commit` makes them the target's.
    `discard` (or leaving a `with` block by an exception) removes the temp file and any
    directory made for it, leaving the target as it was.

    Several outputs of one run are each staged, all written, then all committed: a failure
    before the commits changes none of them."""

    def __init__(self, target: str | Path, *, text: bool = False, mode: int | None = None):
        self.destination = destination(target)
        self._mode = mode
        self._made: list[Path] = []
        self._tmp: Path | None = None
        self._text = text
        encoding = _encoding(text)
        if self.destination.stream:
            # closed by commit or discard
            self.file: IO[Any] = tempfile.TemporaryFile("w+" if text else "w+b", **encoding)  # noqa: SIM115
            return
        path = self.destination.path
        directory = path.parent
        while not directory.exists():
            self._made.append(directory)
            directory = directory.parent
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(path)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        self._tmp = Path(tmp)
        self.file = os.fdopen(fd, "w" if text else "wb", **encoding)

    def commit(self) -> None:
        """fsync and rename the temp file over the target (`publish`); a stream gets the
        staged bytes written through."""
        if self._tmp is None:
            self.file.seek(0)
            mode = "w" if self._text else "wb"
            with open(self.destination.path, mode, **_encoding(self._text)) as out:
                shutil.copyfileobj(self.file, out, COPY_CHUNK)
            self.file.close()
            return
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()
        publish(self._tmp, self.destination.path, mode=self._mode)
        self._tmp = None
        self._made.clear()

    def discard(self) -> None:
        with contextlib.suppress(OSError):  # a full disk fails the flush a close does
            self.file.close()
        if self._tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._tmp)
            self._tmp = None
        for directory in self._made:  # the deepest first
            with contextlib.suppress(OSError):
                directory.rmdir()
        self._made.clear()

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is not None:
            self.discard()


COPY_CHUNK = 1 << 20
"""Bytes (or characters) copied at a time from a staged file to a stream."""


def _encoding(text: bool) -> dict[str, Any]:
    """How a staged text file is opened: UTF-8, line ends written as given."""
    return {"encoding": "utf-8", "newline": ""} if text else {}


def write_atomic(path: str | Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Write `data` to a temp file beside `path`, fsync it, then rename it over `path`.

    A crash or an exception at any point leaves `path` as it was (and no directory made for
    it). A link is followed; a device or FIFO is written through (see the module docstring).
    """
    write_all({Path(path): data}, mode=mode)


def write_all(files: Mapping[Path, str | bytes], *, mode: int | None = None) -> None:
    """Several files as one (`bib notes export -f markdown`): every file is staged
    (`Staged`) and fsynced before any is renamed into place, so a failure while writing (a
    full disk) leaves every target as it was, and removes the directories made for them.
    Devices and FIFOs among them are written through last."""
    with contextlib.ExitStack() as undo:
        staged: list[Staged] = []
        for path, data in files.items():
            one = undo.enter_context(Staged(path, mode=mode))
            one.file.write(data.encode("utf-8") if isinstance(data, str) else data)
            if not one.destination.stream:
                one.file.flush()
                os.fsync(one.file.fileno())
            staged.append(one)
        for one in sorted(staged, key=lambda one: one.destination.stream):
            one.commit()
        undo.pop_all()


def publish(tmp: str | Path, target: Path, *, mode: int | None = None) -> None:
    """Rename a written and fsynced temp file over `target`: `mode`, else the mode `target`
    had, else what the umask gives a new file."""
    if mode is not None:
        os.chmod(tmp, mode)
    elif target.exists():
        os.chmod(tmp, target.stat().st_mode & 0o7777)
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, target)
