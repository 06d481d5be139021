"""What every failure looks like to the user: one line and an exit status, never a traceback.

The CLI boundary hands any exception it catches to `describe`; domain errors say where they
happened themselves, and the rest (the operating system's, the codecs', the parsers') are
worded here once, so that each command does not need its own `try`. `BIB_DEBUG=1` adds the
traceback for a bug report.
"""

from __future__ import annotations

import errno
import os
from typing import NamedTuple

from bib.errors import BibError

BAD_INPUT = 2
FAILED = 1

_BAD_PLACE = {
    errno.ENOENT: "no such file or directory",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.EISDIR: "is a directory",
    errno.EEXIST: "already exists",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENAMETOOLONG: "file name too long",
    errno.ELOOP: "too many levels of symbolic links",
    errno.EINVAL: "invalid argument (this place cannot hold a file)",
}
"""Errors that say the place the user named is wrong: bad input, exit 2."""

_FAILED_OPERATION = {
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EIO: "input/output error",
    errno.EPIPE: "broken pipe",
    errno.EFBIG: "file too large",
}
"""Errors of a well-formed request that the system could not carry out: exit 1."""


class Failure(NamedTuple):
    message: str
    exit_code: int


def describe(exc: BaseException) -> Failure:
    """The one line (without the `bib: error: ` prefix) and the exit status for `exc`."""
    failure = _describe(exc)
    return failure._replace(message=one_line(failure.message))


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)]} | {
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: " ",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}
"""C0 and C1 controls and Unicode's line and paragraph separators: whatever splits a line."""


def one_line(text: str) -> str:
    """`text` with its line breaks and control characters escaped: a value from the input
    that a message quotes (a CSL id with a carriage return) cannot split the line or drive
    the terminal."""
    return text.translate(_CONTROL)


def _describe(exc: BaseException) -> Failure:
    if isinstance(exc, BibError):
        return Failure(str(exc), exc.exit_code)
    if isinstance(exc, OSError):
        return _os_failure(exc)
    if isinstance(exc, UnicodeError):
        reason = getattr(exc, "reason", str(exc))
        return Failure(f"text that is not valid UTF-8 (or cannot be encoded): {reason}", BAD_INPUT)
    if isinstance(exc, RecursionError):
        return Failure("input nested too deeply to read", BAD_INPUT)
    if isinstance(exc, MemoryError):
        return Failure("out of memory", FAILED)
    return Failure(
        f"internal error: {type(exc).__name__}: {exc} (run with BIB_DEBUG=1 for the traceback)",
        FAILED,
    )


def _os_failure(exc: OSError) -> Failure:
    where = exc.filename if exc.filename is not None else None
    code = exc.errno if exc.errno is not None else -1
    if code in _FAILED_OPERATION:
        text, status = _FAILED_OPERATION[code], FAILED
    elif code in _BAD_PLACE:
        text, status = _BAD_PLACE[code], BAD_INPUT
    else:
        text, status = exc.strerror or str(exc), FAILED
    return Failure(f"{where}: {text}" if where else text, status)


def debug() -> bool:
    """Whether the user asked for tracebacks (`BIB_DEBUG=1`)."""
    return os.environ.get("BIB_DEBUG", "") not in ("", "0")
