"""Three-way merge of Zotero item data, field by field.

base = what the local side produced at the last sync, local = what it produces now,
remote = what Zotero holds. A field changed on one side only takes that side's value; a
field changed on both sides to different values is a conflict, settled by `prefer` and
reported. Tags and collections are sets: additions and removals from both sides combine,
so they never conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Prefer = Literal["local", "remote"]
Kept = Literal["local", "remote", "open"]
"""What became of a conflict: one side won (`--prefer`), or it stays open for a later run."""
SET_FIELDS = frozenset({"tags", "collections"})
SERVER_FIELDS = frozenset({"key", "version", "dateAdded", "dateModified"})


@dataclass(frozen=True, slots=True)
class FieldConflict:
    field: str
    local: Any
    remote: Any
    kept: Kept


def _empty(value: Any) -> bool:
    return value in (None, "", [], {})


def _same(a: Any, b: Any) -> bool:
    return (_empty(a) and _empty(b)) or a == b


def _members(name: str, values: Any) -> dict[str, Any]:
    if name == "tags":
        return {tag["tag"]: tag for tag in values or []}
    return {value: value for value in values or []}


def merge_set(name: str, base: Any, local: Any, remote: Any) -> list[Any]:
    """Additions from both sides combine; removals too, except that bib never takes an
    item out of a collection (it only puts papers into their venue's): a collection the
    item left in Zotero stays left, one it joined there stays joined."""
    b, lo, r = _members(name, base), _members(name, local), _members(name, remote)
    removed_here = set(b) - set(lo) if name == "tags" else set()
    keep = (set(r) | (set(lo) - set(b))) - removed_here
    out = [lo.get(k, r.get(k)) if k in set(lo) - set(b) else r.get(k, lo.get(k)) for k in keep]
    if name == "tags":
        return sorted(out, key=lambda tag: tag["tag"])
    return sorted(out)


def merge(
    base: dict[str, Any], local: dict[str, Any], remote: dict[str, Any], prefer: Prefer | None
) -> tuple[dict[str, Any], list[FieldConflict]]:
    """The data to hold in Zotero after the merge, and the real conflicts met.

    A conflict with no `prefer` keeps Zotero's value there (and ours here): it stays open.
    """
    merged = {k: v for k, v in remote.items() if k not in SERVER_FIELDS}
    conflicts = []
    for name in sorted((set(base) | set(local)) - SERVER_FIELDS):
        b, lo, r = base.get(name), local.get(name), remote.get(name)
        if name in SET_FIELDS:
            merged[name] = merge_set(name, b, lo, r)
        elif _same(lo, b) or _same(lo, r):
            merged[name] = r if r is not None else ("" if isinstance(lo, str) else lo)
        elif _same(r, b):
            merged[name] = lo if lo is not None else ""
        else:
            conflicts.append(FieldConflict(name, lo, r, prefer or "open"))
            merged[name] = lo if prefer == "local" else r
        if merged.get(name) is None:
            merged.pop(name, None)
    return merged, conflicts


def strip_server_fields(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in SERVER_FIELDS}


def differs(a: dict[str, Any], b: dict[str, Any]) -> bool:
    names = (set(a) | set(b)) - SERVER_FIELDS
    for name in names:
        if name in SET_FIELDS:
            if _members(name, a.get(name)) != _members(name, b.get(name)):
                return True
        elif not _same(a.get(name), b.get(name)):
            return True
    return False
