-- The library: records, their keys, and what the reader adds to them.
-- Nothing here cascades: a record is never deleted by an import, and a note can only
-- be soft-deleted, so no statement can take a note with it.

CREATE TABLE records (
    num INTEGER PRIMARY KEY,            -- internal row number, stable for the search index
    id TEXT NOT NULL UNIQUE,            -- the Record id: stable across imports, notes point here
    key TEXT NOT NULL UNIQUE COLLATE NOCASE,  -- citation key, pinned when first stored;
                                        -- unique ignoring case, as BibTeX compares keys
    venue TEXT NOT NULL DEFAULT '',
    year INTEGER,
    title TEXT NOT NULL DEFAULT '',
    abstract TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL,                 -- the whole Record as JSON (annotations.codec)
    added TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX records_venue ON records (venue COLLATE NOCASE);
CREATE INDEX records_year ON records (year);

CREATE TABLE key_aliases (
    alias TEXT PRIMARY KEY COLLATE NOCASE,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    created TEXT NOT NULL
);

-- Extracted tags, copied out of the record JSON for filtering.
CREATE TABLE record_tags (
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    kind TEXT NOT NULL,
    value TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (record_id, kind, value)
) WITHOUT ROWID;
CREATE INDEX record_tags_value ON record_tags (value COLLATE NOCASE);

CREATE TABLE notes (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    body TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    deleted_at TEXT
);
CREATE INDEX notes_record ON notes (record_id);

CREATE TABLE note_revisions (
    id INTEGER PRIMARY KEY,
    note_id INTEGER NOT NULL REFERENCES notes (id) ON DELETE RESTRICT,
    body TEXT NOT NULL,
    created TEXT NOT NULL,              -- when this text was written
    replaced TEXT NOT NULL              -- when an edit replaced it
);
CREATE INDEX note_revisions_note ON note_revisions (note_id);

CREATE TABLE reading (
    record_id TEXT PRIMARY KEY REFERENCES records (id) ON DELETE RESTRICT,
    rating INTEGER CHECK (rating BETWEEN 1 AND 5),
    status TEXT NOT NULL DEFAULT 'unread'
        CHECK (status IN ('unread', 'to-read', 'reading', 'read', 'skipped')),
    updated TEXT NOT NULL
);
CREATE INDEX reading_status ON reading (status);

CREATE TABLE personal_tags (
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    tag TEXT NOT NULL COLLATE NOCASE,
    added TEXT NOT NULL,
    PRIMARY KEY (record_id, tag)
) WITHOUT ROWID;
CREATE INDEX personal_tags_tag ON personal_tags (tag COLLATE NOCASE);
