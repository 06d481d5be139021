-- Records the user edits, removes and attaches files to.
-- `user_fields`: the Record fields (JSON list of names) the user changed with `bib edit`/`set`;
-- imports keep the user's value and report a conflict. `deleted_at`: a soft delete (`bib rm`),
-- hidden from list, search and export, undone by `bib restore`; only `bib rm --purge` deletes.

ALTER TABLE records ADD COLUMN deleted_at TEXT;
ALTER TABLE records ADD COLUMN user_fields TEXT NOT NULL DEFAULT '[]';
CREATE INDEX records_live ON records (key) WHERE deleted_at IS NULL;

-- Every earlier text of a record, as notes keep theirs: the whole Record JSON it had.
CREATE TABLE record_revisions (
    id INTEGER PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    data TEXT NOT NULL,                 -- the Record as JSON (annotations.codec)
    created TEXT NOT NULL,              -- when this version was written
    replaced TEXT NOT NULL,             -- when an edit replaced it
    origin TEXT NOT NULL                -- what replaced it: edit, set, revert
);
CREATE INDEX record_revisions_record ON record_revisions (record_id);

-- Local files of a paper (`bib attach`); the path is absolute.
CREATE TABLE attachments (
    id INTEGER PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    path TEXT NOT NULL,
    copied INTEGER NOT NULL DEFAULT 0 CHECK (copied IN (0, 1)),
    added TEXT NOT NULL,
    UNIQUE (record_id, path)
);
