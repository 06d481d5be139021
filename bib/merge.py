"""Duplicates: the same paper read twice (same id, DOI, arXiv id or abstract) is one record.

Only sure evidence merges: a DOI, an arXiv id, an abstract of real length, or (for BibTeX
and CSL-JSON entries without those) the same citation key. Records that merely look alike
(same title, year and first author) are reported as possible duplicates and kept apart:
volumes of a series and a regular column share all three.

Which record leads a merge depends only on where each came from (path, then line), never
on the order the inputs were given, so merged output is the same for any order. The
leading record's values win; empty ones are filled from the others; links, tags, fields
and sources are united.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from typing import NamedTuple

from bib.identity import abstract_key, likeness, names_work, record_id
from bib.record import LatexSource, Record, Source

Report = Callable[[str], None]
_UNITED = ("links", "tags", "sources")
_SCALARS = tuple(
    f.name
    for f in fields(Record)
    if f.name not in (*_UNITED, "id", "fields", "title_derived", "latex")
)


def identities(record: Record) -> list[str]:
    """Every key under which another record would be the same paper."""
    keys = [record.id]
    if record.doi:
        keys.append(f"doi:{record.doi.lower()}")
    if record.arxiv_id:
        keys.append(f"arxiv:{record.arxiv_id.lower()}")
    if record.abstract and not record.id.startswith("abs:") and names_work(record.abstract):
        digest = abstract_key(record.abstract)
        if digest:
            keys.append(f"abs:{digest}")
    return keys


def _where(source: Source | None) -> str:
    if source is None:
        return "?"
    return source.path if source.line is None else f"{source.path}:{source.line}"


def _order(record: Record) -> tuple[str, int]:
    source = record.source
    return (source.path, source.line or 0) if source else ("", 0)


def combine(lead: Record, other: Record) -> Record:
    """`lead` with its gaps filled from `other`; collections united, `lead`'s first."""
    changes: dict[str, object] = {}
    for name in _SCALARS:
        if not getattr(lead, name) and getattr(other, name):
            changes[name] = getattr(other, name)
    if lead.title_derived and other.title and not other.title_derived:
        changes["title"] = other.title  # a published title beats one bib derived
    if "title" in changes:
        changes["title_derived"] = other.title_derived
    for name in _UNITED:
        mine = getattr(lead, name)
        changes[name] = mine + tuple(x for x in getattr(other, name) if x not in mine)
    have = {name for name, _ in lead.fields}
    changes["fields"] = lead.fields + tuple(f for f in other.fields if f[0] not in have)
    changes["latex"] = _latex(lead.latex, other.latex)
    merged = replace(lead, **changes)  # type: ignore[arg-type]
    new_id = record_id(
        doi=merged.doi,
        arxiv_id=merged.arxiv_id,
        abstract=merged.abstract,
        title=merged.title,
        year=merged.year,
        authors=merged.authors,
        key=merged.key,
    )
    return replace(merged, id=new_id)


def _latex(lead: LatexSource | None, other: LatexSource | None) -> LatexSource | None:
    """Both records' LaTeX, `lead`'s first for a field both have: a writer uses a field's
    LaTeX only while the merged record still holds what it decoded to, whoever's it was."""
    if lead is None or other is None:
        return lead or other
    have = {f.name for f in lead.fields}
    named = {d.name.lower() for d in lead.strings}
    return LatexSource(
        lead.fields + tuple(f for f in other.fields if f.name not in have),
        lead.strings + tuple(d for d in other.strings if d.name.lower() not in named),
        lead.preambles + tuple(p for p in other.preambles if p not in lead.preambles),
    )


def groups(identity_lists: Iterable[list[str]]) -> list[list[int]]:
    """Positions (in the order given) of the items that are one paper, for items with these
    identities (see `identities`); groups in the order of their first item."""
    found: list[list[int]] = []
    index: dict[str, int] = {}
    parent: list[int] = []

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for position, keys in enumerate(identity_lists):
        hits = [find(index[k]) for k in keys if k in index]
        if not hits:
            slot = len(found)
            found.append([position])
            parent.append(slot)
        else:
            hits = sorted(set(hits))
            slot = hits[0]
            found[slot].append(position)
            for other in hits[1:]:
                found[slot].extend(found[other])
                found[other] = []
                parent[other] = slot
        for key in keys:
            index[key] = slot
    return [group for group in found if group]


def merge_group(group: list[Record], report: Report | None = None) -> Record:
    """One record from the records of one paper (reporting each merge)."""
    if len(group) == 1:  # most papers are read once
        return group[0]
    group = sorted(group, key=_order)
    lead = group[0]
    for other in group[1:]:
        if report is not None:
            report(f"merged: {_where(other.source)} = {_where(lead.source)} ({lead.id})")
        lead = combine(lead, other)
    return lead


def merge(records: Iterable[Record], report: Report | None = None) -> tuple[list[Record], int]:
    """Records with duplicates merged, in first-seen order, and the number of merges."""
    records = list(records)
    found = groups(identities(record) for record in records)
    merged = [merge_group([records[i] for i in group], report) for group in found]
    return merged, len(records) - len(merged)


class Lookalike(NamedTuple):
    """A record's `bib.identity.likeness` and where it was read."""

    likeness: str
    where: str


def lookalike(record: Record) -> Lookalike:
    """What tells a possible duplicate of `record`; nothing for a title derived by bib (two
    abstracts whose derived titles agree are two papers, told apart by their abstracts)."""
    if record.title_derived:
        return Lookalike("", _where(record.source))
    return Lookalike(likeness(record.title, record.year, record.authors), _where(record.source))


def possible_duplicates(found: Iterable[Lookalike]) -> list[str]:
    """One report line per record that looks like an earlier one but was not merged with it."""
    first: dict[str, str] = {}
    lines = []
    for item in found:
        if not item.likeness:
            continue
        if item.likeness in first:
            lines.append(
                f"warning: {item.where}: possible duplicate of {first[item.likeness]}"
                " (same title, year and first author; kept apart)"
            )
        else:
            first[item.likeness] = item.where
    return lines
