"""Small readers of our own output that only tests need, kept out of the package."""

from __future__ import annotations

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
