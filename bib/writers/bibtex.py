"""BibTeX and BibLaTeX entries from Records, written with bibtexparser 1.4's BibTexWriter.

bibtexparser only frames values in braces; every value handed to it is made safe here
(bib.latex), so that classic BibTeX, biber and pybtex in strict mode all read back exactly
the entries written. Field order is fixed so that diffs between runs stay small.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator

from bib import dates, types
from bib.latex import (
    Latex,
    escape,
    escape_clean,
    link,
    to_latex,
    url_value,
    verbatim_value,
)
from bib.latex.source import BIBTEX_ONLY, Definitions, Written, kept, kept_container
from bib.readers.names import NAME_LISTS, parse_names
from bib.record import ET_AL, Author, EntryType, Record, TagKind
from bib.resolve.provenance import provenance_of, without_provenance
from bib.writers.common import (
    DEFAULT_TAG_KINDS,
    Layout,
    Prepared,
    WriteOptions,
    Writer,
    check_unique_keys,
    checked_key,
    error,
    extra_links,
    join_sentences,
    prepare,
    with_new_keys,
)
from bib.written import DERIVED_TITLE_NOTE, label

DIALECTS = ("bibtex", "biblatex")

# Record.fields use BibTeX names; BibLaTeX renamed a few (and the reverse for BibTeX).
_RENAMES = {
    "bibtex": {"journaltitle": "journal", "location": "address", "date": "year"},
    "biblatex": {"journal": "journaltitle", "address": "location", "school": "institution"},
}

DISPLAY_ORDER = [
    "author",
    "key",
    "editor",
    "title",
    "booktitle",
    "journal",
    "journaltitle",
    "eventtitle",
    "howpublished",
    "series",
    "volume",
    "number",
    "pages",
    "publisher",
    "school",
    "institution",
    "organization",
    "address",
    "location",
    "type",
    "year",
    "date",
    "month",
    "doi",
    "eprint",
    "archivePrefix",
    "eprinttype",
    "url",
    "keywords",
    "abstract",
    "note",
    "addendum",
]
"""Field order within an entry; any other field follows in alphabetical order."""


def _layout(dialect: str, kind: EntryType) -> tuple[str, str, str, bool]:
    row = types.row(kind)
    biblatex = dialect == "biblatex"
    name = types.biblatex_type(kind) if biblatex else row.bibtex
    container = row.container or "howpublished"
    if biblatex and container == "journal":
        container = "journaltitle"
    publisher = row.biblatex_publisher if biblatex else row.publisher
    first = DISPLAY_ORDER.index(container) < DISPLAY_ORDER.index("eventtitle")
    return name, container, publisher, first


_LAYOUT = {dialect: {kind: _layout(dialect, kind) for kind in EntryType} for dialect in DIALECTS}
"""dialect -> entry type -> (BibTeX entry type, container field, publisher field, whether
the container field comes before `eventtitle` in DISPLAY_ORDER), from the type table in
bib/data/csl_biblatex.json (`bib.types`); a thesis's or report's kind and a BibTeX fallback
type are settled per record (`_bibtex_type`)."""

_FIELD_NAME = re.compile(r"[a-z][a-z0-9_:.+-]*")
_NAME_NEEDS_BRACES = re.compile(r",|(?:^|\s)(?:and|others)(?:\s|$)", re.IGNORECASE)
_VERBATIM_FIELDS = frozenset({"url", "doi", "eprint"})


def entry(
    record: Record,
    *,
    dialect: str = "bibtex",
    ascii: bool = False,
    tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS,
) -> dict[str, str]:
    """One bibtexparser entry dict (ENTRYTYPE, ID, fields) with LaTeX-safe values; a value
    of type `bib.latex.source.Written` is the input's `@string` references (`jacm # " 12"`),
    which `format_entry` writes without braces (bibtexparser's writer would brace them)."""
    if dialect not in DIALECTS:
        raise error(record, f"unknown BibTeX dialect {dialect!r}")
    return _entry(prepare(record, WriteOptions(ascii, tuple(tag_kinds))), dialect)


def _entry(prepared: Prepared, dialect: str) -> dict[str, str]:
    # Written for speed (it runs once per record and output): fields are set only when the
    # record has the attribute, empty values are never stored, and the record's own fields
    # come in DISPLAY_ORDER, so that only Record.fields need sorting (see `stream`).
    record, ascii = prepared.record, prepared.options.ascii
    biblatex = dialect == "biblatex"
    fields: dict[str, str] = {
        "ENTRYTYPE": _LAYOUT[dialect][record.entry_type][0],
        "ID": checked_key(record),
    }
    if record.authors:
        author = " and ".join(filter(None, [_name(a, ascii) for a in record.authors]))
        if author:
            fields["author"] = author
    if not biblatex and "author" not in fields and not _has_key_field(record):
        # BibTeX styles sort and label by `key` when there is no author (else plainnat warns
        # "to sort, need author or key"); biber needs no such help. An input's own `key`
        # (an extra field) is kept as written.
        fields["key"] = escape(label(record), ascii=ascii) or fields["ID"]
    if value := prepared.latex_title():
        fields["title"] = value
    venue = (
        dialect,
        record.entry_type,
        ascii,
        record.container_title,
        record.event_title or record.venue,
        record.series,
        record.publisher,
        record.year,
    )
    venues = prepared.memo.venues
    if (venue_fields := venues.get(venue)) is None:
        venue_fields = venues[venue] = _venue_fields(*venue)
    fields.update(venue_fields)
    if record.doi and (value := verbatim_value(record.doi)):
        fields["doi"] = value
    if record.arxiv_id and (value := verbatim_value(record.arxiv_id)):
        fields["eprint"] = value
        if biblatex:
            fields["eprinttype"] = "arxiv"
        else:
            fields["archivePrefix"] = "arXiv"
    if record.links and (value := url_value(record.url)):
        fields["url"] = value
    # Keywords are clean text: escaping their list escapes each of them (escapes are per
    # character, and NFC does not compose across ", ").
    if value := escape_clean(prepared.keywords, ascii=ascii):
        fields["keywords"] = value
    if value := prepared.latex_abstract():
        fields["abstract"] = value
    if record.note or record.links:
        _put_notes(record, fields, biblatex, ascii)
    elif record.title_derived:  # the common case, with no sentences to join
        fields["note"] = DERIVED_TITLE_NOTE
    if record.latex is not None:
        _keep_read_latex(prepared, fields, dialect)
    if record.fields:
        _put_extra_fields(record, fields, dialect, ascii)
    if not biblatex and record.entry_type in _BIBTEX_TYPE_PER_RECORD:
        _settle_bibtex_type(record, fields)
    if record.entry_type is EntryType.PREPRINT and not record.arxiv_id:
        fields.setdefault(types.SUBTYPE_FIELD, types.PREPRINT_SUBTYPE)
    return fields


_BIBTEX_TYPE_PER_RECORD = frozenset(
    kind
    for kind in EntryType
    if kind is not EntryType.PREPRINT
    and (
        kind.value != types.row(kind).bibtex or types.row(kind).bibtex_with_container != kind.value
    )
)
"""Types whose classic BibTeX type depends on the record (a thesis's kind, a container) or
is a fallback that an `entrytype` field must keep."""


def _keep_read_latex(prepared: Prepared, fields: dict[str, str], dialect: str) -> None:
    """The LaTeX a `.bib` input wrote, for each of the record's own fields that still holds
    what it was read as (`bib.latex.source.kept`), in place of our encoding of its value."""
    record, ascii = prepared.record, prepared.options.ascii
    _, container, publisher, _ = _LAYOUT[dialect][record.entry_type]
    own = ("author", "title", "eventtitle", "series", "abstract", "year")
    for name in own if dialect == "bibtex" else own[:-1]:
        if name in fields and (value := kept(record, name, ascii=ascii)) is not None:
            fields[name] = value
    if container in fields and (value := kept_container(record, ascii=ascii)) is not None:
        fields[container] = value
    if publisher in fields and (value := kept(record, "publisher", ascii=ascii)) is not None:
        fields[publisher] = value
    keywords = prepared.keywords
    if keywords and (value := kept(record, "keywords", ascii=ascii, current=keywords)):
        fields["keywords"] = value
    if "note" in fields and not record.title_derived and not extra_links(record):
        origin = dialect == "biblatex" and provenance_of(record.note)
        if not origin and (value := kept(record, "note", ascii=ascii)) is not None:
            fields["note"] = value


def _settle_bibtex_type(record: Record, fields: dict[str, str]) -> None:
    """The classic BibTeX type of a record: `@mastersthesis` for a `type = {mathesis}`
    (then implied, not written), `@incollection` for a biblatex `@inbook` with a book title,
    a fallback (`@misc` with `entrytype = {online}`) for a type BibTeX lacks; a thesis's
    institution is its `school`, which BibTeX requires."""
    found = types.bibtex_type(
        record.entry_type, fields.get("type", ""), bool(record.container_title)
    )
    fields["ENTRYTYPE"] = found.name
    if found.kind_implied:
        fields.pop("type", None)
    if found.entrytype:
        fields[types.ENTRYTYPE_FIELD] = found.entrytype
    if record.entry_type is EntryType.THESIS and "school" not in fields and "institution" in fields:
        fields["school"] = fields.pop("institution")


def _put_notes(record: Record, fields: dict[str, str], biblatex: bool, ascii: bool) -> None:
    """The note (the derived-title marker, the record's note), the provenance of a resolved
    record and the extra links: all in the note for BibTeX; for BibLaTeX the provenance and
    the links in `addendum` (biblatex: "miscellaneous bibliographic data to be printed at
    the end of the entry"), the rest in `note`."""
    origin = provenance_of(record.note) if biblatex else ""
    own = without_provenance(record.note) if origin else record.note
    note = [
        DERIVED_TITLE_NOTE if record.title_derived else "",
        to_latex(own, ascii=ascii) if own else "",
    ]
    links = [f"{label}: {link(url)}" for label, url in extra_links(record)] if record.links else []
    if biblatex:
        if value := join_sentences(note):
            fields["note"] = value
        addendum = [to_latex(origin, ascii=ascii) if origin else "", *links]
        if value := join_sentences(addendum):
            fields["addendum"] = value
    elif value := join_sentences(note + links):
        fields["note"] = value


def _venue_fields(
    dialect: str,
    kind: EntryType,
    ascii: bool,
    container_title: str,
    event_title: str,
    series: str,
    publisher: str,
    year: int | None,
) -> tuple[tuple[str, str], ...]:
    """The container, event, series, publisher and year fields, in DISPLAY_ORDER."""
    _, container, publisher_field, container_first = _LAYOUT[dialect][kind]
    biblatex = dialect == "biblatex"
    fields: dict[str, str] = {}
    container_text = escape(container_title, ascii=ascii)
    if container_text and container_first:
        fields[container] = container_text
    if biblatex and (value := escape(event_title, ascii=ascii)):
        fields["eventtitle"] = value
    if container_text and not container_first:
        fields[container] = container_text
    if value := escape(series, ascii=ascii):
        fields["series"] = value
    if value := escape(publisher, ascii=ascii):
        fields[publisher_field] = value
    if year is not None:
        fields["date" if biblatex else "year"] = str(year)
    return tuple(fields.items())


def _has_key_field(record: Record) -> bool:
    return any(name.strip().lower() == "key" for name, _ in record.fields)


def _put_extra_fields(record: Record, fields: dict[str, str], dialect: str, ascii: bool) -> None:
    """Record.fields after the record's own attributes, which win on a clash."""
    taken = {name.lower() for name in fields}
    for raw_name, value in record.fields:
        name = raw_name.strip().lower()
        if not _FIELD_NAME.fullmatch(name):
            raise error(record, f"field name {raw_name!r} is not a valid BibTeX field name")
        if name in _DATE_PARTS:
            value = _DATE_PARTS[name](dialect, value, fields)
            if not value:
                continue
            if name == "date":
                fields["date"] = value  # the whole date, where the year stood alone
                continue
        read_as, name = name, _RENAMES[dialect].get(name, name)
        if name in taken or name in ("entrytype", "id"):
            continue
        if type(value) is Latex:  # rendered reading notes (bib.latex.markdown)
            safe: str = value
        elif (
            record.latex is not None
            and (dialect == "bibtex" or read_as not in BIBTEX_ONLY)
            and (read := kept(record, read_as, ascii=ascii))
        ):
            safe = read
        elif name in NAME_LISTS:
            safe = " and ".join(filter(None, (_name(a, ascii) for a in parse_names(value))))
        elif name in _VERBATIM_FIELDS:
            safe = url_value(value)
        else:
            safe = escape(value, ascii=ascii)
        if safe:
            fields[name] = safe
            taken.add(name)


def _date_field(dialect: str, value: str, fields: dict[str, str]) -> str:
    """A whole `date`: kept for BibLaTeX; for BibTeX (which has `year`, set already) its month
    goes into `month`, a range of years into `year`, and the date is kept too when it says
    more (a day, a range within a year), which BibTeX ignores and the record reads back."""
    if dialect == "biblatex":
        return value
    found = dates.parts(value)
    if found and len(found) > 1 and found[0][0] != found[1][0]:
        # a range of years: `year = {1965--1981}`, which BibTeX styles print as the span
        # (a first month would read as the whole range's), unless the input wrote its own;
        # the date only when it says more than the year does
        if fields.get("year", "").isdigit():
            fields["year"] = f"{found[0][0]}--{found[1][0]}"
        months = any(len(date) > 1 for date in found)
        return value if months or dates.year_range(fields.get("year", "")) is None else ""
    if found and len(found[0]) > 1 and "month" not in fields:
        fields["month"] = dates.MONTH_NAMES[found[0][1] - 1]
    if found and (len(found) > 1 or len(found[0]) > 2):
        return value
    return ""


def _month_field(dialect: str, value: str, fields: dict[str, str]) -> str:
    """`month`: a number for BibLaTeX (which requires one), the English name for BibTeX.
    A month that is no month (`Summer`, `June--August`) is, for BibLaTeX, the `issue` of
    an article (biblatex's field for such designations) or else part of the `addendum`:
    as `month`, biber and biblatex warn and print nothing."""
    month = dates.month_number(value)
    if month is not None:
        return str(month) if dialect == "biblatex" else dates.MONTH_NAMES[month - 1]
    if dialect != "biblatex":
        return value
    text = escape(value)
    if fields["ENTRYTYPE"] in _ISSUE_TYPES and "issue" not in fields:
        fields["issue"] = text
    elif text:
        fields["addendum"] = join_sentences([fields.get("addendum", ""), text])
    return ""


_ISSUE_TYPES = frozenset({"article", "periodical", "suppperiodical"})


_DATE_PARTS = {"date": _date_field, "month": _month_field}


def _name(author: Author, ascii: bool) -> str:
    """`Family, Given` or `Family, Jr, Given`; parts BibTeX would split (a comma, `and`,
    `others`) are braced; `ET_AL` is BibTeX's own `others`."""
    if author == ET_AL:
        return "others"
    if author.literal or not author.family:
        whole = escape(author.literal or author.given, ascii=ascii)
        return "{" + whole + "}" if whole else ""
    parts = [_name_part(author.family, ascii)]
    if author.suffix:
        parts.append(_name_part(author.suffix, ascii))
    if author.given or author.suffix:
        parts.append(_name_part(author.given, ascii))
    return ", ".join(parts)


def _name_part(text: str, ascii: bool) -> str:
    value = escape(text, ascii=ascii)
    return "{" + value + "}" if value and _NAME_NEEDS_BRACES.search(text) else value


def dumps(entries: list[dict[str, str]]) -> str:
    """Entries -> BibTeX text, ordered by key, fields in DISPLAY_ORDER. (bibtexparser is
    imported here: a conversion writes entry by entry, `format_entry`, and importing it was
    a ninth of the instructions of importing `bib convert`.)"""
    from bibtexparser.bibdatabase import BibDatabase
    from bibtexparser.bwriter import BibTexWriter

    database = BibDatabase()
    database.entries = entries
    writer = BibTexWriter()
    writer.contents = ["entries"]
    writer.indent = "  "
    writer.display_order = DISPLAY_ORDER
    writer.order_entries_by = ("ID",)
    text: str = writer.write(database)
    return text if not text or text.endswith("\n") else text + "\n"


class _Rank(dict[str, tuple[int, int | str]]):
    """Where a field goes: its DISPLAY_ORDER position, else after those, alphabetically."""

    def __missing__(self, name: str) -> tuple[int, int | str]:
        return (1, name)


_RANK = _Rank({name: (0, i) for i, name in enumerate(DISPLAY_ORDER)})
_NOT_FIELDS = frozenset({"ENTRYTYPE", "ID"})


def format_entry(fields: dict[str, str]) -> str:
    """One entry exactly as `dumps` writes it (bibtexparser 1.4's BibTexWriter with our
    settings), without a database around it, so that entries can be written one by one."""
    names = sorted(fields.keys() - _NOT_FIELDS, key=_RANK.__getitem__)
    return _format(fields, [(name, fields[name]) for name in names])


def _format(fields: dict[str, str], members: Iterable[tuple[str, str]]) -> str:
    # One join of all the pieces, so that each value (an abstract is most of the entry) is
    # copied once.
    parts = ["@", fields["ENTRYTYPE"], "{", fields["ID"]]
    for name, value in members:
        if type(value) is Written:  # `@string` references as the input wrote them
            parts += (",\n  ", name, " = ", value)
        else:
            parts += (",\n  ", name, " = {", value, "}")
    parts.append("\n}\n")
    return "".join(parts)


def order_key(key: str) -> str:
    """The order of entries by citation key: bibtexparser sorts by key, ignoring case."""
    return key.lower()


def stream(
    records: Iterable[Record],
    *,
    dialect: str = "bibtex",
    ascii: bool = False,
    tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS,
) -> Iterator[str]:
    """`render` piece by piece for records already in `order_key` order, holding none of
    them: the text of all pieces is what `render` returns for the same records."""
    options = WriteOptions(ascii, tuple(tag_kinds))
    return LAYOUT.wrap(entry_text(prepare(r, options), dialect) for r in with_new_keys(records))


LAYOUT = Layout(first="", between="\n", last="", empty="")
"""What goes around and between entries (nothing after the last: each ends in a newline)."""


def entry_text(prepared: Prepared, dialect: str) -> str:
    """One record's entry as `stream` writes it."""
    if dialect not in DIALECTS:
        raise error(prepared.record, f"unknown BibTeX dialect {dialect!r}")
    fields = _entry(prepared, dialect)
    if prepared.record.fields:
        return format_entry(fields)
    # ENTRYTYPE, ID, then fields already in DISPLAY_ORDER
    return _format(fields, itertools.islice(fields.items(), 2, None))


def render(
    records: Iterable[Record],
    *,
    dialect: str = "bibtex",
    ascii: bool = False,
    tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS,
) -> str:
    records = list(records)
    check_unique_keys(records)
    kinds = tuple(tag_kinds)
    entries = [entry(r, dialect=dialect, ascii=ascii, tag_kinds=kinds) for r in records]
    entries.sort(key=lambda e: e["ID"].lower())  # as dumps orders them (a stable sort)
    return "\n".join(format_entry(e) for e in entries)


def header(definitions: Definitions) -> str:
    """What goes before the first entry: the inputs' `@preamble`s, then the `@string`s their
    kept fields reference (a clashing one, and those defined by it, not: their uses are
    written expanded, `bib.latex.source.expanded`)."""
    unusable = definitions.unusable()
    lines = [f"@preamble{{{{{text}}}}}" for text in definitions.preambles]
    lines += [
        f"@string{{{found.name} = {found.raw}}}"
        for name, found in definitions.strings.items()
        if name not in unusable
    ]
    return "\n".join(lines) + "\n\n" if lines else ""


def _bibtex_entry(prepared: Prepared) -> str:
    return entry_text(prepared, "bibtex")


def _biblatex_entry(prepared: Prepared) -> str:
    return entry_text(prepared, "biblatex")


BIBTEX = Writer(
    name="bibtex",
    suffixes=(".bib",),
    description="classic BibTeX (natbib, plainnat)",
    layout=LAYOUT,
    order_key=order_key,
    entry_text=_bibtex_entry,
    parents_last=True,
    header=header,
)
BIBLATEX = Writer(
    name="biblatex",
    suffixes=(".biblatex.bib",),
    description="BibLaTeX for biber",
    layout=LAYOUT,
    order_key=order_key,
    entry_text=_biblatex_entry,
    parents_last=True,
    header=header,
)
