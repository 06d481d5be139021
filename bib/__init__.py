"""bib: paper lists, BibTeX and CSL-JSON into tagged references, reading notes and Zotero."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bib")
except PackageNotFoundError:
    __version__ = "0.0.0+unknown"
