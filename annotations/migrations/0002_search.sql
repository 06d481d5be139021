-- Full-text search (FTS5) over titles, abstracts, tags and notes. Both indexes are
-- external-content tables kept in step by triggers, so the text is stored once.

ALTER TABLE records ADD COLUMN tags_text TEXT NOT NULL DEFAULT '';

UPDATE records SET tags_text = trim(
    coalesce((SELECT group_concat(value, ' ') FROM record_tags WHERE record_id = records.id), '')
    || ' ' ||
    coalesce((SELECT group_concat(tag, ' ') FROM personal_tags WHERE record_id = records.id), '')
);

CREATE VIRTUAL TABLE records_fts USING fts5 (
    title, abstract, tags_text,
    content = 'records', content_rowid = 'num',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, title, abstract, tags_text)
    VALUES (new.num, new.title, new.abstract, new.tags_text);
END;

CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, title, abstract, tags_text)
    VALUES ('delete', old.num, old.title, old.abstract, old.tags_text);
END;

CREATE TRIGGER records_fts_update AFTER UPDATE OF title, abstract, tags_text ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, title, abstract, tags_text)
    VALUES ('delete', old.num, old.title, old.abstract, old.tags_text);
    INSERT INTO records_fts (rowid, title, abstract, tags_text)
    VALUES (new.num, new.title, new.abstract, new.tags_text);
END;

CREATE VIRTUAL TABLE notes_fts USING fts5 (
    body,
    content = 'notes', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts (rowid, body) VALUES (new.id, new.body);
END;

CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;

CREATE TRIGGER notes_fts_update AFTER UPDATE OF body ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, body) VALUES ('delete', old.id, old.body);
    INSERT INTO notes_fts (rowid, body) VALUES (new.id, new.body);
END;

INSERT INTO records_fts (records_fts) VALUES ('rebuild');
INSERT INTO notes_fts (notes_fts) VALUES ('rebuild');
