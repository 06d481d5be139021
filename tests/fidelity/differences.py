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
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
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
    raw = _raw(d, *_FIELDS.get(d.variable, (d.variable.lower(),)))
    if not _CONTROL_WORD.search(raw):
        return False
    if isinstance(d.ours, list) and isinstance(d.theirs, list) and len(d.ours) == len(d.theirs):
        pairs = [(_name_text(a), _name_text(b)) for a, b in zip(d.theirs, d.ours, strict=True)]
        return any(a != b for a, b in pairs) and all(
            a == b or _deletions_only(a, b) for a, b in pairs
        )
    if not isinstance(d.ours, str) or not isinstance(d.theirs, str | None):
        return False
    return _deletions_only(d.theirs or "", d.ours)


def _name_text(name: Any) -> str:
    """A CSL name's words in reading order, whatever part holds them."""
    if not isinstance(name, dict):
        return str(name)
    parts = ("given", "dropping-particle", "non-dropping-particle", "family", "suffix", "literal")
    return " ".join(name[p] for p in parts if name.get(p))


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
        and [_kindless(_dotted(n)) for n in d.theirs[:-1]] == [_kindless(n) for n in d.ours or []]
    )


def _dotted(name: Any) -> Any:
    """A name with pandoc's dotless i and combining accent composed (see `dotless_i`)."""
    if not isinstance(name, dict):
        return name
    return {part: _compose_i(text) for part, text in name.items()}


def dotless_i(d: Difference) -> bool:
    """pandoc keeps `\\'{\\i}` as a dotless i and a combining accent, which NFC does not
    compose; bib writes the accented letter (`í`)."""
    text = repr(d.theirs)
    return "\u0131" in text and repr(d.ours) == _compose_i(text)


def _compose_i(text: str) -> str:
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
    """A volume of a multi-volume work: pandoc's title (or container) is the `maintitle`
    (with the `mainsubtitle`, or the volume's own subtitle);
    bib's is the volume's own `title` (or `booktitle`), as biblatex prints them, with the
    main title kept as CSL `volume-title`'s counterpart in the title parts."""
    main = _raw(d, "maintitle")
    subtitles = ("", _raw(d, "mainsubtitle"), _raw(d, "subtitle"), _raw(d, "booksubtitle"))
    return (
        d.variable in ("title", "container-title")
        and bool(main)
        and isinstance(d.theirs, str)
        and any(_letters(d.theirs) == _letters(main + sub) for sub in subtitles)
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


def volume_part(d: Difference) -> bool:
    """`volume = 7, part = 2`: pandoc writes volume "7.2"; bib keeps `part` apart."""
    part = d.source.get("part", "")
    return d.variable == "volume" and bool(part) and d.theirs == f"{d.ours}.{part}"


def parent_doi(d: Difference) -> bool:
    """A crossref parent's DOI: pandoc inherits it; bib does not (it names the parent)."""
    parent = strip_doi(d.parent.get("doi", "")).lower()
    return d.variable == "DOI" and d.ours is None and bool(parent) and parent == d.theirs


def single_quotes(d: Difference) -> bool:
    """TeX's single quotes (`` `x' ``): pandoc writes double quotes, bib the single ones TeX
    prints (normalized to straight `'`); a macro pandoc deletes in the same value is allowed."""
    if (
        not isinstance(d.theirs, str)
        or not isinstance(d.ours, str)
        or "`" not in _raw(d, *_fields(d))
    ):
        return False
    single = d.theirs.replace("\u201c", "'").replace("\u201d", "'")
    return single != d.theirs and (
        single == d.ours or unknown_macro_deleted(replace(d, theirs=single))
    )


def _fields(d: Difference) -> tuple[str, ...]:
    return _FIELDS.get(d.variable, (d.variable.lower(),))


def math_as_text(d: Difference) -> bool:
    """Math (`$O(n \\log n)$`): pandoc keeps its TeX source, bib gives the text it prints
    (`O(n log n)`): the same letters and digits but the control words' backslashes."""
    return (
        "$" in _raw(d, *_fields(d))
        and isinstance(d.theirs, str)
        and isinstance(d.ours, str)
        and "\\" in d.theirs
        and _alnum(d.theirs) == _alnum(d.ours)
    )


def _alnum(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def line_end_after_command(d: Difference) -> bool:
    """A control word at a line end (`Design\\slash` then a new line): TeX skips the space
    after it; pandoc keeps the line end as a space."""
    raw = _raw(d, *_fields(d))
    return (
        re.search(r"\\[A-Za-z]+[ \t]*\n", raw) is not None
        and isinstance(d.theirs, str)
        and isinstance(d.ours, str)
        and d.theirs.replace(" ", "") == d.ours.replace(" ", "")
    )


def path_delimiters(d: Difference) -> bool:
    """url.sty's `\\path|x|`: pandoc deletes the command and keeps its delimiters; bib
    prints `x`, as TeX does."""
    m = re.search(r"\\path\s*([^A-Za-z\s{}\\])", _raw(d, *_fields(d)))
    return (
        m is not None and isinstance(d.theirs, str) and d.theirs.replace(m.group(1), "") == d.ours
    )


def percent_in_url(d: Difference) -> bool:
    """A `%` in a URL (`#Later%20mergers`): pandoc reads a LaTeX comment to the line end;
    bib keeps the URL whole (a URL is verbatim)."""
    if d.variable != "URL" or "%" not in d.source.get("url", ""):
        return False
    if not isinstance(d.theirs, str) or not isinstance(d.ours, str):
        return False
    theirs, ours = d.theirs.split(), re.split(r";\s*", d.ours)
    return len(theirs) == len(ours) and all(
        o.startswith(t) and o[len(t)] == "%" for t, o in zip(theirs, ours, strict=True) if o != t
    )


def name_split_at_command_space(d: Difference) -> bool:
    """`ACM\\slash SIGGRAPH`: BibTeX and biber split the name at the space after the control
    word (given `ACM\\slash`, family `SIGGRAPH`: biber's .bbl); pandoc reads the command
    first and sees one word."""
    raw = _raw(d, "author", "editor")
    if not re.search(r"\\[A-Za-z]+ ", raw) or not isinstance(d.ours, list):
        return False
    if not isinstance(d.theirs, list) or len(d.theirs) != len(d.ours):
        return False
    return (
        all(
            _name_text(a).replace(" ", "") == _name_text(b).replace(" ", "")
            for a, b in zip(d.theirs, d.ours, strict=True)
        )
        and d.theirs != d.ours
    )


def empty_field_inherited(d: Difference) -> bool:
    """A crossref child's empty field (`organization = ""`): pandoc gives it empty; bib
    inherits the parent's, as biber does (an empty field is no field: biber's .bbl)."""
    names = _fields(d) + (("organization",) if d.variable == "publisher" else ())
    return (
        d.theirs == ""
        and isinstance(d.ours, str)
        and any(n in d.source and not d.source[n].strip() and d.parent.get(n) for n in names)
    )


def periodical_title(d: Difference) -> bool:
    """A `@periodical` without an `issuetitle`: pandoc moves its title to `container-title`;
    bib keeps it as the title of a CSL `periodical` (the periodical is the item)."""
    return (
        d.variable == "container-title"
        and d.ours is None
        and isinstance(d.theirs, str)
        and _letters(d.theirs) == _letters(d.source.get("title", ""))
        and not d.source.get("issuetitle")
    )


CLASSES = (
    Class("name split at a command's space", name_split_at_command_space),
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
    Class("volume part", volume_part),
    Class("parent's DOI", parent_doi),
    Class("single quotes", single_quotes),
    Class("math as text", math_as_text),
    Class("line end after a command", line_end_after_command),
    Class("path delimiters", path_delimiters),
    Class("percent in a URL", percent_in_url),
    Class("empty field inherited", empty_field_inherited),
    Class("periodical title", periodical_title),
)
"""The deliberate classes, first match wins (a name split otherwise is no deletion)."""


def classify(difference: Difference) -> str | None:
    """The name of the first class whose rule holds, None when none explains it."""
    return next((c.name for c in CLASSES if c.rule(difference)), None)
