"""Atomic file output: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: str | Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Write `data` to a temp file beside `path`, fsync it, then rename it over `path`.

    A crash or an exception at any point leaves `path` as it was.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        publish(tmp, target, mode=mode)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


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
