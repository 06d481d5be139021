"""BibTeX syntax: one linear pass from text to entries with raw LaTeX values and lines.

The grammar is BibTeX's own (`bibtex.web`, the `@`-command scanner): text between
entries is ignored; `@comment` takes a balanced group or nothing; `@preamble` and
`@string` take a value; any other `@type` takes a key then `name = value` fields. A
value is pieces joined by `#`: `{...}` (balanced), `"..."` (braces balanced inside),
a number, or a macro name. Values are kept as LaTeX, outer delimiters removed,
`@string`s expanded; the reader decodes them later, only where needed.

Forgiving as BibTeX is: an undefined macro becomes its name, a repeated field keeps the
first, an entry that does not parse is skipped from its `@` to the next entry that starts
a line; each is a `Problem` with its line. Expansion is bounded (`MAX_VALUE`,
`MAX_DEPTH`): past it, `BibError` naming the line, because no real file gets near.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from bib.errors import BibError

MAX_VALUE = 1_000_000
"""Characters in one expanded value (the longest abstract in TeX Live's files is ~20k)."""
MAX_DEPTH = 64
"""Levels of `@string`s defined in terms of other `@string`s."""
MONTHS = {
    "jan": "January",
    "feb": "February",
    "mar": "March",
    "apr": "April",
    "may": "May",
    "jun": "June",
    "jul": "July",
    "aug": "August",
    "sep": "September",
    "oct": "October",
    "nov": "November",
    "dec": "December",
}
"""The macros every standard style predefines (and bibtexparser's `common_strings`)."""

_AT = re.compile(r"@[ \t\n]*([A-Za-z_][\w:.+-]*)[ \t\n]*([{(]?)")
_NEXT_ENTRY = re.compile(r"^[ \t]*@", re.MULTILINE)
_SPACE = re.compile(r"(?:[ \t\n]|%[^\n]*)*")
_NAME = re.compile(r"[^\s\"#%'(),={}]+")
_KEY = re.compile(r"[^\s,}]*")
_KEY_PAREN = re.compile(r"[^\s,)]*")
_FIELD_START = re.compile(
    r",(?:[ \t\n]|%[^\n]*)*([^\s\"#%'(),={}]+)(?:[ \t\n]|%[^\n]*)*=(?:[ \t\n]|%[^\n]*)*"
)
"""`, name = ` of a field, with the spaces and comments `space` skips."""
_SIMPLE_FIELD = re.compile(
    r",(?:[ \t\n]|%[^\n]*)*([^\s\"#%'(),={}]+)(?:[ \t\n]|%[^\n]*)*=(?:[ \t\n]|%[^\n]*)*"
    r'(?:\{([^{}@]*(?:\{[^{}@]*\}[^{}@]*)*)\}|"([^"{}@]*(?:\{[^{}@]*\}[^"{}@]*)*)"'
    r'|([0-9]+)(?![^\s"#%\'(),={}])|([^\s"#%\'(),={}@]+)(?![^\s"#%\'(),={}]))'
    r"(?:[ \t\n]|%[^\n]*)*+(?!#)"
)
"""`_FIELD_START` then a value not joined by `#`, and the space after it: a whole field of
most entries in one match (`_Parser.simple_field`). The value is a number, or a `{...}` or
`"..."` with groups one deep inside (`{{BERT}: ...}`, `"J{\\"o}rg"`, `\\textbf{57\\%}`), and
no `@` (where a group may stop), or the name of one `@string` (group `_MACRO`: TeX Live's
`journal = j-TUGboat`, `month = jan`); each piece of it written so that the match stays
linear."""
_MACRO = 5
"""The group of `_SIMPLE_FIELD` that holds an `@string`'s name."""
_SIMPLE_VALUE = re.compile(r'\{([^{}@]*)\}|"([^"{}@]*)"|([0-9]+)(?![^\s"#%\'(),={}])')
"""A value with no brace inside (nor an `@`, where a group may stop) or a number."""
_BRACES = re.compile(r"[{}]|\n[ \t]*@[A-Za-z]+[ \t]*[{(]")
_QUOTED = re.compile(r'[{}"]|\n[ \t]*@[A-Za-z]+[ \t]*[{(]')
# A group stops at an `@type{` that starts a line: an entry left open ends there, so a
# missing brace costs one entry (not the rest of the file) and every scan stays linear.


class Field(NamedTuple):
    """One `name = value` of an entry. A named tuple, not a frozen dataclass: it is made
    for every field of a file, and a frozen dataclass's `__init__` (a call of
    `object.__setattr__` for each attribute) took a tenth of the tokenizer's time."""

    name: str
    """Lower-cased, as BibTeX compares them."""
    value: str
    line: int
    raw: str = ""
    """As written when the value is not one `{...}` or `"..."` (it references `@string`s
    or joins pieces with `#`), so that a writer can reference them again; else empty."""


class Entry(NamedTuple):
    type: str
    """Lower-cased."""
    key: str
    """Verbatim."""
    line: int
    fields: tuple[Field, ...]

    def values(self) -> dict[str, str]:
        return {f.name: f.value for f in self.fields}


class StringDef(NamedTuple):
    name: str
    value: str
    """Expanded."""
    raw: str
    """As written (between `=` and the closing delimiter), to be written back."""
    line: int


class Chunk(NamedTuple):
    """`@preamble` (value expanded) or `@comment` (text inside its group), with its line."""

    text: str
    line: int


class Problem(NamedTuple):
    message: str
    line: int


class Document:
    """What one parse found. Plain classes and named tuples here, not dataclasses: making a
    dataclass costs about a millisecond of every start-up (its methods are compiled from
    source), and reading a `.bib` loads this module first."""

    __slots__ = ("comments", "entries", "preambles", "problems", "resume", "strings")

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.strings: list[StringDef] = []
        self.preambles: list[Chunk] = []
        self.comments: list[Chunk] = []
        self.problems: list[Problem] = []
        self.resume = 0
        """Where a parse of the text that follows starts: the end of the last command read,
        if it ran past the parse's `end`, else that `end` (`bib.readers.bibtex_parts`)."""


class _Skip(Exception):
    """This entry does not parse: skip it, say why."""

    def __init__(self, message: str, pos: int, *, unclosed: bool = False):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.unclosed = unclosed
        """The entry never ends: reported at its first line."""


class _Macro(NamedTuple):
    value: str
    depth: int


Macros = dict[str, _Macro]
"""The `@string`s defined so far (lower-cased names), as a parse carries them."""


def predefined() -> Macros:
    """The macros a file starts with (`MONTHS`)."""
    return {k: _Macro(v, 0) for k, v in MONTHS.items()}


class _Lines:
    """Line numbers of positions asked for in increasing order: linear over one pass."""

    def __init__(self, text: str, pos: int = 0, line: int = 1):
        self.text = text
        self.pos = pos
        self.line = line

    def at(self, pos: int) -> int:
        if pos >= self.pos:
            self.line += self.text.count("\n", self.pos, pos)
        else:
            self.line -= self.text.count("\n", pos, self.pos)
        self.pos = pos
        return self.line


def _structure(text: str, start: int, end: int, value: str) -> str:
    """`Field.raw` of the value written at `text[start:end]`: empty for one delimited group
    (whose length is exactly its value's plus the two delimiters; a macro or a `#` join
    never is), else the text as written."""
    if end - start == len(value) + 2 and text[start] in '{"':
        return ""
    return text[start:end]


def parse(
    text: str,
    path: str,
    report: Callable[[Problem], None] | None = None,
    *,
    start: int = 0,
    end: int | None = None,
    line: int = 1,
    macros: Macros | None = None,
    seen: dict[str, int] | None = None,
) -> Document:
    """Every `@` command of `text`; problems collected in the document (and sent to
    `report` as they happen). Raises BibError only past the expansion bounds.

    A part of the text: the commands whose `@` is in `text[start:end]` (the last one read to
    its end, past `end` if it goes on), `line` the line of `start`, `macros` the `@string`s
    defined before it (updated in place) and `seen` the keys (casefolded) with their lines;
    the whole text is kept, so an entry cut short says what it says in the whole file."""
    parser = _Parser(text, path, report, start, end, line, macros, seen)
    found = list(parser.run())
    parser.doc.entries = found
    return parser.doc


class _Parser:
    simple_field = _SIMPLE_FIELD
    """`, name = {value}` (or `"value"`, a number, an `@string`) in one match, for most
    fields (`_SIMPLE_FIELD`, `simple_value`); any other field takes the general path.
    Speed trick, isolated: the general path is its oracle (a parser whose `simple_field`
    never matches, tests/readers/test_bibtex_syntax.py)."""

    def __init__(
        self,
        text: str,
        path: str,
        report: Callable[[Problem], None] | None,
        start: int = 0,
        end: int | None = None,
        line: int = 1,
        macros: Macros | None = None,
        seen: dict[str, int] | None = None,
    ):
        self.text = text
        self.path = path
        self.report = report
        self.start = start
        self.end = len(text) if end is None else end
        self.lines = _Lines(text, start, line)
        self.macros = predefined() if macros is None else macros
        self.doc = Document()
        self.seen = {} if seen is None else seen

    def problem(self, message: str, line: int) -> None:
        found = Problem(message, line)
        self.doc.problems.append(found)
        if self.report is not None:
            self.report(found)

    def run(self) -> Iterator[Entry]:
        """Every entry in turn (`@string`, `@preamble`, `@comment` and problems go to the
        document)."""
        text, pos, done, end = self.text, self.start, self.doc.entries, self.end
        while (at := text.find("@", pos, end)) >= 0:
            match = _AT.match(text, at)
            if match is None or not match.group(2):
                pos = at + 1  # a stray `@` (an e-mail address in a comment): ignored
                continue
            kind = match.group(1).lower()
            line = self.lines.at(at)
            close = "}" if match.group(2) == "{" else ")"
            try:
                pos = self.command(kind, match.end(), close, line)
            except _Skip as skip:
                key = self.key_hint(match.end())
                named = f" '{key}'" if key else ""
                where = line if skip.unclosed else self.lines.at(skip.pos)
                self.problem(f"skipped @{kind}{named}: {skip.message}", where)
                resync = _NEXT_ENTRY.search(text, max(skip.pos, match.end()))
                pos = resync.start() if resync is not None else len(text)
            if done:  # the entry `command` just read
                yield from done
                done.clear()
        self.doc.resume = max(pos, end)

    def key_hint(self, pos: int) -> str:
        match = _KEY.match(self.text, self.space(pos))
        key = match.group(0) if match else ""
        return key if "=" not in key else ""

    def command(self, kind: str, pos: int, close: str, line: int) -> int:
        if kind == "comment":
            end = self.group_end(pos, close)
            self.doc.comments.append(Chunk(self.text[pos:end], line))
            return end + 1
        if kind == "preamble":
            pos = self.space(pos)
            value, _, pos = self.value(pos)
            self.expect(close, self.space(pos))
            self.doc.preambles.append(Chunk(value, line))
            return self.space(pos) + 1
        if kind == "string":
            return self.string(pos, close, line)
        return self.entry(kind, pos, close, line)

    def space(self, pos: int) -> int:
        return _SPACE.match(self.text, pos).end()  # type: ignore[union-attr]

    def expect(self, char: str, pos: int) -> None:
        if pos >= len(self.text):
            raise _Skip(f"missing '{char}' before the end of the file", pos)
        if self.text[pos] == "@" and char in "})":
            raise _Skip("unbalanced braces: never closed", pos, unclosed=True)
        if self.text[pos] != char:
            raise _Skip(f"expected '{char}', found {self.text[pos]!r}", pos)

    def group_end(self, pos: int, close: str) -> int:
        """Position of the `close` that ends a group opened just before `pos`."""
        text, depth = self.text, 0
        if close == ")":
            end = text.find(")", pos)
            if end < 0:
                raise _Skip("never closed", len(text), unclosed=True)
            return end
        for match in _BRACES.finditer(text, pos):
            char = match.group(0)
            if len(char) > 1:
                raise _Skip("unbalanced braces: never closed", match.start() + 1, unclosed=True)
            if char == "{":
                depth += 1
            elif depth == 0:
                return match.start()
            else:
                depth -= 1
        raise _Skip("unbalanced braces: never closed", len(text), unclosed=True)

    def string(self, pos: int, close: str, line: int) -> int:
        pos = self.space(pos)
        name = _NAME.match(self.text, pos)
        if name is None:
            raise _Skip("@string without a name", pos)
        pos = self.space(name.end())
        self.expect("=", pos)
        start = self.space(pos + 1)
        value, depth, pos = self.value(start)
        raw = self.text[start:pos].rstrip()
        pos = self.space(pos)
        self.expect(close, pos)
        if depth + 1 > MAX_DEPTH:
            raise BibError(
                f"@string '{name.group(0)}' nests more than {MAX_DEPTH} levels of @string",
                self.path,
                line,
            )
        self.macros[name.group(0).lower()] = _Macro(value, depth + 1)
        self.doc.strings.append(StringDef(name.group(0), value, raw, line))
        return pos + 1

    def entry(self, kind: str, pos: int, close: str, line: int) -> int:
        text = self.text
        pos = self.space(pos)
        key_match = (_KEY if close == "}" else _KEY_PAREN).match(text, pos)
        key = key_match.group(0) if key_match else ""
        if not key or "=" in key:
            raise _Skip("no citation key", pos)
        pos = self.space(key_match.end())  # type: ignore[union-attr]
        fields: dict[str, Field] = {}
        simple_field = self.simple_field.match
        while pos < len(text) and text[pos] == ",":
            simple = simple_field(text, pos)
            if simple is not None and (found := self.simple_value(simple)) is not None:
                field_name, (value, raw) = simple.group(1), found
                field_line, pos = self.lines.at(simple.start(1)), simple.end()
            elif (start := _FIELD_START.match(text, pos)) is not None:  # `, name =`
                field_name, field_line = start.group(1), self.lines.at(start.start(1))
                value, raw, pos = self.value_at(start.end())
            else:
                pos = self.space(pos + 1)
                name = _NAME.match(text, pos)
                if name is None:
                    break  # a trailing comma
                field_name, field_line = name.group(0), self.lines.at(pos)
                pos = self.space(name.end())
                self.expect("=", pos)
                begin = self.space(pos + 1)
                value, _, pos = self.value(begin)
                raw = _structure(self.text, begin, pos, value)
                pos = self.space(pos)
            lowered = field_name.lower()
            if lowered in fields:
                self.problem(
                    f"{key}: field '{lowered}' repeated (line {fields[lowered].line} kept)",
                    field_line,
                )
            else:
                fields[lowered] = Field(lowered, value, field_line, raw)
        self.expect(close, pos)
        folded = key.casefold()
        if folded in self.seen:
            self.problem(
                f"duplicate key '{key}' (first at line {self.seen[folded]}): "
                "this entry is skipped, as BibTeX does",
                line,
            )
        else:
            self.seen[folded] = line
            self.doc.entries.append(Entry(kind, key, line, tuple(fields.values())))
        return pos + 1

    def simple_value(self, simple: re.Match[str]) -> tuple[str, str] | None:
        """The value and `Field.raw` of a `simple_field` match; None when the general path
        must read it (an undefined `@string`, which it reports, or a value too long)."""
        found = simple.lastindex
        if found != _MACRO:
            value = simple.group(found)  # type: ignore[arg-type]
            return None if len(value) > MAX_VALUE else (value, "")
        name = simple.group(_MACRO)
        macro = self.macros.get(name.lower())
        return None if macro is None or name.isdigit() else (macro.value, name)

    def value_at(self, pos: int) -> tuple[str, str, int]:
        """`value`, its `Field.raw`, then the space after it; a lone `{...}` or `"..."`
        without braces inside, or a number, in one match (most fields)."""
        simple = _SIMPLE_VALUE.match(self.text, pos)
        if simple is not None and simple.end() - pos <= MAX_VALUE:
            after = _SPACE.match(self.text, simple.end()).end()  # type: ignore[union-attr]
            if not self.text.startswith("#", after):
                found = simple.lastindex
                return simple.group(found), "", after  # type: ignore[arg-type]
        value, _, end = self.value(pos)
        return value, _structure(self.text, pos, end, value), self.space(end)

    def value(self, pos: int) -> tuple[str, int, int]:
        """One `a # "b" # {c}` value from `pos`: its text, the deepest macro used, the end."""
        text, parts, depth, size = self.text, [], 0, 0
        while True:
            if pos >= len(text):
                raise _Skip("value runs to the end of the file", pos)
            char = text[pos]
            if char == "{":
                end = self.group_end(pos + 1, "}")
                part, pos = text[pos + 1 : end], end + 1
            elif char == '"':
                end = self.quoted_end(pos + 1)
                part, pos = text[pos + 1 : end], end + 1
            else:
                name = _NAME.match(text, pos)
                if name is None:
                    raise _Skip(f"expected a value, found {char!r}", pos)
                word, pos = name.group(0), name.end()
                if word.isdigit():
                    part = word
                else:
                    macro = self.macros.get(word.lower())
                    if macro is None:
                        self.problem(
                            f"undefined @string '{word}' (kept as its name)",
                            self.lines.at(name.start()),
                        )
                        part = word
                    else:
                        part, depth = macro.value, max(depth, macro.depth)
            size += len(part)
            if size > MAX_VALUE:
                raise BibError(
                    f"value longer than {MAX_VALUE:,} characters after @string expansion",
                    self.path,
                    self.lines.at(pos),
                )
            parts.append(part)
            after = self.space(pos)
            if after < len(text) and text[after] == "#":
                pos = self.space(after + 1)
                continue
            return "".join(parts), depth, pos

    def quoted_end(self, pos: int) -> int:
        """Position of the `"` that ends a quoted value (quotes inside braces do not)."""
        depth = 0
        for match in _QUOTED.finditer(self.text, pos):
            char = match.group(0)
            if len(char) > 1:
                raise _Skip("quoted value never closed", match.start() + 1, unclosed=True)
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth < 0:
                    raise _Skip("unbalanced '}' in a quoted value", match.start())
            elif depth == 0:
                return match.start()
        raise _Skip("quoted value never closed", len(self.text), unclosed=True)
