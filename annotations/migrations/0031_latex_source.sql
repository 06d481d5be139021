-- What a `.bib` input wrote (issue 18, docs/decisions/latex-source.md): each record's
-- `Record.latex` beside its decoded JSON, so `bib export` writes the input's LaTeX back
-- (case protection, macros, @string references, @preambles) where the value is unchanged.
-- `latex`: JSON of the fields' LaTeX and the @strings they reference (annotations/latex_source.py),
-- NULL for a record read from a paper list, CSL-JSON or Zotero. A revision keeps the LaTeX
-- its version had. @preambles are long and shared by every record of a file: stored once,
-- by the SHA-256 of their text, which a record's `latex` names.

ALTER TABLE records ADD COLUMN latex TEXT;
ALTER TABLE record_revisions ADD COLUMN latex TEXT;

CREATE TABLE latex_preambles (
    digest TEXT PRIMARY KEY,            -- sha256 of the text, hex
    text TEXT NOT NULL
) WITHOUT ROWID;
