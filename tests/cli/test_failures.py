"""Every failure is one line and an exit status: the OS's, the codecs', click's own."""

from __future__ import annotations

import errno

import pytest

from bib.errors import BibError, OperationError
from bib.failures import BAD_INPUT, FAILED, describe


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (errno.ENOENT, BAD_INPUT),
        (errno.ENOTDIR, BAD_INPUT),
        (errno.EISDIR, BAD_INPUT),
        (errno.EACCES, BAD_INPUT),
        (errno.EROFS, BAD_INPUT),
        (errno.ENOSPC, FAILED),
        (errno.EPIPE, FAILED),
        (errno.EIO, FAILED),
    ],
)
def test_os_errors_name_the_file_and_choose_the_status(code: int, status: int) -> None:
    failure = describe(OSError(code, "ignored", "out/refs.bib"))
    assert failure.exit_code == status
    assert failure.message.startswith("out/refs.bib: ")
    assert "\n" not in failure.message


def test_domain_errors_keep_their_place_and_status() -> None:
    assert describe(BibError("bad", "a.bib", 3)) == ("a.bib:3: bad", 2)
    assert describe(OperationError("offline")).exit_code == 1


def test_decoding_errors_are_bad_input() -> None:
    exc: UnicodeDecodeError | None = None
    try:
        b"a\xff".decode("utf-8")
    except UnicodeDecodeError as caught:
        exc = caught
    assert exc is not None
    assert describe(exc).exit_code == BAD_INPUT


def test_runaway_nesting_is_bad_input() -> None:
    assert describe(RecursionError("maximum recursion depth exceeded")).exit_code == BAD_INPUT


def test_a_bug_is_a_failed_operation_that_asks_for_the_traceback() -> None:
    failure = describe(KeyError("x"))
    assert failure.exit_code == FAILED
    assert "BIB_DEBUG=1" in failure.message


def test_a_full_standard_output_is_one_line_and_exit_1(tmp_path: object) -> None:
    import subprocess
    import sys
    from pathlib import Path

    seeds = Path(__file__).resolve().parents[2] / "seeds"
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "bib", "convert", str(seeds), "-f", "bibtex"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == "bib: error: no space left on device"
    assert "Traceback" not in result.stderr


def test_an_editor_that_fails_is_one_bib_error_line(tmp_path: object) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "EDITOR": "false", "BIB_LIBRARY": f"{tmp_path}/lib.sqlite"}
    result = subprocess.run(
        [sys.executable, "-m", "bib", "note", "add", "nokey"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (1, 2)
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("bib: error: ")


def test_a_message_quoting_a_carriage_return_stays_one_line() -> None:
    """Regression: a CSL item with id "\\r" split the error line in two."""
    message = describe(BibError('invalid CSL-JSON item 0 ("\r\n\x1b[31m")', "in.json")).message
    assert "\n" not in message and "\r" not in message and "\x1b" not in message
