"""Zotero sync: mapping (Record -> Zotero JSON), a guarded client, and the sync engine."""
