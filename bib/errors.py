"""Domain exceptions, caught once at the CLI boundary and turned into one line and an exit code."""

from __future__ import annotations

from pathlib import Path


class BibError(Exception):
    """Bad input or bad usage: reported as `bib: error: FILE[:LINE]: message`, exit status 2."""

    exit_code = 2

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
            where += ": "
        return f"{where}{self.message}"


class OperationError(BibError):
    """A well-formed request that could not be carried out (network, conflicts): exit status 1."""

    exit_code = 1
