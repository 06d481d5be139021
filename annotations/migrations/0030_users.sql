-- Several people: each note records its author (who wrote it) and who wrote its current text;
-- each earlier text records who wrote it; ratings and reading status are kept per reader.
-- Personal tags stay one set per paper: the team's labels.
-- Rows written before this migration get the user who opens the library first with this
-- version (BIB_USER, else the login name), which the store puts in `migration_context`
-- (a temporary table of this connection); without one, the documented placeholder ''
-- ("written before authors were recorded").

ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN edited_by TEXT NOT NULL DEFAULT '';
ALTER TABLE note_revisions ADD COLUMN author TEXT NOT NULL DEFAULT '';

UPDATE notes SET
    author = coalesce((SELECT value FROM migration_context WHERE name = 'user'), ''),
    edited_by = coalesce((SELECT value FROM migration_context WHERE name = 'user'), '');
UPDATE note_revisions SET
    author = coalesce((SELECT value FROM migration_context WHERE name = 'user'), '');

CREATE TABLE reading_by_reader (
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    reader TEXT NOT NULL,
    rating INTEGER CHECK (rating BETWEEN 1 AND 5),
    status TEXT NOT NULL DEFAULT 'unread'
        CHECK (status IN ('unread', 'to-read', 'reading', 'read', 'skipped')),
    updated TEXT NOT NULL,
    PRIMARY KEY (record_id, reader)
) WITHOUT ROWID;
INSERT INTO reading_by_reader (record_id, reader, rating, status, updated)
    SELECT record_id, coalesce((SELECT value FROM migration_context WHERE name = 'user'), ''),
        rating, status, updated
    FROM reading;
DROP TABLE reading;
ALTER TABLE reading_by_reader RENAME TO reading;
CREATE INDEX reading_status ON reading (status);
CREATE INDEX reading_reader ON reading (reader, status);
