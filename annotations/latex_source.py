"""What a `.bib` input wrote (`Record.latex`), kept in the library beside the decoded record,
so `bib export` writes it back as `bib convert` does (docs/decisions/latex-source.md).

A record keeps the LaTeX of the fields it still holds as read (`pruned`: an edit, a `set`,
a resolve or a Zotero pull that changes a value drops that field's LaTeX) and the `@string`s
those fields reference. What each field decoded to is not stored: it is what the record
holds for the field (`held`), which `pruned` guarantees for every field kept. `@preamble`s
are stored once, by the SHA-256 of their text (table `latex_preambles`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from bib.record import FieldLatex, LatexSource, Record, StringDef, evolve

# `bib.latex` is imported where it is used: every `bib` command opens the store, and the
# light ones (`note add`, `status`) must start without loading the LaTeX tables
# (tests/cli/test_startup.py).


def digest(preamble: str) -> str:
    """The name a `@preamble` is stored under: the SHA-256 of its text, in hex."""
    return hashlib.sha256(preamble.encode("utf-8")).hexdigest()


def pruned(record: Record) -> LatexSource | None:
    """`record.latex` without the fields whose value changed since they were read (a writer
    would not use them: `bib.latex.source.kept`) and without the `@string`s no kept field
    references; None when nothing is left."""
    latex = record.latex
    if latex is None:
        return None
    from bib.latex.source import held

    fields = tuple(f for f in latex.fields if f.decoded == held(record, f.name))
    if not fields and not latex.preambles:
        return None
    return LatexSource(fields, _needed(fields, latex.strings), latex.preambles)


def _needed(fields: Iterable[FieldLatex], strings: Sequence[StringDef]) -> tuple[StringDef, ...]:
    """The `@string`s (in their order) that `fields` reference, directly or through another."""
    from bib.latex.source import references

    needed = {name for f in fields if f.raw for name in references(f.raw)}
    for found in reversed(strings):  # in file order: a definition's needs come first
        if found.name.lower() in needed:
            needed.update(references(found.raw))
    return tuple(d for d in strings if d.name.lower() in needed)


def combined(incoming: LatexSource | None, stored: LatexSource | None) -> LatexSource | None:
    """The LaTeX of a record updated by an import or an edit: `incoming`'s fields, then the
    stored ones `incoming` lacks (an update never empties a field, so their values stay).
    A stored field referencing an `@string` that `incoming` defines differently (or one
    defined in terms of it) is taken expanded, so a reference never changes its meaning."""
    if incoming is None or stored is None:
        return incoming or stored
    from bib.latex.source import references

    have = {f.name for f in incoming.fields}
    defined = {d.name.lower(): d.raw for d in incoming.strings}
    clashing = {
        d.name.lower() for d in stored.strings if defined.get(d.name.lower(), d.raw) != d.raw
    }
    for found in stored.strings:  # in file order: dependencies first
        if not clashing.isdisjoint(references(found.raw)):
            clashing.add(found.name.lower())
    extra = tuple(
        f._replace(raw="") if f.raw and not clashing.isdisjoint(references(f.raw)) else f
        for f in stored.fields
        if f.name not in have
    )
    return LatexSource(
        incoming.fields + extra,
        incoming.strings + tuple(d for d in stored.strings if d.name.lower() not in defined),
        incoming.preambles + tuple(p for p in stored.preambles if p not in incoming.preambles),
    )


def with_file_preambles(records: Sequence[Record]) -> list[Record]:
    """`records` read together, each one read from a `.bib` given the `@preamble`s of the
    files it came from. The reader puts a file's `@preamble`s on its first record only; in the
    library records are exported in any selection, and the macros a preamble defines are
    needed by every entry of its file."""
    by_path: dict[str, dict[str, None]] = {}
    for record in records:
        if record.latex is not None and record.latex.preambles:
            for source in record.sources:
                by_path.setdefault(source.path, {}).update(dict.fromkeys(record.latex.preambles))
    if not by_path:
        return list(records)
    out = []
    for record in records:
        latex = record.latex
        found: dict[str, None] = {}
        for source in record.sources:
            found.update(by_path.get(source.path, {}))
        if latex is not None and found.keys() - set(latex.preambles):
            together = tuple(dict.fromkeys((*latex.preambles, *found)))
            record = evolve(record, latex=replace(latex, preambles=together))
        out.append(record)
    return out


def preambles_in_source_order(records: Sequence[Record]) -> list[Record]:
    """`records` to be written together, each one with `@preamble`s carrying all of theirs,
    in the order of where they were read (path, then line), so the output's header (in
    which the first record in key order names them first) has them in file order: one file's
    `@preamble` may define what another's redefines, as BibTeX reads them, in file order."""
    carriers = sorted(
        (record for record in records if record.latex is not None and record.latex.preambles),
        key=lambda r: min(((s.path, s.line or 0) for s in r.sources), default=("", 0)),
    )
    if len(carriers) < 2:
        return list(records)
    every = tuple(dict.fromkeys(p for r in carriers if r.latex for p in r.latex.preambles))
    return [
        evolve(record, latex=replace(record.latex, preambles=every))
        if record.latex is not None and record.latex.preambles
        else record
        for record in records
    ]


def dumps(latex: LatexSource) -> str:
    """The JSON stored in a record's `latex` column: fields as `[name, latex]` or `[name,
    latex, raw]`, `@string`s as `[name, raw]`, `@preamble`s by `digest`. For a `pruned`
    value: what each field decoded to is left out (`loads` takes it from the record)."""
    return json.dumps(
        {
            "fields": [
                [f.name, f.latex, f.raw] if f.raw else [f.name, f.latex] for f in latex.fields
            ],
            "strings": [[d.name, d.raw] for d in latex.strings],
            "preambles": [digest(p) for p in latex.preambles],
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )


def loads(text: str, record: Record, preamble: Callable[[str], str]) -> Record:
    """`record` (decoded from the same row) with the LaTeX `dumps` stored; `preamble` gives
    the text of a `@preamble` by its digest."""
    from bib.latex.source import held

    data = json.loads(text)
    fields = tuple(
        FieldLatex(name, latex, held(record, name) or "", raw[0] if raw else "")
        for name, latex, *raw in data.get("fields", ())
    )
    strings = tuple(StringDef(name, raw) for name, raw in data.get("strings", ()))
    preambles = tuple(preamble(name) for name in data.get("preambles", ()))
    return evolve(record, latex=LatexSource(fields, strings, preambles))
