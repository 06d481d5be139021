"""Field-by-field comparison of `bib`'s reading of a .bib file with pandoc's (shared by the
corpus tests and the figures in docs/formats.md)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from differences import Difference, sources

from bib import convert as engine
from bib.writers import csljson

COMPARED = (
    "title",
    "author",
    "editor",
    "translator",
    "issued",
    "accessed",
    "container-title",
    "collection-title",
    "publisher",
    "publisher-place",
    "volume",
    "issue",
    "number",
    "page",
    "edition",
    "DOI",
    "URL",
    "ISBN",
    "ISSN",
)
"""The variables compared: every one both readers produce from standard fields."""

_TAG = re.compile(r"<[^>]+>")
_CASED = frozenset({"title", "container-title", "collection-title"})


@dataclass
class Agreement:
    equal: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)
    differences: list[Difference] = field(default_factory=list)

    def ratio(self, name: str | None = None) -> float:
        if name is None:
            total = sum(self.total.values())
            return sum(self.equal.values()) / total if total else 1.0
        return self.equal[name] / self.total[name] if self.total[name] else 1.0


def pandoc_items(path: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["pandoc", "-f", "bibtex", "-t", "csljson", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout or "[]")


def our_items(path: Path) -> dict[str, dict[str, Any]]:
    result = engine.run([path], engine.ConvertOptions(stages=()))
    return {record.key: csljson.item(record) for record in result.records}


def normal(variable: str, value: Any) -> Any:
    """A value as both readers mean it: markup, case protection and spacing aside."""
    if isinstance(value, str):
        # the same text in NFC (pandoc keeps `\'{\i}` as a dotless i and a combining accent)
        text = unicodedata.normalize("NFC", html.unescape(_TAG.sub("", value)))
        # pandoc makes straight quotes curly and drops `\-` (a discretionary hyphen), which
        # bib keeps as typed and as U+00AD (docs/formats.md, deliberate differences)
        text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u00ad", "")
        if variable == "DOI":  # pandoc keeps a resolver prefix; CSL's DOI has none
            text = re.sub(r"^https?://(dx\.)?doi\.org/", "", text.lower())
        if variable in _CASED:  # pandoc makes English titles sentence case (CSL's advice)
            text = text.casefold()
        return " ".join(text.replace("\u00a0", " ").split())
    if isinstance(value, list):
        return [normal(variable, v) for v in value]
    if isinstance(value, dict):
        return {k: normal(variable, v) for k, v in value.items() if k not in ("parse-names",)}
    return str(value) if isinstance(value, int) else value


def compare(
    theirs: list[dict[str, Any]], ours: dict[str, dict[str, Any]], out: Agreement, text: str
) -> None:
    """Count pandoc's values (`theirs`) that bib gives equally; keep the others, with the
    entry's source fields (of the .bib `text`) for `differences.classify`."""
    entries: dict[str, dict[str, str]] | None = None
    for item in theirs:
        key = str(item.get("id"))
        mine = ours.get(key, {})
        for variable in COMPARED:
            if variable not in item:
                continue
            if item[variable] == "" and variable not in mine:
                continue  # pandoc keeps an empty field (`volume = ""`) as "": no value either way
            out.total[variable] += 1
            expected, got = normal(variable, item[variable]), normal(variable, mine.get(variable))
            if expected == got:
                out.equal[variable] += 1
                continue
            entries = sources(text) if entries is None else entries
            source = entries.get(key, {})
            out.differences.append(
                Difference(
                    key,
                    variable,
                    expected,
                    got,
                    source,
                    entries.get(source.get("crossref", ""), {}),
                    tuple(fields for other, fields in entries.items() if other != key),
                )
            )
