"""Papers to sync, read from the annotation store (records with notes, rating, status, tags)."""

from __future__ import annotations

from annotations import Store
from bib.zotero.mapping import Note, Paper


def papers(store: Store) -> list[Paper]:
    """Every stored paper with its live notes; deleted notes stay out of Zotero."""
    return [
        Paper(
            record=entry.record,
            notes=tuple(Note(note.uuid, note.body) for note in entry.notes if not note.deleted),
            rating=entry.rating,
            status=str(entry.status) if entry.status else None,
            personal_tags=tuple(entry.personal_tags),
        )
        for entry in store.entries(full=True)
    ]
