"""CSL-JSON items from Records, each validated against the official schema before writing.

Validation is exact and per item: the schema (schema/csl-data.json, draft-07) is compiled
once per run into plain Python checks (`bib.writers.schemacheck`, held by the run's
`RunMemo`), which say valid or not in about 10 µs an item; an item they refuse goes to
jsonschema, which names the problem. Reading CSL-JSON checks each shape of item once
(`item_shape`): the schema constrains values only through their JSON types, array lengths
and the `type` enum, so two items with the same keys, the same value types, the same array
lengths and the same `type` are valid or invalid together (Python types stand for JSON
types: jsonschema tells them apart with isinstance). tests/writers checks that the schema
still has no value-dependent keyword besides `type`, and that the schema file is a valid
draft-07 schema (docs/formats.md).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Hashable, Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

import schema
from bib import dates, subtitles, types, variables
from bib.errors import BibError
from bib.keys import verbatim_key
from bib.latex import clean, to_text
from bib.readers.names import parse_name, particles, split_names
from bib.record import ET_AL, EntryType, Record, TagKind
from bib.subtitles import PART_FIELDS
from bib.writers.common import (
    DEFAULT_TAG_KINDS,
    Layout,
    Prepared,
    RunMemo,
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
from bib.writers.schemacheck import Check, compile_schema
from bib.written import DERIVED_TITLE_NOTE

if TYPE_CHECKING:
    from jsonschema import Draft7Validator

CSL_TYPES = {kind: types.row(kind).csl for kind in EntryType}
"""Each record type's CSL type (bib/data/csl_biblatex.json); `entrysubtype` may say more
(`bib.types.csl_type`)."""

FIELD_VARIABLES = {
    "volume": "volume",
    "pages": "page",
    "series": "collection-title",
    "edition": "edition",
    "address": "publisher-place",
    "location": "publisher-place",
    "annote": "annote",
    "annotation": "annote",
    "isbn": "ISBN",
    "issn": "ISSN",
    "chapter": "chapter-number",
    "language": "language",
    "langid": "language",
    "numpages": "number-of-pages",
    "pagetotal": "number-of-pages",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "type": "genre",
    "version": "version",
    "shorttitle": "title-short",
    "school": "publisher",
    "institution": "publisher",
    "organization": "publisher",
    "journal": "container-title",
    "journaltitle": "container-title",
    "booktitle": "container-title",
    "eventtitle": "event-title",
    "venue": "event-place",
    "issue": "issue",
    "doi": "DOI",
    "url": "URL",
}
"""BibTeX/BibLaTeX field names (Record.fields) -> CSL variables; the rest go to `custom`."""

_NAME_FIELDS = {field: variable for variable, field in dates.mapping()["names"].items()}
_DATE_FIELDS = {field: variable for variable, field in dates.mapping()["dates"].items()}
FIELD_VARIABLES |= {
    field: variable
    for variable, field in dates.mapping()["article_fields"].items()
    if variable != "about"
}
FIELD_VARIABLES |= {
    field: variable
    for variable, field in dates.mapping()["fields"].items()
    if field not in FIELD_VARIABLES and variable != "collection-number"
}
"""The table's further pairs (bib/data/csl_biblatex.json); the ones above keep their
older choices."""


def item(record: Record, tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS) -> dict[str, Any]:
    """One CSL-JSON item, validated; BibError naming the record when it is invalid."""
    return prepared_item(prepare(record, WriteOptions(tag_kinds=tuple(tag_kinds))))


def prepared_item(prepared: Prepared) -> dict[str, Any]:
    """`item` of a record prepared for every writer of a run (RIS is written from it)."""
    out = _item(prepared)
    _validate(out, run_check(prepared.memo), lambda message: error(prepared.record, message))
    return out


def _item(prepared: Prepared) -> dict[str, Any]:
    # Written for speed (it runs once per record): a variable is set only when the record
    # has the attribute and its value is not empty; the order of keys is the output's.
    record = prepared.record
    key = checked_key(record, verbatim_key)
    kind = CSL_TYPES[record.entry_type]
    if record.fields and (subtype := _field(record, types.SUBTYPE_FIELD)):
        kind = types.csl_type(record.entry_type, subtype)
    out: dict[str, Any] = {"id": key, "type": kind, "citation-key": key}
    if value := to_text(prepared.title, prepared.memo.math_texts):
        out["title"] = value
    if record.authors and (
        names := [
            _name(a.family, a.given, a.literal, a.suffix)
            for a in record.authors
            if a.display and a != ET_AL
        ]
    ):
        out["author"] = names
    venue = (
        "csl-json",
        record.container_title,
        record.event_title or record.venue,
        record.series,
        record.publisher,
    )
    venues = prepared.memo.venues
    if (variables := venues.get(venue)) is None:
        variables = venues[venue] = _venue_variables(*venue[1:])
    out.update(variables)
    if record.series and "collection-title" in out:
        out["collection-title"] = types.printed_series(record.entry_type, out["collection-title"])
    if record.year is not None:
        out["issued"] = {"date-parts": [[record.year]]}
    if record.doi and (value := clean(record.doi)):
        out["DOI"] = value
    if record.links and (value := clean(record.url)):
        out["URL"] = value
    if record.arxiv_id and record.entry_type == EntryType.PREPRINT:
        out["number"] = f"arXiv:{clean(record.arxiv_id)}"
        out.setdefault("publisher", "arXiv")
    if value := to_text(prepared.abstract, prepared.memo.math_texts):
        out["abstract"] = value
    if value := prepared.keywords:
        out["keyword"] = value
    if record.note or record.links:
        if value := _note(record):
            out["note"] = value
    elif record.title_derived:  # the common case, with no sentences to join
        out["note"] = DERIVED_TITLE_NOTE
    custom = _put_fields(record, out) if record.fields else {}
    if record.fields and not PART_FIELDS.isdisjoint(name for name, _ in record.fields):
        _join_titles(record, out)
    if record.entry_type is EntryType.PERIODICAL and "issuetitle" in custom:
        _titled_issue(out, custom)
    if record.arxiv_id:
        custom["arxiv"] = clean(record.arxiv_id)
    if custom:
        out["custom"] = custom
    return out


def _titled_issue(out: dict[str, Any], custom: dict[str, Any]) -> None:
    """A periodical's issue with a title of its own (biblatex `issuetitle`, `issuesubtitle`):
    CSL has no variable for it, so the issue is the item and the periodical its container,
    as pandoc and citeproc-js's BibTeX reading give it (docs/formats.md)."""
    title = subtitles.concat(":", custom.pop("issuetitle"), custom.pop("issuesubtitle", ""))
    if "title" in out:
        out["container-title"] = out["title"]
    out["title"] = title


def _note(record: Record) -> str:
    """The derived-title marker, the record's note and the extra links, as one note."""
    note = [
        DERIVED_TITLE_NOTE if record.title_derived else "",
        to_text(record.note) if record.note else "",
    ]
    if record.links:
        note += [f"{label}: {url}" for label, url in extra_links(record)]
    return join_sentences(note)


def _venue_variables(
    container_title: str, event_title: str, series: str, publisher: str
) -> tuple[tuple[str, str], ...]:
    """The container, event, series and publisher variables that have a value."""
    variables = zip(
        ("container-title", "event-title", "collection-title", "publisher"),
        map(clean, (container_title, event_title, series, publisher)),
        strict=True,
    )
    return tuple((name, value) for name, value in variables if value)


def _join_titles(record: Record, out: dict[str, Any]) -> None:
    """The subtitle and title addon into the title, a book's or journal's into the
    container title (`bib.subtitles`)."""
    parts = {name: clean(value) for name, value in record.fields if name in PART_FIELDS}
    if "title" in out:
        out["title"] = subtitles.joined(out["title"], parts, subtitles.TITLE)
    if "container-title" in out:
        for container in subtitles.CONTAINER:
            out["container-title"] = subtitles.joined(out["container-title"], parts, container)


def _field(record: Record, name: str) -> str:
    for field, value in record.fields:
        if field.lower() == name:
            return value
    return ""


def _put_fields(record: Record, out: dict[str, Any]) -> dict[str, Any]:
    custom: dict[str, Any] = {}
    plain = _plain_fields()
    for name, raw_value in _named_fields(record.fields):
        if name in PART_FIELDS:
            continue  # part of a title (`_join_titles`)
        value = clean(raw_value)
        if not value:
            continue
        if name in _ASKING:
            variable = _asked_variable(record, out, name, value)
            if variable is None:
                continue
            if name == "type":
                value = types.genre(value)
                if not value:
                    continue
        else:
            variable, kind = plain.get(name, _CUSTOM)
            if kind == "date":
                out.setdefault(variable, dates.to_csl(value))
                continue
            if kind == "name":
                if variable not in out and (names := _parse_names(value)):
                    out[variable] = names
                continue
        if variable == "page":
            value = value.replace("\u2013", "-")  # CSL ranges take a hyphen (citeproc-js)
        if variable == "issue" and "issue" in out:
            out["issue"] = f"{out['issue']}, {value}"  # biblatex's number and issue, as pandoc
        elif variable and variable not in out:
            out[variable] = value
        elif not variable and name not in custom:
            custom[name] = value
    return custom


def _asked_variable(record: Record, out: dict[str, Any], name: str, value: str) -> str | None:
    """The variable of a field in `_ASKING` (its record or value decide), "" for `custom`;
    None when the field is written here (a date, a month, names) or chose the CSL type."""
    if name == types.SUBTYPE_FIELD and types.subtype_is_type(record.entry_type, value):
        return None  # it chose the CSL type
    if name in _DATE_FIELDS:
        _put_date(out, _DATE_FIELDS[name], value)
        return None
    if name == "month":
        _put_month(out, value)
        return None
    if name == "year":  # a year that is no number (`20xx`): the record has none
        out.setdefault("issued", {"literal": value})
        return None
    if name == "number":
        variable = types.row(record.entry_type).number
        if record.series and record.entry_type in _IN_SERIES:
            variable = "collection-number"
        if variable == "collection-number" and _field(record, variable):
            variable = "number"  # the series number is given itself: this is CSL's number
        return variable
    if name in _NAME_FIELDS:
        variable = _NAME_FIELDS[name]
        if variable not in out and (names := _parse_names(value)):
            out[variable] = names
        return None
    if name == "howpublished":
        # where the .bib writers put the container of a type that has no container field
        return "container-title" if not types.row(record.entry_type).container else ""
    if name == "organization" and (
        "publisher" in out or _field(record, "school") or _field(record, "institution")
    ):
        return "authority"  # a second publisher: CSL's authority (biblatex-csl)
    return _plain_fields().get(name, _CUSTOM)[0]  # `type`, `organization`, a subtype


_ASKING = frozenset(
    {types.SUBTYPE_FIELD, "type", "month", "year", "number", "howpublished", "organization"}
    | _DATE_FIELDS.keys()
    | _NAME_FIELDS.keys()
)
"""Fields whose variable their record or value decide (`_asked_variable`); every other
field's is its name's alone (`_plain_fields`)."""

_CUSTOM = ("", "text")
"""The route of a field with no CSL variable: into `custom`."""


@cache
def _plain_fields() -> dict[str, tuple[str, str]]:
    """Field name -> its CSL variable and that variable's kind, for every name with a
    variable (`FIELD_VARIABLES`, else the schema's own names): a constant table from
    package data, which spares each field the two lookups and the kind's."""
    names = {*FIELD_VARIABLES, *variables.by_field()}
    routes: dict[str, tuple[str, str]] = {}
    for name in names:
        variable = FIELD_VARIABLES.get(name, "") or variables.by_field().get(name, "")
        routes[name] = (variable, variables.kinds().get(variable, "text"))
    return routes


_IN_SERIES = frozenset({EntryType.BOOK, EntryType.INCOLLECTION})


def _named_fields(fields: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """Each field as (its name stripped and lower-cased, its value), `issue` after the others
    (as named, without spaces): an article with `number` and `issue` has the issue
    "number, issue" (pandoc)."""
    issues = []
    for raw_name, value in fields:
        name = raw_name.strip().lower()
        if name == "issue" and raw_name.lower() == name:
            issues.append(value)
        else:
            yield name, value
    for value in issues:
        yield "issue", value


def _put_date(out: dict[str, Any], variable: str, value: str) -> None:
    """A whole date (ISO text from Record.fields); `issued` replaces the bare year."""
    date = dates.to_csl(value)
    if variable == "issued" and "date-parts" not in date and "issued" in out:
        return  # a year the record has beats a date CSL could only print as written
    out[variable] = date


def _put_month(out: dict[str, Any], value: str) -> None:
    """BibTeX's `month` into `issued` (which has only the year then)."""
    month = dates.month_number(value)
    parts = out.get("issued", {}).get("date-parts")
    if month is not None and parts and len(parts) == 1 and len(parts[0]) == 1:
        out["issued"] = {"date-parts": [[parts[0][0], month]]}


def _name(family: str, given: str, literal: str, suffix: str = "") -> dict[str, str]:
    """A CSL name, its particles apart (`names.particles`: BibTeX's von part and a
    particle after the given name), as CSL processors need them to print and sort it."""
    if literal or not family:
        return {"literal": clean(literal or given)}
    parts = particles(family, given)
    if parts is None:
        name = {"family": clean(family)}
        if given:
            name["given"] = clean(given)
    else:
        name = {"family": clean(parts.family)}
        if parts.given:
            name["given"] = clean(parts.given)
        if parts.dropping:
            name["dropping-particle"] = clean(parts.dropping)
        if parts.non_dropping:
            name["non-dropping-particle"] = clean(parts.non_dropping)
    if suffix:
        name["suffix"] = clean(suffix)
    return name


def _parse_names(text: str) -> list[dict[str, str]]:
    """A BibTeX name list from Record.fields (`editor`, ...) as CSL names, split as BibTeX
    splits them (`and` outside braces; `others` is et al., written as no name)."""
    authors = (parse_name(part) for part in split_names(text))
    return [_name(a.family, a.given, a.literal, a.suffix) for a in authors if a != ET_AL]


@cache
def validator() -> Draft7Validator:
    """The compiled validator for one item of the official CSL-JSON schema.

    The schema is package data; tests/writers checks that it is a valid draft-07 schema
    (checking it on every run took as long as writing a thousand records). jsonschema is
    imported here, for the first item the compiled check refuses: importing it took a
    twentieth of reading 5,000 `.bib` entries, which load this module's names."""
    from jsonschema import Draft7Validator

    return Draft7Validator(item_schema())


def item_schema() -> dict[str, Any]:
    """The schema of one item: the array schema's `items`, with the shared definitions."""
    data = schema.load("csl-data.json")
    return {**data["items"], "definitions": data["definitions"]}


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _shape(value: Any) -> Any:
    """What validity depends on: keys, lengths and Python types (jsonschema tells JSON types
    apart with isinstance, so the type decides). A container of scalars, the common case,
    costs two C-level calls."""
    if isinstance(value, dict):
        if _year_date(value) is not None:
            return _YEAR_DATE_SHAPE
        return (dict, tuple(value), _member_shapes(value.values()))
    if isinstance(value, list):
        return (list, _member_shapes(value))
    return type(value)


def _member_shapes(members: Collection[Any]) -> tuple[Any, ...]:
    if len(members) == 1:  # `date-parts`, one author
        return (_shape(next(iter(members))),)
    types = tuple(map(type, members))
    if _SCALARS.issuperset(types):
        return types
    shapes = list(types)  # the scalars' shapes: only the few containers are walked
    values = list(members)
    for i, kind in enumerate(types):
        if kind not in _SCALARS:
            shapes[i] = _shape(values[i])
    return tuple(shapes)


def _year_date(value: dict[Any, Any]) -> int | None:
    """`y` when `value` is exactly `{"date-parts": [[y]]}` with an int `y`: the `issued` of
    nearly every item, whose shape and JSON are then known without walking it (exact types
    only, so that they are what the walk gives)."""
    if len(value) != 1 or type(value) is not dict:
        return None
    parts = value.get("date-parts")
    if type(parts) is not list or len(parts) != 1:
        return None
    date = parts[0]
    if type(date) is not list or len(date) != 1 or type(date[0]) is not int:
        return None
    return date[0]


_YEAR_DATE_SHAPE = (dict, ("date-parts",), _member_shapes([[[2026]]]))
"""The shape of any `_year_date`, as the walk finds it."""


def item_shape(item: dict[str, Any]) -> Hashable:
    """What an item's validity depends on (the module's docstring): its `type`, its keys and
    the shapes of its values. Items of one shape are valid or invalid together, so a reader
    of a file with thousands of items asks jsonschema once per shape."""
    kind = item.get("type")
    return (kind if isinstance(kind, str) else None, tuple(item), _member_shapes(item.values()))


def compiled_check() -> Check:
    """The official schema of one item as plain Python checks (`schemacheck`): made once
    per run, by whoever starts it."""
    return compile_schema(item_schema())


def run_check(memo: RunMemo) -> Check:
    """The run's compiled schema check, made when its first item is validated."""
    if memo.csl_check is None:
        memo.csl_check = compiled_check()
    return memo.csl_check


def _validate(candidate: dict[str, Any], check: Check, fail: Any) -> None:
    """`fail` with the schema's first complaint about `candidate`: the compiled `check`
    says whether there is one, jsonschema (which has the last word) what it is."""
    if check(candidate):
        return
    problem = next(iter(validator().iter_errors(candidate)), None)
    if problem is not None:
        where = "/".join(str(p) for p in problem.absolute_path) or "item"
        raise fail(f"invalid CSL-JSON at {where}: {problem.message}")


def dumps(items: Iterable[dict[str, Any]]) -> str:
    """Items -> CSL-JSON text (UTF-8, indent 2, trailing newline), each validated first."""
    items = list(items)
    check = compiled_check()
    for candidate in items:
        name = candidate.get("id", "?")
        _validate(candidate, check, lambda m, name=name: BibError(f"record {name}: {m}"))
    return _pretty(items, "") + "\n"


_encode_string = json.encoder.encode_basestring


def _pretty_item(value: dict[str, Any], year_dates: dict[int, str]) -> str:
    """`_pretty(value, "  ")` for an item, the value `stream` writes: one join of all its
    pieces (each value copied once), its strings (most values) encoded here; the text of a
    year-only date is taken from `year_dates` (the run's, `RunMemo.year_dates`)."""
    parts = ["{"]
    members = _members()
    for key, v in value.items():
        member = members.get(key) or _member(key)
        if type(v) is not str:
            if type(v) is dict and (year := _year_date(v)) is not None:
                if (text := year_dates.get(year)) is None:
                    text = year_dates[year] = _pretty_dict(v, "    ")
                parts += (member, text)
            else:
                parts += (member, _pretty(v, "    "))
        elif len(v) < _LONG or v.encode("utf-8", "surrogatepass").translate(None, _JSON_VERBATIM):
            parts += (member, _encode_string(v))
        else:  # a long text with nothing to escape (an abstract), as one bytes.translate
            parts += (member, '"', v, '"')  # tells several times faster than the encoder
    if len(parts) == 1:
        return "{}"
    parts[1] = parts[1][1:]  # the first member's line follows "{" without a comma
    parts.append("\n  }")
    return "".join(parts)


# Bytes of UTF-8 text that JSON writes as they are (ensure_ascii=False): all but `"`, `\`
# and control characters; a lone surrogate, encoded with surrogatepass, passes too.
_JSON_VERBATIM = bytes(b for b in range(256) if b >= 0x20 and b not in b'"\\')


_LONG = 200


def _member(key: str) -> str:
    """What comes before an item's member: `,` ending the line before, then `    "key": `."""
    return f",\n    {_encode_string(str(key))}: "


@cache
def _members() -> dict[str, str]:
    """`_member` of every variable of the official schema: a constant table built once from
    package data (an item has about eleven members; making each text anew was a tenth of
    the writer's time). Other keys, which only a test's items have, are made as met."""
    return {name: _member(name) for name in item_schema()["properties"]}


def _pretty(value: Any, indent: str) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=2)`, byte for byte, several times faster
    (the standard library falls back to pure-Python encoding whenever `indent` is set)."""
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if kind is int:
        return int.__repr__(value)
    if isinstance(value, dict):  # before lists: an item's `issued` (no type is both)
        return _pretty_dict(value, indent)
    if kind is list or kind is tuple or isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = indent + "  "
        if len(value) == 1:  # `date-parts`, one author: no list to build
            return f"[\n{inner}{_pretty(value[0], inner)}\n{indent}]"
        lines = [inner + _pretty(v, inner) for v in value]
        return "[\n" + ",\n".join(lines) + f"\n{indent}]"
    if isinstance(value, str):
        return _encode_string(value)
    return json.dumps(value)


def _pretty_dict(value: dict[Any, Any], indent: str) -> str:
    if not value:
        return "{}"
    inner = indent + "  "
    lines = [
        f"{inner}{_encode_string(str(k))}: "
        + (_encode_string(v) if type(v) is str else _pretty(v, inner))  # names, `custom`
        for k, v in value.items()
    ]
    return "{\n" + ",\n".join(lines) + f"\n{indent}}}"


def order_key(key: str) -> str:
    """The order of items by citation key: as it is."""
    return key


def stream(
    records: Iterable[Record], *, tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS
) -> Iterator[str]:
    """`render` piece by piece for records already in `order_key` order, holding none of
    them: the text of all pieces is what `render` returns for the same records."""
    options, memo = WriteOptions(tag_kinds=tuple(tag_kinds)), RunMemo()
    return LAYOUT.wrap(entry_text(prepare(r, options, memo)) for r in with_new_keys(records))


LAYOUT = Layout(first="[\n  ", between=",\n  ", last="\n]\n", empty="[]\n")
"""What goes around and between items: one JSON array, indented by two."""


def entry_text(prepared: Prepared) -> str:
    """One record's item as `stream` writes it (validated by `item`)."""
    return _pretty_item(prepared_item(prepared), prepared.memo.year_dates)


def render(records: Iterable[Record], *, tag_kinds: Iterable[TagKind] = DEFAULT_TAG_KINDS) -> str:
    records = sorted(records, key=lambda r: order_key(r.key))
    check_unique_keys(records)
    return "".join(stream(records, tag_kinds=tag_kinds))


WRITER = Writer(
    name="csl-json",
    suffixes=(".json",),
    description="CSL-JSON for pandoc, citeproc and Zotero",
    layout=LAYOUT,
    order_key=order_key,
    entry_text=entry_text,
    accepts_key=verbatim_key,
)
