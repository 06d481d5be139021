"""The library file is private, readable where it cannot be written, and refused when newer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from annotations import open_store

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _bib(library: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bib", "--library", str(library), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_library_left_0644_is_made_private_when_opened(tmp_path: Path) -> None:
    library = tmp_path / "lib.sqlite"
    open_store(library).close()
    os.chmod(library, 0o644)
    open_store(library).close()
    assert library.stat().st_mode & 0o777 == 0o600


@pytest.fixture
def read_only_library(tmp_path: Path) -> Iterator[Path]:
    """A library with papers on a read-only bind mount (a real read-only file system)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a read-only bind mount needs root and mount(8)")
    source, view = tmp_path / "rw", tmp_path / "ro"
    source.mkdir()
    view.mkdir()
    assert _bib(source / "lib.sqlite", "add", str(SEEDS)).returncode == 0
    for args in (["--bind", str(source), str(view)], ["-o", "remount,ro,bind", str(view)]):
        if subprocess.run(["mount", *args], capture_output=True, check=False).returncode:
            subprocess.run(["umount", str(view)], capture_output=True, check=False)
            pytest.skip("this machine refuses bind mounts (no CAP_SYS_ADMIN)")
    yield view / "lib.sqlite"
    subprocess.run(["umount", str(view)], check=True)


def test_a_library_on_a_read_only_file_system_can_be_listed(read_only_library: Path) -> None:
    listed = _bib(read_only_library, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert '"key"' in listed.stdout


def test_a_write_to_a_read_only_library_is_one_line_and_exit_1(read_only_library: Path) -> None:
    key = _bib(read_only_library, "list", "--json").stdout.split('"key": "')[1].split('"')[0]
    result = _bib(read_only_library, "rate", key, "4")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("bib: error: ")


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_backup_onto_the_live_library_is_refused(tmp_path: Path, suffix: str) -> None:
    library = tmp_path / "lib.sqlite"
    assert _bib(library, "add", str(SEEDS)).returncode == 0
    before = library.read_bytes()
    result = _bib(library, "backup", f"{library}{suffix}")
    assert result.returncode == 2
    assert result.stderr.startswith("bib: error: ") and result.stderr.count("\n") == 1
    assert library.read_bytes() == before


def test_backup_through_a_link_to_the_live_library_is_refused(tmp_path: Path) -> None:
    library = tmp_path / "lib.sqlite"
    assert _bib(library, "add", str(SEEDS)).returncode == 0
    (tmp_path / "link.sqlite").symlink_to(library)
    assert _bib(library, "backup", str(tmp_path / "link.sqlite")).returncode == 2


def test_backup_onto_a_symlink_keeps_the_link_and_writes_its_target(tmp_path: Path) -> None:
    """Regression: `bib backup link.sqlite` replaced the link by a file; its target was never
    written."""
    library = tmp_path / "lib.sqlite"
    assert _bib(library, "add", str(SEEDS)).returncode == 0
    real, link = tmp_path / "real.sqlite", tmp_path / "link.sqlite"
    real.write_bytes(b"")
    link.symlink_to(real)
    result = _bib(library, "backup", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert real.read_bytes().startswith(b"SQLite format 3")
