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
import stat
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

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


def write_atomic(path: str | Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Write `data` to a temp file beside `path`, fsync it, then rename it over `path`.

    A crash or an exception at any point leaves `path` as it was (and no directory made for
    it). A link is followed; a device or FIFO is written through (see the module docstring).
    """
    write_all({Path(path): data}, mode=mode)


def write_all(files: Mapping[Path, str | bytes], *, mode: int | None = None) -> None:
    """Several files as one (`bib notes export -f markdown`): every file is staged (a temp
    file beside it, fsynced) before any is renamed into place, so a failure while writing
    (a full disk) leaves every target as it was, and removes the directories made for them.
    Devices and FIFOs among them are written through last."""
    wheres = [(destination(path), data) for path, data in files.items()]
    with contextlib.ExitStack() as undo:
        staged: list[tuple[str, Path]] = []
        for where, data in wheres:
            if where.stream:
                continue
            for made in reversed(_make_parents(where.path.parent)):
                undo.callback(_remove_empty_dir, made)
            remove_stale(where.path)
            staged.append((_stage(where.path, _bytes(data), undo), where.path))
        for tmp, target in staged:
            publish(tmp, target, mode=mode)
        undo.pop_all()
    for where, data in wheres:
        if where.stream:
            with open(where.path, "wb") as handle:
                handle.write(_bytes(data))


def _bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def _stage(target: Path, payload: bytes, undo: contextlib.ExitStack) -> str:
    """A fsynced temp file beside `target` holding `payload`; `undo` removes it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    undo.callback(_remove, tmp)
    with os.fdopen(fd, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    return tmp


def _make_parents(directory: Path) -> list[Path]:
    """`directory` made with its missing parents; the ones made, outermost first."""
    missing: list[Path] = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    missing.reverse()
    for made in missing:
        made.mkdir(exist_ok=True)
    return missing


def _remove(path: str | Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _remove_empty_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()


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
