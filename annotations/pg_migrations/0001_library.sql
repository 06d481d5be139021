-- The library on PostgreSQL: the tables of migrations/0001_library.sql, same columns and meaning.
-- SQLite's COLLATE NOCASE becomes a unique index on lower(...); times stay ISO 8601 text in
-- UTC milliseconds so that both backends hold identical values and a copy is lossless.

CREATE TABLE records (
    num BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,
    venue TEXT NOT NULL DEFAULT '',
    year INTEGER,
    title TEXT NOT NULL DEFAULT '',
    abstract TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL,
    added TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE UNIQUE INDEX records_key ON records (lower(key));
CREATE INDEX records_venue ON records (lower(venue));
CREATE INDEX records_year ON records (year);

CREATE TABLE key_aliases (
    alias TEXT PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    created TEXT NOT NULL
);
CREATE UNIQUE INDEX key_aliases_alias ON key_aliases (lower(alias));

CREATE TABLE record_tags (
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    kind TEXT NOT NULL,
    value TEXT NOT NULL
);
CREATE UNIQUE INDEX record_tags_key ON record_tags (record_id, kind, lower(value));
CREATE INDEX record_tags_value ON record_tags (lower(value));

CREATE TABLE notes (
    id BIGSERIAL PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    body TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    deleted_at TEXT
);
CREATE INDEX notes_record ON notes (record_id);

CREATE TABLE note_revisions (
    id BIGSERIAL PRIMARY KEY,
    note_id BIGINT NOT NULL REFERENCES notes (id) ON DELETE RESTRICT,
    body TEXT NOT NULL,
    created TEXT NOT NULL,
    replaced TEXT NOT NULL
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
    tag TEXT NOT NULL,
    added TEXT NOT NULL
);
CREATE UNIQUE INDEX personal_tags_key ON personal_tags (record_id, lower(tag));
CREATE INDEX personal_tags_tag ON personal_tags (lower(tag));
