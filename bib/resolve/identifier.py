"""`arxiv:ID`, `doi:10...`, arXiv and OpenReview URLs: one paper fetched and made a record."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bib.errors import BibError, OperationError
from bib.identity import record_id
from bib.readers.names import split_name
from bib.record import EntryType, Link, LinkRole, Record
from bib.resolve.candidate import Candidate
from bib.resolve.enrich import enrich_all, wants_enrichment
from bib.resolve.session import Session
from bib.resolve.sources import Role, role
from bib.resolve.stage import provenance

_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
_FORMS = (
    ("arxiv", re.compile(rf"^arxiv:{_ARXIV_ID}$", re.I)),
    (
        "arxiv",
        re.compile(
            rf"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/{_ARXIV_ID}(?:\.pdf)?/?$"
        ),
    ),
    ("semanticscholar", re.compile(r"^doi:(10\.\d{4,9}/\S+)$", re.I)),
    ("semanticscholar", re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.I)),
    ("openreview", re.compile(r"^https?://openreview\.net/(?:forum|pdf)\?id=([A-Za-z0-9_-]+)")),
)


@dataclass(frozen=True, slots=True)
class Identifier:
    source: str
    value: str

    @property
    def lookup(self) -> str:
        """The id as the source's fetch takes it (Semantic Scholar prefixes DOIs)."""
        return f"DOI:{self.value}" if self.source == "semanticscholar" else self.value


def parse(text: str) -> Identifier | None:
    """The identifier `text` names, or None when it is not one (a path, say)."""
    for source, pattern in _FORMS:
        match = pattern.match(text.strip())
        if match:
            return Identifier(source, match.group(1))
    return None


def looks_like_identifier(text: str) -> bool:
    return text.lower().startswith(("arxiv:", "doi:", "http://", "https://"))


_JOURNAL = re.compile(r"\b(journal|transactions|trans\.|letters)\b", re.I)


def entry_type(candidate: Candidate) -> EntryType:
    """A preprint unless a final venue is known: a journal's name makes it an article."""
    if candidate.source == "arxiv" and candidate.enrichment is None:
        return EntryType.PREPRINT
    return EntryType.ARTICLE if _JOURNAL.search(candidate.venue) else EntryType.INPROCEEDINGS


def to_record(candidate: Candidate) -> Record:
    authors = tuple(split_name(a) for a in candidate.authors if a.strip())
    return Record(
        id=record_id(
            doi=candidate.doi,
            arxiv_id=candidate.arxiv_id,
            title=candidate.title,
            year=candidate.year,
            authors=authors,
        ),
        abstract=candidate.abstract,
        entry_type=entry_type(candidate),
        title=candidate.title,
        authors=authors,
        venue=""
        if candidate.source == "arxiv" and candidate.enrichment is None
        else candidate.venue,
        year=candidate.year,
        links=(Link(candidate.url, LinkRole.PAPER),) if candidate.url else (),
        doi=candidate.doi,
        arxiv_id=candidate.arxiv_id,
        note=provenance(candidate, 1.0),
    )


def fetch_record(text: str, session: Session) -> Record:
    """The paper `text` names, fetched from its source (or the cache)."""
    identifier = parse(text)
    if identifier is None:
        raise BibError(f"{text}: not an arxiv:ID, doi:10..., arXiv or OpenReview URL")
    source = next((s for s in session.sources if s.name == identifier.source), None)
    if source is None:
        raise BibError(f"{text}: needs the {identifier.source} source")
    found = source.fetch(identifier.lookup)
    if found is None:
        raise OperationError(f"{text}: {identifier.source} knows no such paper")
    if wants_enrichment("", found):
        found = enrich_all(found, [s for s in session.sources if role(s) is Role.ENRICH])
    return to_record(found)
