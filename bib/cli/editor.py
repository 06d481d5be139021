"""The user's editor for `bib edit` and `bib note add|edit`: $VISUAL, then $EDITOR.

Unlike `click.edit`, an editor that fails or cannot be found is one `bib: error:` line, and
without $VISUAL/$EDITOR no editor is guessed unless standard input and output are a
terminal (a script or a pipe must never find itself inside vi).
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from pathlib import Path

from bib.errors import BibError, OperationError

FALLBACK = "vi"
"""The editor used on a terminal when neither $VISUAL nor $EDITOR is set (POSIX's own)."""


def editor_command() -> list[str]:
    """The editor to run, or a BibError when none is set and there is no terminal."""
    chosen = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if chosen:
        return shlex.split(chosen)
    if sys.stdin.isatty() and sys.stdout.isatty():
        return [FALLBACK]
    raise BibError(
        "no editor: set $VISUAL or $EDITOR, or give the text as an argument (`-` reads "
        "standard input)"
    )


def edit(text: str, *, suffix: str) -> str | None:
    """What the user saved after editing `text`, or None when the file was left unchanged."""
    command = editor_command()
    fd, name = tempfile.mkstemp(prefix="bib-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            import subprocess  # only to edit: `note add` imports this module too

            status = subprocess.call([*command, name])
        except OSError as exc:
            raise BibError(f"cannot start the editor {command[0]!r}: {exc.strerror}") from None
        if status != 0:
            raise OperationError(
                f"the editor {' '.join(command)!r} exited with status {status}; nothing saved"
            )
        try:
            saved = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise BibError(f"the edited text is not UTF-8: {exc.reason}; nothing saved") from None
        return None if saved == text else saved
    finally:
        path.unlink(missing_ok=True)


def read_stdin() -> str:
    """Standard input as UTF-8 text, or a BibError naming the first bad byte."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BibError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}", "<stdin>"
        ) from None
