-- What a `.bib` input wrote: migrations/0031_latex_source.sql on PostgreSQL (same columns,
-- same meaning).

ALTER TABLE records ADD COLUMN latex TEXT;
ALTER TABLE record_revisions ADD COLUMN latex TEXT;

CREATE TABLE latex_preambles (
    digest TEXT PRIMARY KEY,
    text TEXT NOT NULL
);
