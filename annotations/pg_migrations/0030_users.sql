-- Several people: migrations/0030_users.sql on PostgreSQL (same columns, same meaning).
-- Rows written before it get the user who upgrades (`migration_context`, a temporary table
-- of the upgrading session), else the placeholder ''.

ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN edited_by TEXT NOT NULL DEFAULT '';
ALTER TABLE note_revisions ADD COLUMN author TEXT NOT NULL DEFAULT '';

UPDATE notes SET
    author = coalesce((SELECT value FROM migration_context WHERE name = 'user'), ''),
    edited_by = coalesce((SELECT value FROM migration_context WHERE name = 'user'), '');
UPDATE note_revisions SET
    author = coalesce((SELECT value FROM migration_context WHERE name = 'user'), '');

ALTER TABLE reading ADD COLUMN reader TEXT NOT NULL DEFAULT '';
UPDATE reading SET reader = coalesce((SELECT value FROM migration_context WHERE name = 'user'), '');
ALTER TABLE reading ALTER COLUMN reader DROP DEFAULT;
ALTER TABLE reading DROP CONSTRAINT reading_pkey;
ALTER TABLE reading ADD PRIMARY KEY (record_id, reader);
CREATE INDEX reading_reader ON reading (reader, status);
