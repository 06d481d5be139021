"""The extractors. Importing the package chooses their build (`bib.native`): the compiled
modules when they match their sources, else the sources, before any of them is imported."""

from bib import native

BUILD = native.choose()
