"""RIS: the tagged format that EndNote, Mendeley, Zotero and most library catalogues read.

An entry is the record's CSL-JSON item (the Unicode view every non-LaTeX output shares)
written as RIS tags, one `TAG  - value` line each and `ER  - ` to close, with CRLF line ends
as the RIS specification has them. Which tag holds which field follows Zotero's RIS
translator (zotero/translators, RIS.js: `exportTypeMap` and `fieldMap`), so that Zotero reads
the file back into the same fields: for a conference paper T2 is the conference name, C3 the
proceedings title, T3 the series; for a journal article T2 is the journal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bib.keys import verbatim_key
from bib.writers import csljson
from bib.writers.common import Layout, Prepared, Writer

EOL = "\r\n"

TYPES = {
    "paper-conference": "CONF",
    "article-journal": "JOUR",
    "article": "JOUR",  # a preprint: Zotero's RIS has no preprint type
    "book": "BOOK",
    "chapter": "CHAP",
    "thesis": "THES",
    "report": "RPRT",
    "webpage": "ELEC",
    "software": "COMP",
    "manuscript": "UNPB",
}
"""CSL type -> RIS TY, as Zotero's exportTypeMap maps the same Zotero item types."""
DEFAULT_TYPE = "GEN"

_SECONDARY = {
    "CONF": {"T2": "event-title", "C3": "container-title", "T3": "collection-title"},
    "CHAP": {"T2": "container-title", "T3": "collection-title"},
    "BOOK": {"T2": "collection-title"},
}
"""Where the container, event and series go for each TY (Zotero's fieldMap T2/T3/C3)."""
_DEFAULT_SECONDARY = {"T2": "container-title", "T3": "collection-title"}

_SIMPLE = (
    ("VL", "volume"),
    ("IS", "issue"),
    ("SP", "page"),
    ("ET", "edition"),
    ("PB", "publisher"),
    ("CY", "publisher-place"),
    ("SN", "ISBN"),
    ("DO", "DOI"),
    ("UR", "URL"),
    ("LA", "language"),
    ("AB", "abstract"),
    ("N1", "note"),
)
"""Variables with one tag whatever the type (Zotero's fieldMap entries without exceptions)."""


def order_key(key: str) -> str:
    """RIS readers keep file order; entries go in key order, as in CSL-JSON."""
    return key


def _line(tag: str, value: object) -> str:
    text = " ".join(str(value).split())  # one line per tag: no line break inside a value
    return f"{tag}  - {text}{EOL}"


def _names(names: list[dict[str, str]]) -> Iterator[str]:
    for name in names:
        if "literal" in name:
            yield name["literal"]
        else:
            parts = [name.get("family", ""), name.get("given", ""), name.get("suffix", "")]
            while parts and not parts[-1]:
                parts.pop()
            yield ", ".join(parts)


def _date(issued: dict[str, Any]) -> str | None:
    """RIS dates are YYYY/MM/DD/other, with empty parts left empty."""
    parts = (issued.get("date-parts") or [[]])[0]
    if not parts:
        return None
    year, month, day = [str(parts[0]), *(f"{int(p):02d}" for p in parts[1:3]), "", ""][:3]
    return f"{year}/{month}/{day}/"


def entry_text(prepared: Prepared) -> str:
    """One record as RIS lines, from its CSL-JSON item (validated there)."""
    item = csljson.prepared_item(prepared)
    kind = TYPES.get(item["type"], DEFAULT_TYPE)
    lines = [_line("TY", kind), _line("ID", item["id"])]
    if "title" in item:
        lines.append(_line("TI", item["title"]))
    for role, tag in (("author", "AU"), ("editor", "A2"), ("translator", "A4")):
        lines.extend(_line(tag, name) for name in _names(item.get(role, [])))
    for tag, variable in _SECONDARY.get(kind, _DEFAULT_SECONDARY).items():
        if variable in item:
            lines.append(_line(tag, item[variable]))
    if "issued" in item and (date := _date(item["issued"])):
        lines.append(_line("PY", date.split("/", 1)[0]))
        lines.append(_line("DA", date))
    for tag, variable in _SIMPLE:
        if variable in item:
            lines.append(_line(tag, item[variable]))
    keywords = item.get("keyword", "")
    lines.extend(_line("KW", word.strip()) for word in keywords.split(",") if word.strip())
    lines.append(f"ER  - {EOL}")
    return "".join(lines)


LAYOUT = Layout(first="", between=EOL, last="", empty="")
"""Entries one after another, a blank line between them (as Zotero exports)."""

WRITER = Writer(
    name="ris",
    suffixes=(".ris",),
    description="RIS for EndNote, Mendeley and Zotero",
    layout=LAYOUT,
    order_key=order_key,
    entry_text=entry_text,
    accepts_key=verbatim_key,
)
