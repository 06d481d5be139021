-- `bib list` counts each paper's live notes; a partial index answers that from the index.
CREATE INDEX notes_live ON notes (record_id) WHERE deleted_at IS NULL;
