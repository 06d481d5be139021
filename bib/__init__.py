"""bib: paper lists, BibTeX and CSL-JSON into tagged references, reading notes and Zotero."""

__version__ = "0.1.0"
"""The one place the version is written; pyproject.toml reads it (setuptools dynamic version)."""
