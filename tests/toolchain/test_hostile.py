"""Hostile input (tests/data/hostile/, plus huge inputs generated here) through `bib convert`
and, when it converts, through pdflatex + BibTeX/biber with shell escape ENABLED.

Each input either converts into exactly the records it holds, whose compiled PDF shows the
hostile text literally (and nothing it asked TeX to do happened), or fails with one line
`bib: error: FILE[:LINE]: ...` and exit status 2, leaving no output file behind. Nothing
crashes (no traceback) or hangs (every process has a timeout).
"""

from __future__ import annotations

import json
import random
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


@dataclass(frozen=True)
class Case:
    outcome: str  # "records": must convert; "error": must fail with exit 2; "either"
    records: int = 0
    title: tuple[str, ...] = ()  # literal text every PDF shows (titles are always printed)
    abstract: tuple[str, ...] = ()  # literal text the biblatex PDF shows (it prints abstracts)
    keys_absent: tuple[str, ...] = ()
    error_line: int | None = None


CASES = {
    "brace-injection.txt": Case(
        "records",
        2,
        title=("x}, title = {PWNED}} @misc{evil, title={evil}}", 'title = "PWNED2", note = "'),
        abstract=(
            "}}}} @inproceedings{evil2, title = {EVIL2}, year = 2011} then opens {{{{",
            "@comment{evil3, title={EVIL3}}",
            '@string{pwned = "PWNED3"}',
        ),
        keys_absent=("evil", "evil2", "evil3"),
    ),
    "tex-input.txt": Case(
        "records",
        1,
        title=("\\input{/etc/passwd}", "\\include{/etc/hostname}"),
        abstract=(
            "\\openin5=/etc/passwd \\read5 to \\x",
            "\\cite{nonexistent2012}",
            "\\end{document}",
        ),
    ),
    "write18.txt": Case(
        "records",
        1,
        title=("\\write18{touch pwned-by-write18}",),
        abstract=(
            "\\immediate\\write18{touch pwned-immediate}",
            "\\ShellEscape{touch pwned-shellesc}",
        ),
    ),
    "catcode.txt": Case(
        "records",
        1,
        title=("\\catcode 37=11 \\makeatletter \\def\\x{y}",),
        abstract=("\\let\\relax\\undefined \\def\\par{}", "\\csname end\\endcsname", "^^41 ^^5c"),
    ),
    "percent-hash.txt": Case(
        "records",
        1,
        title=("50% of ## Hashes #1 Are %% Comments at 100%",),
        abstract=("%start of the abstract % in the middle #1 ##2 ### and 100% at the end%",),
    ),
    "backslashes.txt": Case(
        "records",
        1,
        title=("Lone \\ Backslashes in C:\\new\\table and a Trailing \\",),
        abstract=("a path C:\\new\\table\\x, an escape-lookalike \\u00e9 and \\n\\t",),
    ),
    "rtl.txt": Case("records", 1, title=("Right-to-Left:", "evil.exe")),
    "control-chars.txt": Case("either", 1),
    "nul-bytes.txt": Case("either", 1),
    "empty.txt": Case("error"),
    "invalid-utf8.txt": Case("error", error_line=4),
    "binary.txt": Case("error"),
}

FORMATS = {
    "bibtex": ".bib",
    "bibtex-ascii": ".bib",
    "biblatex": ".biblatex.bib",
    "csl-json": ".json",
}
RUNS = (
    # one process writes several outputs (format from the -o suffix); --ascii needs its own
    ((), ("bibtex", "biblatex", "csl-json")),
    (("--ascii", "-f", "bibtex"), ("bibtex-ascii",)),
)
SENTINEL = '["an existing file that a failed conversion must leave alone"]\n'


def may_fail(name: str) -> bool:
    return CASES[name].outcome != "records"


def convert_hostile(tc: ModuleType, out: Path) -> dict[str, Any]:
    """Every hostile file into every format, each format into its own directory."""
    for fmt in FORMATS:
        (out / fmt).mkdir()
    results: dict[str, Any] = {}
    for name in CASES:
        source = tc.HOSTILE / name
        for args, formats in RUNS:
            before = {fmt: {p.name for p in (out / fmt).iterdir()} for fmt in formats}
            targets = {fmt: out / fmt / f"{source.stem}{FORMATS[fmt]}" for fmt in formats}
            outputs = [arg for fmt in formats for arg in ("-o", targets[fmt])]
            result = tc.run_bib("convert", source, *args, *outputs, cwd=out, timeout=120)
            for fmt in formats:
                left = {p.name for p in (out / fmt).iterdir()} - before[fmt]
                results[f"{name}:{fmt}"] = result | {
                    "exists": targets[fmt].exists(),
                    "new_files": sorted(left - {targets[fmt].name}),
                }
        if may_fail(name):
            existing = out / "existing" / f"{source.stem}.json"
            existing.parent.mkdir(exist_ok=True)
            existing.write_text(SENTINEL, encoding="utf-8")
            result = tc.run_bib("convert", source, "-f", "csl-json", "-o", existing, cwd=out)
            results[f"{name}:existing"] = result | {"after": existing.read_text("utf-8")}
    return results


@pytest.fixture(scope="session")
def hostile(tc: ModuleType, builds: Any) -> Any:
    return builds.get("hostile", lambda out: convert_hostile(tc, out))


def outcome(hostile: Any, name: str, fmt: str) -> dict[str, Any]:
    return hostile.data[f"{name}:{fmt}"]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [(n, f) for n in CASES for f in [*FORMATS, "existing"] if f != "existing" or may_fail(n)],
)
def test_hostile_input_neither_crashes_nor_hangs(hostile: Any, name: str, fmt: str) -> None:
    result = outcome(hostile, name, fmt)
    assert result["rc"] is not None, "timed out"
    assert "Traceback" not in result["stderr"]
    assert result["rc"] in (0, 2), result["stderr"]


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_input_converts_or_fails_as_it_should(hostile: Any, name: str) -> None:
    runs = [*FORMATS, "existing"] if may_fail(name) else list(FORMATS)
    codes = {outcome(hostile, name, fmt)["rc"] for fmt in runs}
    expected = {"records": {0}, "error": {2}, "either": {0, 2}}[CASES[name].outcome]
    assert len(codes) == 1 and codes <= expected, {
        fmt: outcome(hostile, name, fmt)["stderr"][-500:] for fmt in FORMATS
    }


@pytest.mark.parametrize("name", [n for n in CASES if may_fail(n)])
def test_error_is_one_line_naming_the_file(tc: ModuleType, hostile: Any, name: str) -> None:
    path = tc.HOSTILE / name
    for fmt in FORMATS:
        result = outcome(hostile, name, fmt)
        if result["rc"] != 2:
            continue
        lines = result["stderr"].splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"bib: error: {path}"), lines[0]
        line = CASES[name].error_line
        if line is not None:
            assert lines[0].startswith(f"bib: error: {path}:{line}: "), lines[0]


@pytest.mark.parametrize("name", [n for n in CASES if may_fail(n)])
def test_error_leaves_no_output_and_no_temporary_file(hostile: Any, name: str) -> None:
    for fmt in FORMATS:
        result = outcome(hostile, name, fmt)
        if result["rc"] == 2:
            assert not result["exists"], fmt
            assert result["new_files"] == [], fmt


@pytest.mark.parametrize("name", [n for n in CASES if may_fail(n)])
def test_error_leaves_existing_output_unchanged(hostile: Any, name: str) -> None:
    result = outcome(hostile, name, "existing")
    if result["rc"] == 2:
        assert result["after"] == SENTINEL


def converted_names(hostile: Any) -> list[str]:
    return [name for name in CASES if outcome(hostile, name, "csl-json")["rc"] == 0]


def hostile_items(hostile: Any) -> dict[str, list[dict[str, Any]]]:
    return {
        name: json.loads((hostile.dir / "csl-json" / f"{Path(name).stem}.json").read_text("utf-8"))
        for name in converted_names(hostile)
    }


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.outcome != "error"])
def test_converted_hostile_input_has_exactly_its_records(hostile: Any, name: str) -> None:
    if name not in converted_names(hostile):
        pytest.skip(f"{name} was rejected with a clear error, which is allowed")
    items = hostile_items(hostile)[name]
    assert len(items) == CASES[name].records
    assert not {item["id"] for item in items} & set(CASES[name].keys_absent)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_outputs_hold_no_control_characters(hostile: Any, fmt: str) -> None:
    """TeX rejects most C0/C1 controls ("invalid character"); CSL consumers print garbage."""
    bad = {}
    for name in converted_names(hostile):
        text = (hostile.dir / fmt / f"{Path(name).stem}{FORMATS[fmt]}").read_text("utf-8")
        if fmt == "csl-json":
            text = json.dumps(json.loads(text), ensure_ascii=False, indent=None)
        found = {c for c in text if unicodedata.category(c) == "Cc" and c not in "\n"}
        if found:
            bad[name] = sorted(map(hex, map(ord, found)))
    assert bad == {}


# --- the converted hostile records, compiled with shell escape enabled -------------------

DOCUMENTS = {"bibtex": "bibtex", "bibtex-ascii": "bibtex", "biblatex": "biber"}


@pytest.fixture(scope="session", params=list(DOCUMENTS))
def hostile_document(
    request: pytest.FixtureRequest, tc: ModuleType, builds: Any, hostile: Any
) -> Any:
    fmt = request.param
    backend = DOCUMENTS[fmt]
    request.getfixturevalue("latex_tools" if backend == "bibtex" else "biber_tools")
    bibs = [hostile.dir / fmt / f"{Path(n).stem}{FORMATS[fmt]}" for n in converted_names(hostile)]
    return tc.compile_build(
        builds,
        f"hostile-{fmt}",
        bibs,
        backend,
        declare_unicode=fmt != "bibtex-ascii",
        shell_escape=True,
    )


@pytest.mark.toolchain
def test_hostile_backend_exits_zero_without_error(hostile_document: Any) -> None:
    assert hostile_document.step("backend")["rc"] == 0, hostile_document.step("backend")["stdout"]
    assert hostile_document.blg_errors() == []


@pytest.mark.toolchain
def test_hostile_backend_has_no_warning_about_our_entries(
    hostile_document: Any, hostile: Any
) -> None:
    items = [item for items in hostile_items(hostile).values() for item in items]
    authorless = [item["id"] for item in items if not item.get("author")]
    assert hostile_document.blg_warnings(authorless) == []


@pytest.mark.toolchain
def test_hostile_document_compiles_cleanly(hostile_document: Any) -> None:
    assert hostile_document.log_problems() == []


@pytest.mark.toolchain
def test_hostile_bbl_holds_exactly_the_records_written(hostile_document: Any, hostile: Any) -> None:
    written = Counter(item["id"] for items in hostile_items(hostile).values() for item in items)
    assert Counter(hostile_document.bbl_keys()) == written


@pytest.mark.toolchain
def test_shell_escape_payloads_did_not_run(hostile_document: Any) -> None:
    assert sorted(p.name for p in hostile_document.build.dir.glob("pwned*")) == []


@pytest.mark.toolchain
def test_input_payload_did_not_read_etc_passwd(hostile_document: Any) -> None:
    assert "root:x:0:0" not in hostile_document.pdf_text


@pytest.mark.toolchain
@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.title or c.abstract])
def test_pdf_shows_hostile_text_literally(tc: ModuleType, hostile_document: Any, name: str) -> None:
    """Whitespace, hyphens (pdftotext joins hyphenated lines) and case (plainnat lowercases
    titles) aside, every character of the hostile text is in the PDF."""
    case = CASES[name]
    fragments = case.title + (case.abstract if hostile_document.backend == "biber" else ())
    text = literal(tc, hostile_document.pdf_text)
    assert [f for f in fragments if literal(tc, f) not in text] == []


def literal(tc: ModuleType, text: str) -> str:
    return tc.squeeze(text).casefold()


# --- huge inputs, generated at test time -------------------------------------------------

COUNT_BST = r"""ENTRY { title } {} {}
FUNCTION {default.type} {}
FUNCTION {inproceedings} {}
READ
FUNCTION {output.entry} { "\bibitem{" cite$ * "}" * write$ newline$ }
ITERATE {output.entry}
"""
"""A BibTeX style that only lists the entries BibTeX read: its count is BibTeX's own."""

HUGE_TIMEOUT = 240
"""Seconds for converting 10 MB or 100,000 entries into CSL-JSON and BibTeX in one run."""

WORDS = [
    "sparse",
    "mixture",
    "expert",
    "routing",
    "token",
    "budget",
    "attention",
    "layer",
    "gradient",
    "kernel",
]


def bibtex_entries(tc: ModuleType, bib: Path, out: Path) -> tuple[dict[str, Any], list[str]]:
    """Run the real bibtex on BIB with COUNT_BST; return its result and the keys it read."""
    (out / "count.bst").write_text(COUNT_BST, encoding="ascii")
    (out / "count.aux").write_text(
        f"\\citation{{*}}\n\\bibstyle{{count}}\n\\bibdata{{{bib.stem}}}\n", encoding="ascii"
    )
    # BibTeX's default string pool holds ~100,000 strings; raise it as texmf.cnf would.
    result = tc.run(["env", "max_strings=2000000", "bibtex", "-terse", "count"], out)
    keys = (out / "count.bbl").read_text("utf-8", errors="replace").split("\n")
    return result, [k[len("\\bibitem{") : -1] for k in keys if k.startswith("\\bibitem{")]


@pytest.fixture(scope="session")
def huge(tc: ModuleType, builds: Any) -> Callable[[str], Any]:
    def build(kind: str, out: Path) -> dict[str, Any]:
        rng = random.Random(2026)
        if kind == "paragraph":
            body = " ".join(rng.choice(WORDS) for _ in range(1_400_000))[: 10 * 1024 * 1024]
            text = f"ICML 2021 Papers\n\n{body.rstrip()}\n"
        else:
            text = "ICML 2022 Papers\n\n" + "\n\n".join(
                f"Tiny abstract {n} on {rng.choice(WORDS)} {rng.choice(WORDS)}."
                for n in range(100_000)
            )
        source = out / f"{kind}.txt"
        source.write_text(text, encoding="utf-8")
        outputs = ("-o", out / "out.json", "-o", out / "out.bib")
        return tc.run_bib("convert", source, *outputs, cwd=out, timeout=HUGE_TIMEOUT)

    return lambda kind: builds.get(f"huge-{kind}", lambda out: build(kind, out))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["paragraph", "entries"])
def test_huge_input_converts_in_bounded_time(huge: Callable[[str], Any], kind: str):
    result = huge(kind).data
    assert result["rc"] is not None, f"bib convert took longer than {HUGE_TIMEOUT} s"
    assert result["rc"] == 0, result["stderr"][-1000:]


@pytest.mark.slow
def test_ten_megabyte_paragraph_is_one_record_with_every_word(huge: Callable[[str], Any]):
    build = huge("paragraph")
    items = json.loads(build.text("out.json"))
    source = build.text("paragraph.txt").split("\n", 2)[2]
    assert len(items) == 1
    assert items[0]["abstract"].split() == source.split()


@pytest.mark.slow
def test_hundred_thousand_entries_are_hundred_thousand_records(huge: Callable[[str], Any]):
    items = json.loads(huge("entries").text("out.json"))
    assert len(items) == 100_000
    assert len({item["id"] for item in items}) == 100_000


@pytest.mark.slow
@pytest.mark.toolchain
@pytest.mark.parametrize("kind", ["paragraph", "entries"])
def test_bibtex_reads_every_huge_entry(
    latex_tools: None, tc: ModuleType, huge: Callable[[str], Any], kind: str
) -> None:
    build = huge(kind)
    ids = [item["id"] for item in json.loads(build.text("out.json"))]
    result, keys = bibtex_entries(tc, build.path("out.bib"), build.dir)
    assert result["rc"] == 0, result["stdout"][-2000:]
    assert Counter(keys) == Counter(ids)
