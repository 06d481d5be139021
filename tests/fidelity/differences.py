"""Why a value bib gives differs from pandoc's reading of the same .bib: each difference that
remains after `corpus.normal` goes into one named class by a mechanical rule, a check
against pandoc's actual value, ours and the entry's source text (never a list of keys).
Each class has its row in docs/formats.md ("Measured against pandoc").

A rule sees one `Difference`: the two normalized values and the entry's raw fields (its
`@string`s expanded, as BibTeX reads them) with those of its crossref parent.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bib import dates
from bib.identity import strip_doi
from bib.readers import bibtex_syntax
from bib.readers.bibtex import to_unicode

_CONTROL_WORD = re.compile(r"\\[A-Za-z]+")
_PARTICLES = ("dropping-particle", "non-dropping-particle")


@dataclass(frozen=True)
class Difference:
    """One value pandoc and bib give differently (both as `corpus.normal` makes them), with
    the entry's raw fields, its crossref parent's, and those of the other entries of its
    file (for `merged_work`)."""

    key: str
    variable: str
    theirs: Any
    ours: Any
    source: dict[str, str] = field(default_factory=dict)
    parent: dict[str, str] = field(default_factory=dict)
    siblings: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class Class:
    """A deliberate difference: its name (the docs row's), and the rule that finds it."""

    name: str
    rule: Callable[[Difference], bool]


def sources(text: str) -> dict[str, dict[str, str]]:
    """Every entry's raw fields by key (lower-case field names), as bib's tokenizer reads
    them: the source text the rules check."""
    document = bibtex_syntax.parse(text, "corpus.bib", lambda problem: None)
    return {entry.key: entry.values() for entry in document.entries}


def _deletions_only(theirs: str, ours: str) -> bool:
    """pandoc's text is ours with spans cut out (nothing added; a span may leave a space,
    the one after the command that pandoc keeps)."""
    ops = difflib.SequenceMatcher(None, ours, theirs, autojunk=False).get_opcodes()
    cut = [(op, theirs[j1:j2]) for op, _, _, j1, j2 in ops if op != "equal"]
    return bool(cut) and all(op == "delete" or (op == "replace" and not t.strip()) for op, t in cut)


def _raw(d: Difference, *names: str) -> str:
    return next((d.source[n] for n in names if d.source.get(n)), "") or next(
        (d.parent[n] for n in names if d.parent.get(n)), ""
    )


_FIELDS = {
    "title": ("title",),
    "container-title": ("journal", "journaltitle", "booktitle", "maintitle"),
    "collection-title": ("series",),
    "publisher": ("publisher", "organization", "institution", "school"),
    "publisher-place": ("address", "location"),
    "page": ("pages",),
}


def unknown_macro_deleted(d: Difference) -> bool:
    """pandoc deletes a command it does not know with its argument (`\\Dash`, `\\TUB`,
    `\\booktitle{...}`, `\\mbox{...}`, `\\psq`): its value is ours with text cut out, and
    the source has a command there."""
    if not isinstance(d.ours, str) or not isinstance(d.theirs, str | None):
        return False
    raw = _raw(d, *_FIELDS.get(d.variable, (d.variable.lower(),)))
    return bool(_CONTROL_WORD.search(raw)) and _deletions_only(d.theirs or "", d.ours)


def _kindless(name: Any) -> Any:
    if not isinstance(name, dict):
        return name
    particle = next((name[p] for p in _PARTICLES if p in name), "")
    return {**{k: v for k, v in name.items() if k not in _PARTICLES}, "particle": particle}


def particle_kind(d: Difference) -> bool:
    """pandoc calls BibTeX's von part a dropping particle, bib (as citeproc-js reads a
    lower-case family prefix) a non-dropping one: the names agree but for the kind."""
    if not (isinstance(d.theirs, list) and isinstance(d.ours, list)):
        return False
    return [_kindless(n) for n in d.theirs] == [_kindless(n) for n in d.ours]


def _words(name: dict[str, str]) -> list[str]:
    return sorted(word for part in name.values() for word in part.split())


def particle_not_lower_case(d: Difference) -> bool:
    """pandoc makes a word a particle whose first letter is not lower case (`(John` of
    `John (John F. R.) Collins`, `{\\'E}douard`); BibTeX's rule (a von word starts in
    lower case) keeps it in the name: the same words, split otherwise."""
    if not (isinstance(d.theirs, list) and isinstance(d.ours, list)):
        return False
    if len(d.theirs) != len(d.ours):
        return False
    odd = [
        particle
        for name in d.theirs
        if isinstance(name, dict)
        for p in _PARTICLES
        if (particle := name.get(p, "")) and not _first_letter_lower(particle)
    ]
    same_words = all(
        isinstance(a, dict) and isinstance(b, dict) and _words(a) == _words(b)
        for a, b in zip(d.theirs, d.ours, strict=True)
    )
    return bool(odd) and same_words


def _first_letter_lower(text: str) -> bool:
    return next((c for c in text if c.isalpha()), "").islower()


def et_al(d: Difference) -> bool:
    """`and others`: pandoc writes a name "others"; bib writes et al. as CSL means it (no
    name; issue 18, point 7)."""
    return (
        isinstance(d.theirs, list)
        and bool(d.theirs)
        and d.theirs[-1] == {"literal": "others"}
        and [_kindless(n) for n in d.theirs[:-1]] == [_kindless(n) for n in d.ours or []]
    )


def dotless_i(d: Difference) -> bool:
    """pandoc keeps `\\'{\\i}` as a dotless i and a combining accent, which NFC does not
    compose; bib writes the accented letter (`í`)."""
    text = repr(d.theirs)
    return "\u0131" in text and repr(d.ours) == _compose_i(text)


def _compose_i(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", re.sub("\u0131(?=[\u0300-\u036f])", "i", text))


def _no_year(value: Any) -> bool:
    parts = value.get("date-parts") if isinstance(value, dict) else None
    return parts == [] or parts == [["0"]]


def year_range(d: Difference) -> bool:
    """`year = {1965--1981}`: pandoc gives no date; bib the range (biber prints the span)."""
    return (
        d.variable == "issued"
        and _no_year(d.theirs)
        and (span := dates.year_range(d.source.get("year", ""))) is not None
        and d.ours == {"date-parts": [[str(y)] for y in span.split("/")]}
    )


def year_not_a_number(d: Difference) -> bool:
    """A `year` that is no number (`20xx`, `198?`, `??`, `1987\\unskip--`, `1865--1865`,
    `{\\noopsort{1973a}}...`): pandoc gives no date; bib keeps the year it finds or the
    text (CSL `literal`)."""
    year = d.source.get("year", "").strip()
    return d.variable == "issued" and _no_year(d.theirs) and bool(year) and not year.isdigit()


def crossref_child_year(d: Difference) -> bool:
    """A crossref child with its own `year` under a parent with a `date` range: biber makes
    the child's `year` its date, so it inherits none; pandoc gives the parent's range."""
    parts = d.theirs.get("date-parts", []) if isinstance(d.theirs, dict) else []
    year = d.source.get("year", "")
    return (
        d.variable == "issued"
        and bool(d.parent.get("date"))
        and year.isdigit()
        and len(parts) == 2
        and d.ours == {"date-parts": [[year]]}
    )


def day_field(d: Difference) -> bool:
    """pandoc reads a `day` field into the date; biblatex has no such field (its legacy
    date fields are `year` and `month`), bib keeps it as a field of its own."""
    parts = d.theirs.get("date-parts", []) if isinstance(d.theirs, dict) else []
    day = d.source.get("day", "")
    return d.variable == "issued" and bool(day) and len(parts) == 1 and parts[0][-1] == day


def merged_work(d: Difference) -> bool:
    """An entry with the arXiv id of another entry in its file is one work with it (issue
    18, point 1; reported as merged): its values are the merged record's."""
    eprint = d.source.get("eprint", "")
    return bool(eprint) and any(s.get("eprint") == eprint for s in d.siblings)


def organization_joined(d: Difference) -> bool:
    """pandoc joins `organization` or `institution` to the publisher (`Org; Publisher`);
    bib writes the organization as CSL `authority`, its variable for an issuing body."""
    if d.variable != "publisher" or not isinstance(d.theirs, str):
        return False
    others = [d.source.get(n, "") or d.parent.get(n, "") for n in ("organization", "institution")]
    return any(others) and "; " in d.theirs and (d.ours is None or d.theirs.endswith(d.ours))


def undefined_string(d: Difference) -> bool:
    """An undefined `@string` used as a value (`publisher = pub-godine`): pandoc lower-cases
    the macro's name; bib keeps it as written (and warns)."""
    return (
        isinstance(d.ours, str)
        and re.fullmatch(r"[A-Za-z][\w:.-]*", d.ours) is not None
        and d.theirs == d.ours.lower() != d.ours
    )


def eprint_url(d: Difference) -> bool:
    """An `eprint` without `url`: pandoc makes a URL of it (arXiv, Google Books); bib keeps
    the identifier (`custom.arxiv`, a preprint's `number`)."""
    eprint = d.source.get("eprint", "")
    return (
        d.variable == "URL"
        and d.ours is None
        and bool(eprint)
        and not d.source.get("url")
        and isinstance(d.theirs, str)
        and d.theirs.endswith(eprint)
    )


def maintitle(d: Difference) -> bool:
    """A volume of a multi-volume work: pandoc's title (or container) is the `maintitle`;
    bib's is the volume's own `title` (or `booktitle`), as biblatex prints them, with the
    main title kept as CSL `volume-title`'s counterpart in the title parts."""
    main = _raw(d, "maintitle")
    return (
        d.variable in ("title", "container-title")
        and bool(main)
        and isinstance(d.theirs, str)
        and _letters(d.theirs) == _letters(main)
    )


def biber_inheritance(d: Difference) -> bool:
    """A crossref child's container: bib inherits as biber does (the parent's `title`
    becomes the child's `booktitle`), pandoc takes the parent's `booktitle`."""
    title, booktitle = d.parent.get("title", ""), d.parent.get("booktitle", "")
    return (
        d.variable == "container-title"
        and not d.source.get("booktitle")
        and isinstance(d.theirs, str)
        and isinstance(d.ours, str)
        and bool(title and booktitle)
        and _letters(d.ours) == _letters(title)
        and _letters(d.theirs) == _letters(booktitle)
    )


def howpublished(d: Difference) -> bool:
    """`howpublished`: pandoc makes it the publisher; bib writes it where the .bib writers
    put a container of a type that has none (CSL `container-title`), or keeps it."""
    notice = d.source.get("howpublished", "") or d.parent.get("howpublished", "")
    return (
        d.variable == "publisher"
        and bool(notice)
        and isinstance(d.theirs, str)
        and _letters(notice) in _letters(d.theirs)
        and (d.ours is None or _letters(d.ours) in _letters(d.theirs))
    )


def _letters(text: str) -> str:
    """The letters of a value or of its LaTeX source (decoded as bib decodes it)."""
    return "".join(c for c in to_unicode(text).casefold() if c.isalpha())


def series_key(d: Difference) -> bool:
    """`series = {newseries}` or a number: a biblatex key or ordinal that pandoc prints in
    English ("new series", "3rd series"); bib keeps the value (CSL styles print it)."""
    series = d.source.get("series", "")
    return d.variable == "collection-title" and (
        series in ("newseries", "oldseries") or series.isdigit()
    )


def volume_part(d: Difference) -> bool:
    """`volume = 7, part = 2`: pandoc writes volume "7.2"; bib keeps `part` apart."""
    part = d.source.get("part", "")
    return d.variable == "volume" and bool(part) and d.theirs == f"{d.ours}.{part}"


def parent_doi(d: Difference) -> bool:
    """A crossref parent's DOI: pandoc inherits it; bib does not (it names the parent)."""
    parent = strip_doi(d.parent.get("doi", "")).lower()
    return d.variable == "DOI" and d.ours is None and bool(parent) and parent == d.theirs


CLASSES = (
    Class("unknown macro deleted", unknown_macro_deleted),
    Class("particle kind", particle_kind),
    Class("particle not lower case", particle_not_lower_case),
    Class("et al.", et_al),
    Class("dotless i", dotless_i),
    Class("year range", year_range),
    Class("year not a number", year_not_a_number),
    Class("crossref child's own year", crossref_child_year),
    Class("day field", day_field),
    Class("merged work", merged_work),
    Class("organization joined", organization_joined),
    Class("undefined @string", undefined_string),
    Class("eprint URL", eprint_url),
    Class("maintitle", maintitle),
    Class("crossref inherited as biber does", biber_inheritance),
    Class("howpublished", howpublished),
    Class("series key", series_key),
    Class("volume part", volume_part),
    Class("parent's DOI", parent_doi),
)
"""The deliberate classes, first match wins."""


def classify(difference: Difference) -> str | None:
    """The name of the first class whose rule holds, None when none explains it."""
    return next((c.name for c in CLASSES if c.rule(difference)), None)
