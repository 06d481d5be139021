"""What applying a match changes, and that its provenance reaches every output."""

from __future__ import annotations

import dataclasses

import pybtex.database

from bib.readers import bibtex as bibtex_reader
from bib.record import Author, Record, evolve
from bib.resolve.candidate import Candidate, Enrichment
from bib.resolve.provenance import provenance_of
from bib.resolve.stage import apply
from bib.writers import bibtex, csljson
from bib.zotero.mapping import Options, extra_lines

FOUND = Candidate(
    "openreview",
    "abc123",
    title="Unified Sparse Mixture of Experts",
    authors=("Jane Doe", "John Roe"),
    year=2026,
    arxiv_id="2503.22996",
    url="https://openreview.net/forum?id=abc123",
)
DERIVED = Record(
    id="abs:1",
    key="sparse2026",
    abstract="x",
    title="Sparse Mixture of",
    title_derived=True,
    year=2026,
)
PROVENANCE = "Resolved from openreview abc123 (score 0.97)."
ENRICHED = dataclasses.replace(
    FOUND,
    doi="10.1/x",
    venue="Proc. AAAI",
    enrichment=Enrichment("crossref", "10.1/x", doi="10.1/x", venue="Proc. AAAI"),
)


def test_a_derived_title_is_replaced_and_loses_its_marker() -> None:
    resolved = apply(DERIVED, FOUND, 0.97)
    assert (resolved.title, resolved.title_derived) == (FOUND.title, False)


def test_a_title_the_user_wrote_is_kept() -> None:
    mine = Record(id="abs:1", abstract="x", title="My Own Title", authors=(Author("Me", "I"),))
    resolved = apply(mine, FOUND, 0.97)
    assert (resolved.title, resolved.authors) == ("My Own Title", (Author("Me", "I"),))


def test_authors_ids_and_url_are_filled() -> None:
    resolved = apply(DERIVED, FOUND, 0.97)
    assert [a.family for a in resolved.authors] == ["Doe", "Roe"]
    assert (resolved.arxiv_id, resolved.url) == ("2503.22996", FOUND.url)


def test_the_record_id_does_not_change() -> None:
    assert apply(DERIVED, FOUND, 0.97).id == DERIVED.id


def test_provenance_is_in_the_bibtex_note_as_pybtex_reads_it() -> None:
    resolved = apply(DERIVED, FOUND, 0.97)
    text = bibtex.dumps([bibtex.entry(resolved)])
    parsed = pybtex.database.parse_string(text, "bibtex")
    assert PROVENANCE in next(iter(parsed.entries.values())).fields["note"]


def test_provenance_is_in_the_biblatex_addendum_as_pybtex_reads_it() -> None:
    resolved = apply(DERIVED, FOUND, 0.97)
    text = bibtex.dumps([bibtex.entry(resolved, dialect="biblatex")])
    fields = next(iter(pybtex.database.parse_string(text, "bibtex").entries.values())).fields
    assert PROVENANCE in fields["addendum"] and PROVENANCE not in fields.get("note", "")


def test_provenance_in_a_biblatex_addendum_reads_back_into_the_note() -> None:
    resolved = apply(evolve(DERIVED, note="Read twice."), ENRICHED, 0.97)
    text = bibtex.dumps([bibtex.entry(resolved, dialect="biblatex")])
    back = next(iter(bibtex_reader.read(text.encode("utf-8"), "refs.bib")))
    assert back.note == resolved.note
    assert not any(name == "addendum" for name, _ in back.fields)


def test_an_enriched_match_names_the_enricher_everywhere() -> None:
    resolved = apply(DERIVED, ENRICHED, 0.97)
    expected = f"{PROVENANCE} DOI and venue from crossref 10.1/x."
    assert provenance_of(resolved.note) == expected
    assert expected in csljson.item(resolved)["note"]
    assert expected in extra_lines(resolved, "conferencePaper", Options())
    assert (resolved.venue, resolved.doi) == ("Proc. AAAI", "10.1/x")


def test_provenance_is_in_the_csl_note() -> None:
    assert PROVENANCE in csljson.item(apply(DERIVED, FOUND, 0.97))["note"]


def test_provenance_is_a_line_of_zotero_extra() -> None:
    assert PROVENANCE in extra_lines(apply(DERIVED, FOUND, 0.97), "conferencePaper", Options())
