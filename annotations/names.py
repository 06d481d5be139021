"""The names a user gives the library (citation keys, personal tags), checked once with the
reason a name is refused, so that no bad name is stored and then fails every later export.

A key goes into BibTeX and BibLaTeX entries (read by bibtex, biber and pandoc), CSL-JSON ids,
RIS `ID` lines and the file names of `bib notes export -f markdown` (`KEY.md`): a key must
be safe in all of them. A personal tag goes into JabRef's comma-separated `groups` field and
BibTeX braces.
"""

from __future__ import annotations

import os
import re

from bib.errors import BibError

KEY_MAX = 100
"""Longest key: far above any real one, and `KEY.md` stays under every file system's
255-byte name limit."""

TAG_MAX = 100

_KEY_CHARS = re.compile(r"[A-Za-z0-9_:.+-]*")
_TAG_BAD = re.compile(r"[\s,{}\\#%\x00-\x1f\x7f]")


def check_key(key: str) -> str:
    """`key` when every output accepts it; else a BibError with the reason."""
    reason = _key_problem(key)
    if reason:
        shown = key if len(key) <= 40 else f"{key[:40]}..."
        raise BibError(f"invalid citation key {shown!r}: {reason}")
    return key


def _key_problem(key: str) -> str:
    if not key:
        return "empty"
    if len(key) > KEY_MAX:
        return f"{len(key)} characters, at most {KEY_MAX} (keys name files of notes exports)"
    if "/" in key or "\\" in key:
        return "a slash would make `bib notes export` write KEY.md into another directory"
    if not key[0].isascii() or not key[0].isalnum():
        return "must start with a letter or digit (BibTeX and pandoc misread others)"
    if not _KEY_CHARS.fullmatch(key):
        bad = next(c for c in key if not _KEY_CHARS.fullmatch(c))
        return (
            f"{bad!r} is not read the same by BibTeX, biber and pandoc; "
            "use ASCII letters, digits and _ : . + -"
        )
    if ".." in key:
        return "'..' reads as a parent directory in file names"
    return ""


def check_tag(tag: str) -> str:
    """`tag` when it survives JabRef's `groups` field and BibTeX braces; else a BibError."""
    if not tag:
        raise BibError("empty tag")
    if len(tag) > TAG_MAX:
        raise BibError(f"invalid tag {tag[:20]!r}...: {len(tag)} characters, at most {TAG_MAX}")
    bad = _TAG_BAD.search(tag)
    if bad:
        raise BibError(
            f"invalid tag {tag!r}: {bad.group()!r} would split or break the exported `groups` "
            "field; no spaces, commas, braces, #, % or backslashes"
        )
    return tag


USER_MAX = 100
_USER_BAD = re.compile(r"[\x00-\x1f\x7f]")


def check_user(name: str) -> str:
    """`name` when it can name a reader (one line, not empty, not blank); else a BibError."""
    if not name.strip():
        raise BibError("empty user name (set BIB_USER)")
    if len(name) > USER_MAX or _USER_BAD.search(name):
        raise BibError(
            f"invalid user name {name[:20]!r}: one line of at most {USER_MAX} characters"
        )
    return name


def current_user() -> str:
    """Who is using the library: `BIB_USER`, else the login name. Notes record it as their
    author, and ratings and reading status are kept per user."""
    import getpass

    given = os.environ.get("BIB_USER")
    if given is not None:
        return check_user(given)
    try:
        return check_user(getpass.getuser())
    except (OSError, KeyError, BibError):  # no login name (a container without a passwd entry)
        return f"uid-{os.getuid()}"
