"""Every command that reads or writes, through every failure that applies to it.

Each case runs one command against one failure and asserts the contract of
docs/hardening.md: exit 2 for bad input or usage, 1 for an operation that failed; exactly
one `bib: error:` line on standard error; no traceback; nothing half-written (every file of
the test's home directory unchanged, no file added: no temp file left behind).

The failures are real where the machine allows: a full disk is a small tmpfs filled to the
last byte (root only; `/dev/full` otherwise), a read-only file system a read-only bind
mount (root only), a permission error a directory without write permission (skipped as
root, who is not refused), a broken pipe a standard output whose reader has gone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from bib.cli import main

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "seeds" / "000_465737449dbd50b8.txt"
KEY = "usmoe2026"
BAD_INPUT, FAILED = 2, 1


@dataclass(frozen=True)
class Case:
    """One command against one failure. `{place}` in the arguments is the directory the
    failure lives in (a full disk, a read-only mount, ...); other paths are relative to the
    test's home directory."""

    id: str
    args: tuple[str, ...]
    status: int
    stdin: bytes | None = None
    env: dict[str, str] = field(default_factory=dict)


def _case(id: str, status: int, *args: str, **extra: object) -> Case:
    return Case(id, args, status, **extra)  # type: ignore[arg-type]


# Commands that write a file, with `{out}` where the file goes.
WRITERS = {
    "convert": ("convert", "list.txt", "-o", "{out}.bib"),
    "export": ("export", "-o", "{out}.bib"),
    "notes-export-json": ("notes", "export", "-f", "json", "{out}.json"),
    "notes-export-markdown": ("notes", "export", "-f", "markdown", "{out}"),
    "backup": ("backup", "{out}.sqlite"),
    "library-copy": ("library", "copy", "library.sqlite", "{out}.sqlite"),
}

# Commands that write the library, run on a library in `{lib}`.
LIBRARY_WRITERS = {
    "add": ("add", str(ROOT / "seeds")),
    "note-add": ("note", "add", KEY, "x" * 20_000),
    "tag": ("tag", KEY, "+liquid"),
    "rekey": ("rekey", KEY, "renamed2026"),
    "rate": ("rate", KEY, "4"),
    "set": ("set", KEY, "note=" + "y" * 20_000),
}


def _fill(args: tuple[str, ...], **names: str) -> tuple[str, ...]:
    return tuple(arg.format(**names) if "{" in arg else arg for arg in args)


def _writer_cases(failure: str, place: str, status: int) -> list[Case]:
    return [
        _case(f"{failure}-{name}", status, *_fill(args, out=f"{place}/out"))
        for name, args in WRITERS.items()
    ]


def _library_cases(failure: str, library: str, status: int) -> list[Case]:
    return [
        _case(f"{failure}-library-{name}", status, "--library", library, *args)
        for name, args in LIBRARY_WRITERS.items()
    ]


DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE_INTEGER = b'[{"id": "a", "type": "book", "volume": ' + b"9" * 4301 + b"}]"
NOT_UTF8 = b"a\xff"

INPUT_CASES = [
    # ENOENT: an input that is not there
    _case("enoent-convert", BAD_INPUT, "convert", "missing.bib"),
    _case("enoent-add", BAD_INPUT, "add", "missing.bib"),
    _case("enoent-notes-import", BAD_INPUT, "notes", "import", "missing.json"),
    _case("enoent-library-copy", BAD_INPUT, "library", "copy", "missing.sqlite", "new.sqlite"),
    _case("enoent-attach", BAD_INPUT, "attach", KEY, "missing.pdf"),
    # ENOTDIR: a path through a regular file
    *_writer_cases("enotdir", "file.txt", BAD_INPUT),
    *(
        _case(f"enotdir-library-{name}", BAD_INPUT, "--library", "file.txt/lib.sqlite", *args)
        for name, args in {**LIBRARY_WRITERS, "list": ("list",)}.items()
    ),
    # EEXIST: a file where a directory must be, a destination that holds a library already
    _case(
        "eexist-notes-export-markdown", BAD_INPUT, "notes", "export", "-f", "markdown", "file.txt"
    ),
    _case("eexist-library-copy", FAILED, "library", "copy", "library.sqlite", "other.sqlite"),
    # UnicodeError: bytes that are not UTF-8, on standard input and in files
    _case("unicode-note-add-stdin", BAD_INPUT, "note", "add", KEY, "-", stdin=NOT_UTF8),
    _case("unicode-convert-stdin", BAD_INPUT, "convert", "-", stdin=NOT_UTF8),
    _case("unicode-add-stdin", BAD_INPUT, "add", "-", stdin=NOT_UTF8),
    _case("unicode-notes-import-stdin", BAD_INPUT, "notes", "import", "-", stdin=NOT_UTF8),
    _case("unicode-convert-file", BAD_INPUT, "convert", "bad.txt"),
    _case("unicode-notes-import-file", BAD_INPUT, "notes", "import", "bad.json"),
    # RecursionError: 100,000-deep JSON
    _case("recursion-convert", BAD_INPUT, "convert", "deep.json"),
    _case("recursion-convert-stdin", BAD_INPUT, "convert", "-", stdin=DEEP),
    _case("recursion-add", BAD_INPUT, "add", "deep.json"),
    _case("recursion-notes-import", BAD_INPUT, "notes", "import", "deep.json"),
    # ValueError: an integer of 4,301 digits (past Python's int-from-string limit)
    _case("valueerror-convert", BAD_INPUT, "convert", "big.json"),
    _case("valueerror-add", BAD_INPUT, "add", "big.json"),
    _case("valueerror-notes-import", BAD_INPUT, "notes", "import", "big.json"),
    # Invalid URLs
    _case("url-sync-endpoint", BAD_INPUT, "sync", "zotero", "--endpoint", "http://[::1"),
    _case(
        "url-resolve-source", BAD_INPUT, "resolve", KEY, env={"BIB_OPENREVIEW_URL": "http://[::1"}
    ),
    _case(
        "url-convert-resolve",
        BAD_INPUT,
        "convert",
        "list.txt",
        "--resolve",
        env={"BIB_OPENREVIEW_URL": "http://[::1"},
    ),
    _case("url-library", BAD_INPUT, "--library", "postgresql://[::1", "list"),
    # An operation that cannot be done offline
    _case("offline-resolve", FAILED, "resolve", "--offline", KEY),
    # An editor that fails, or is not there
    _case("editor-edit", FAILED, "edit", KEY, env={"EDITOR": "false"}),
    _case("editor-note-add", FAILED, "note", "add", KEY, env={"EDITOR": "false"}),
    _case("editor-note-edit", FAILED, "note", "edit", "1", env={"EDITOR": "false"}),
    _case("editor-missing", BAD_INPUT, "note", "add", KEY, env={"EDITOR": "/nonexistent/editor"}),
]

# ENOSPC without a tmpfs: a device that is always full (written through, never replaced)
DEVICE_CASES = [
    _case(f"devfull-{name}", FAILED, *args)
    for name, args in {
        "convert": ("convert", "list.txt", "-f", "bibtex", "-o", "{place}"),
        "export": ("export", "-f", "bibtex", "-o", "{place}"),
        "notes-export": ("notes", "export", "-f", "json", "{place}"),
        "backup": ("backup", "{place}"),
    }.items()
]

FULL_DISK_CASES = [
    *_writer_cases("enospc", "{place}", FAILED),
    *_library_cases("enospc", "{place}/lib.sqlite", FAILED),
]
READ_ONLY_CASES = [
    *_writer_cases("erofs", "{place}", BAD_INPUT),
    *_library_cases("erofs", "{place}/lib.sqlite", FAILED),
]
NO_PERMISSION_CASES = [
    *_writer_cases("eacces", "{place}", BAD_INPUT),
    *_library_cases("eacces", "{place}/lib.sqlite", FAILED),
]
PIPE_CASES = [
    _case("epipe-convert", FAILED, "convert", "list.txt"),
    _case("epipe-export", FAILED, "export"),
    _case("epipe-list", FAILED, "list"),
    _case("epipe-show", FAILED, "show", KEY, "--json"),
    _case("epipe-notes-export", FAILED, "notes", "export", "-f", "json", "-"),
    _case("epipe-tags", FAILED, "tags", "list.txt"),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home directory: a library with one paper list and a note, an existing output, and
    the hostile inputs."""
    home = tmp_path_factory.mktemp("home")
    library = home / "library.sqlite"
    runner = CliRunner()
    for args in (["add", str(SEED)], ["note", "add", KEY, "a note"]):
        result = runner.invoke(main, ["--library", str(library), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    shutil.copy(library, home / "other.sqlite")
    shutil.copy(SEED, home / "list.txt")
    (home / "file.txt").write_text("a regular file\n")
    (home / "out.bib").write_text("@misc{kept, title = {Kept}}\n")
    (home / "bad.txt").write_bytes(b"ICML 2026\n\nGood.\n\nBad caf\xe9.\n")
    (home / "bad.json").write_bytes(b'{"notes": "caf\xe9"}')
    (home / "deep.json").write_bytes(DEEP)
    (home / "big.json").write_bytes(HUGE_INTEGER)
    for leftover in home.glob("library.sqlite-*"):
        leftover.unlink()
    return home


@pytest.fixture
def home(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    shutil.copytree(template, home)
    monkeypatch.chdir(home)
    monkeypatch.setenv("BIB_LIBRARY", str(home / "library.sqlite"))
    monkeypatch.setenv("BIB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("BIB_DEBUG", raising=False)
    for name in ("ZOTERO_API_KEY", "ZOTERO_LIBRARY_ID", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    return home


def _snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file under `root` with its bytes (None for directories); a library's -wal and
    -shm come and go with every open, so they are left out."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        name = str(path.relative_to(root))
        if name.endswith(("-wal", "-shm")):
            continue
        found[name] = None if path.is_dir() or not path.is_file() else path.read_bytes()
    return found


def _run(case: Case, place: Path | None, monkeypatch: pytest.MonkeyPatch) -> Result:
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    args = [arg.replace("{place}", str(place)) for arg in case.args]
    return CliRunner().invoke(main, args, input=case.stdin, catch_exceptions=False)


def _assert_one_error(stderr: str, status: int, expected: int) -> None:
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("bib: error: ")]
    assert len(errors) == 1, stderr
    assert status == expected, stderr


def _check(case: Case, home: Path, place: Path | None, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _snapshot(home)
    result = _run(case, place, monkeypatch)
    _assert_one_error(result.stderr, result.exit_code, case.status)
    assert _snapshot(home) == before, "a file was changed, added or left behind"


@pytest.mark.parametrize("case", INPUT_CASES, ids=lambda case: case.id)
def test_failure_is_one_line_with_its_status_and_nothing_written(
    case: Case, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(case, home, None, monkeypatch)


def _require_root(what: str) -> None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip(f"{what} needs root and mount(8) (without them: the /dev/full cases)")


@contextlib.contextmanager
def _mounted(args: list[str], target: Path) -> Iterator[None]:
    done = subprocess.run(["mount", *args, str(target)], capture_output=True, check=False)
    if done.returncode:
        pytest.skip(f"this machine refuses mounts (no CAP_SYS_ADMIN): {done.stderr.decode()}")
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


def _fill_up(directory: Path) -> None:
    """Write until the file system says ENOSPC: not one byte is left."""
    with (directory / "filler").open("wb", buffering=0) as filler:
        chunk = b"\0" * 4096
        with contextlib.suppress(OSError):
            while True:
                filler.write(chunk)
        with contextlib.suppress(OSError):
            while True:
                filler.write(b"\0")


@pytest.fixture
def full_device(home: Path) -> Path:
    """A full device: our own (`mknod` as root), so that a regression can never turn the
    system's /dev/full into a file; /dev/full itself otherwise (a user cannot replace it)."""
    if os.geteuid() != 0:
        return Path("/dev/full")
    device = home.parent / "full"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    return device


@pytest.mark.parametrize("case", DEVICE_CASES, ids=lambda case: case.id)
def test_a_full_device_is_one_line_exit_1_and_stays_a_device(
    case: Case, home: Path, full_device: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(case, home, full_device, monkeypatch)
    assert stat.S_ISCHR(os.stat(full_device).st_mode)


@pytest.fixture
def full_disk(home: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs holding a copy of the library, then filled to the last byte."""
    _require_root("a full tmpfs")
    place = home.parent / "full"
    place.mkdir()
    with _mounted(["-t", "tmpfs", "-o", "size=1m", "tmpfs"], place):
        shutil.copy(home / "library.sqlite", place / "lib.sqlite")
        _fill_up(place)
        try:
            (place / "probe").write_bytes(b"x" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
        yield place


@pytest.mark.parametrize("case", FULL_DISK_CASES, ids=lambda case: case.id)
def test_full_disk_is_one_line_exit_1_and_nothing_written(
    case: Case, home: Path, full_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _snapshot(full_disk)
    _check(case, home, full_disk, monkeypatch)
    assert _snapshot(full_disk) == before


@pytest.fixture
def read_only(home: Path) -> Iterator[Path]:
    """A read-only bind mount of a directory holding a copy of the library."""
    _require_root("a read-only bind mount")
    source, place = home.parent / "rw", home.parent / "ro"
    source.mkdir()
    place.mkdir()
    shutil.copy(home / "library.sqlite", source / "lib.sqlite")
    with _mounted(["--bind", str(source)], place):
        done = subprocess.run(
            ["mount", "-o", "remount,ro,bind", str(place)], capture_output=True, check=False
        )
        if done.returncode:
            pytest.skip("this machine refuses read-only remounts")
        yield place


@pytest.mark.parametrize("case", READ_ONLY_CASES, ids=lambda case: case.id)
def test_read_only_file_system_is_one_line_and_nothing_written(
    case: Case, home: Path, read_only: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _snapshot(read_only)
    _check(case, home, read_only, monkeypatch)
    assert _snapshot(read_only) == before


@pytest.fixture
def no_permission(home: Path) -> Iterator[Path]:
    """A directory its owner may not write to (holding a copy of the library)."""
    if os.geteuid() == 0:
        pytest.skip("root writes to a directory without write permission (EROFS covers it)")
    place = home.parent / "locked"
    place.mkdir()
    shutil.copy(home / "library.sqlite", place / "lib.sqlite")
    place.chmod(0o555)
    (place / "lib.sqlite").chmod(0o444)
    yield place
    place.chmod(0o755)


@pytest.mark.parametrize("case", NO_PERMISSION_CASES, ids=lambda case: case.id)
def test_permission_denied_is_one_line_and_nothing_written(
    case: Case, home: Path, no_permission: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _snapshot(no_permission)
    _check(case, home, no_permission, monkeypatch)
    assert _snapshot(no_permission) == before


def _run_into_closed_pipe(case: Case, home: Path) -> subprocess.CompletedProcess[bytes]:
    """The command as a real process whose standard output's reader has already gone."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "bib", *case.args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=home,
            env=env,
            check=False,
            timeout=300,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("case", PIPE_CASES, ids=lambda case: case.id)
def test_broken_pipe_is_one_line_exit_1(case: Case, home: Path) -> None:
    before = _snapshot(home)
    done = _run_into_closed_pipe(case, home)
    _assert_one_error(done.stderr.decode(), done.returncode, case.status)
    assert _snapshot(home) == before


def test_every_command_that_reads_or_writes_is_walked() -> None:
    """The table covers every command that touches a file, the library or the network."""
    walked = {
        case.args[case.args.index("--library") + 2] if "--library" in case.args else case.args[0]
        for case in [*INPUT_CASES, *DEVICE_CASES, *FULL_DISK_CASES, *READ_ONLY_CASES, *PIPE_CASES]
    }
    expected = {"convert", "add", "export", "notes", "backup", "edit", "note", "tag", "rekey"}
    expected |= {"sync", "resolve", "library", "attach", "list", "show", "tags", "rate", "set"}
    assert expected <= walked


def test_notes_import_of_non_utf8_standard_input_names_the_byte(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: it was read leniently and then reported as "not valid JSON"."""
    case = _case("unicode-notes-import-stdin", BAD_INPUT, "notes", "import", "-", stdin=NOT_UTF8)
    result = _run(case, None, monkeypatch)
    assert result.stderr == "bib: error: <stdin>: not UTF-8 text: byte 0xff at offset 1\n"
