"""Resolving records against OpenReview, arXiv and Semantic Scholar: real titles, authors and
ids for records that a paper list gave only an abstract.

`session()` builds the shared HTTP layer and the sources; `resolve_records` is the stage;
`identifier` turns `arxiv:ID`, `doi:...` and paper URLs into one fetched record.
"""
