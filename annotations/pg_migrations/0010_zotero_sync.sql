-- Zotero sync state: which local object lives under which Zotero key, at which version,
-- and what was last pushed (the base of the three-way merge). One row per object and
-- library; `library` names the endpoint, library type and id, so two Zotero libraries
-- (or a test server) never share state. `pushed_hash` is the hash of the JSON we last pushed;
-- `source_hash` that of the inputs it was mapped from, so unchanged papers skip the mapping.
CREATE TABLE IF NOT EXISTS zotero_library (
    library TEXT PRIMARY KEY,
    version INTEGER NOT NULL DEFAULT 0,
    synced_at TEXT
);

CREATE TABLE IF NOT EXISTS zotero_object (
    library TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('item', 'note', 'collection')),
    local_id TEXT NOT NULL,
    zotero_key TEXT NOT NULL CHECK (length(zotero_key) = 8),
    parent_key TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'synced', 'deleted_remote')),
    version INTEGER,
    pushed_hash TEXT,
    pushed TEXT,
    source_hash TEXT,
    generation INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    PRIMARY KEY (library, kind, local_id),
    UNIQUE (library, zotero_key)
);
