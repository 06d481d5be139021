"""Small readers of our own output that only tests need, kept out of the package."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from html.parser import HTMLParser

from bib.record import Record, Tag, TagKind
from bib.zotero.mapping import NOTE_MARKER


def tags_of(record: Record, *kinds: TagKind) -> list[Tag]:
    """The record's tags of `kinds` (all of them when none is given), in tag order."""
    return [t for t in record.tags if not kinds or t.kind in kinds]


class _NoteMarker(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.found is None:
            self.found = dict(attrs).get(NOTE_MARKER)


def note_id_of(note_html: str) -> str | None:
    """Our note id in a Zotero note's HTML, read by the standard library's HTML parser
    (independent of how `mapping.note_html` writes and escapes it)."""
    parser = _NoteMarker()
    parser.feed(note_html)
    parser.close()
    return parser.found


def pybtex_fields(text: str) -> dict[str, dict[str, str]]:
    """Each entry's fields as pybtex reads a `.bib` text (lower-cased keys and field names,
    name lists joined with `and`): an independent reader of what a `.bib` means."""
    from pybtex import database, errors

    errors.set_strict_mode(False)
    quiet = io.StringIO()  # pybtex warns of undefined @strings, as BibTeX does
    with contextlib.redirect_stderr(quiet), contextlib.redirect_stdout(quiet):
        data = database.parse_string(text, "bibtex")
    found: dict[str, dict[str, str]] = {}
    for key, entry in data.entries.items():
        fields = {name.lower(): value for name, value in entry.fields.items()}
        for role, people in entry.persons.items():
            fields[role.lower()] = " and ".join(str(person) for person in people)
        found[key.lower()] = fields
    return found


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `code`: what a command or
    an import really costs at start-up, unaffected by what this test process loaded."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return set(out.split())
