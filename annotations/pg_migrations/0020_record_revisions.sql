-- Records the user edits, removes and attaches files to: migrations/0020 on PostgreSQL.
-- `user_fields`: the Record fields (JSON list) the user changed; `deleted_at`: a soft delete.

ALTER TABLE records ADD COLUMN deleted_at TEXT;
ALTER TABLE records ADD COLUMN user_fields TEXT NOT NULL DEFAULT '[]';
CREATE INDEX records_live ON records (key) WHERE deleted_at IS NULL;

CREATE TABLE record_revisions (
    id BIGSERIAL PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    data TEXT NOT NULL,
    created TEXT NOT NULL,
    replaced TEXT NOT NULL,
    origin TEXT NOT NULL
);
CREATE INDEX record_revisions_record ON record_revisions (record_id);

CREATE TABLE attachments (
    id BIGSERIAL PRIMARY KEY,
    record_id TEXT NOT NULL REFERENCES records (id) ON DELETE RESTRICT,
    path TEXT NOT NULL,
    copied INTEGER NOT NULL DEFAULT 0 CHECK (copied IN (0, 1)),
    added TEXT NOT NULL,
    UNIQUE (record_id, path)
);
