"""Regenerate bib/data/latex_ascii.json: pylatexenc's macro (else the LaTeX kernel's accent
macro) for every non-ASCII character that pdflatex typesets in a plain T1 document (the
default set-up of issue 18: `\\usepackage[T1]{fontenc}`, UTF-8 input, no other package).

    PYTHONPATH=. python tests/writers/make_latex_ascii.py

Each candidate is typeset on its own line; a line that raises a TeX error drops its
character. Characters not in the table fall back to `?` under --ascii (docs/formats.md).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

from pylatexenc.latexencode import UnicodeToLatexEncoder

from bib.latex.tables import _ACCENTS

RANGES = [(0x00A0, 0x0250), (0x0370, 0x0400), (0x1E00, 0x2000), (0x2000, 0x2C00), (0xFB00, 0xFB07)]
TARGET = Path(__file__).resolve().parents[2] / "bib" / "data" / "latex_ascii.json"


def candidates() -> dict[str, str]:
    encoder = UnicodeToLatexEncoder(
        non_ascii_only=True, unknown_char_policy=lambda ch: "\x00", unknown_char_warning=False
    )
    out = {}
    for start, stop in RANGES:
        for code in range(start, stop):
            ch = chr(code)
            if unicodedata.category(ch) in ("Cn", "Co", "Cs", "Cc", "Mn", "Me", "Zl", "Zp"):
                continue
            encoded = encoder.unicode_to_latex(ch)
            if "\x00" in encoded:
                encoded = kernel_accent(ch) or encoded
            if "\x00" in encoded or not encoded.isascii() or encoded == ch:
                continue
            # `\\'\\i` (accent on dotless i): biber rewrites it as a dotless i plus a combining
            # accent, which pdflatex cannot typeset; `\\'i` is precomposed for biber and T1.
            encoded = re.sub(r"^\{?(\\[`'^\"~=.uv])\{?\\i\}?\}?$", r"\1{i}", encoded)
            out[ch] = "{" + encoded + "}" if encoded.startswith("\\") else encoded
    return out


_MARKS = {mark: macro for macro, mark in _ACCENTS.items()}


def kernel_accent(ch: str) -> str:
    """The LaTeX kernel's accent macro for a letter pylatexenc has none for (`\\d{a}` for
    U+1EA1, `\\b{b}` for U+1E07): one ASCII letter and one combining mark the kernel has."""
    parts = unicodedata.normalize("NFD", ch)
    if len(parts) == 2 and parts[0].isascii() and parts[0].isalpha() and parts[1] in _MARKS:
        return f"\\{_MARKS[parts[1]]}{{{parts[0]}}}"
    return ""


_ACCENTED = re.compile(r"^\{\\(['`^\"~=.uvHckrdb])\s*\{?([A-Za-z])\}?\}$")
_ANY_ACCENT = re.compile(r"\\(?:['`^\"~=.]|[uvHckrdb](?![A-Za-z]))")


def biber_safe(ch: str, latex: str) -> bool:
    """biber turns `{\\=h}` into h + U+0304 in the .bbl, which pdflatex cannot typeset:
    keep an accent macro only when it denotes one precomposed character (this one)."""
    m = _ACCENTED.match(latex)
    if m is None:
        return _ANY_ACCENT.search(latex) is None
    mark = _ACCENTS.get(m.group(1))
    return mark is not None and unicodedata.normalize("NFC", m.group(2) + mark) == ch


def failing_lines(lines: list[str], preamble: str) -> set[int]:
    body = "\n".join(rf"\setbox0\hbox{{{line}}}" for line in lines)
    first_line = 4
    document = rf"""\documentclass{{article}}
{preamble}
\begin{{document}}
{body}
\end{{document}}
"""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "t.tex").write_text(document)
        subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-draftmode", "t.tex"],
            cwd=tmp, capture_output=True, timeout=600,
        )  # fmt: skip
        log = (Path(tmp) / "t.log").read_text(errors="replace")
    bad = set()
    for m in re.finditer(r"^! .*?\nl\.(\d+)", log, re.MULTILINE | re.DOTALL):
        bad.add(int(m.group(1)) - first_line)
    for m in re.finditer(r"Warning:[^\n]*(?:\n[^\n]*){0,3}?on input line (\d+)", log):
        bad.add(int(m.group(1)) - first_line)
    return bad


def main() -> int:
    table = candidates()
    good = {ch: latex for ch, latex in table.items() if biber_safe(ch, latex)}
    while True:  # a TeX error can surface a line late: repeat until a clean run
        chars = list(good)
        lines = [good[ch] for ch in chars]
        bad: set[int] = set()
        # biber decodes accent macros back to UTF-8 in the .bbl: the character itself must
        # typeset too (pdflatex's utf8 input encoding knows Ȩ as a macro, not as a character)
        raw = [ch if _ANY_ACCENT.search(good[ch]) else "x" for ch in chars]
        for preamble in (r"\usepackage[T1]{fontenc}",):
            for candidate in (lines, raw):
                bad |= {i for i in failing_lines(candidate, preamble) if 0 <= i < len(lines)}
        if not bad:
            break
        good = {ch: good[ch] for i, ch in enumerate(chars) if i not in bad}
    TARGET.write_text(json.dumps(good, ensure_ascii=False, indent=0, sort_keys=True) + "\n")
    print(f"{len(good)} of {len(table)} characters typeset; written to {TARGET}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
