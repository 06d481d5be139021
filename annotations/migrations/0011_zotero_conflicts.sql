-- Zotero sync conflicts left open: a field changed both here and in Zotero since the last
-- sync, settled by neither side (no --prefer). Both values are kept until a later run settles
-- it (--prefer local|remote, or the two sides agree again); `field` is the pull's field name
-- (title, date, creators, container, ...) or the Zotero field the push met it on.
CREATE TABLE IF NOT EXISTS zotero_conflict (
    library TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('item', 'note')),
    local_id TEXT NOT NULL,
    field TEXT NOT NULL,
    local TEXT NOT NULL,
    remote TEXT NOT NULL,
    seen_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (library, kind, local_id, field)
);
