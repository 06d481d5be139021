"""Outputs respect what they write to: a link stays a link, a device or FIFO is written
through and never replaced by a regular file, a directory or a path through a file is one
error line; stale temp files of ours are cleaned up."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from bib.atomic import STALE_AFTER_S, write_atomic

SEED = sorted((Path(__file__).resolve().parents[2] / "seeds").glob("*.txt"))[0]


def test_a_symlinked_output_keeps_the_link_and_replaces_its_target(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """Regression: `-o link.bib` replaced the link by a file and never wrote its target."""
    real, link = tmp_path / "real.bib", tmp_path / "link.bib"
    real.write_text("old\n")
    link.symlink_to(real)
    assert cli("convert", SEED, "-o", link).exit_code == 0
    assert link.is_symlink()
    assert real.read_text().startswith("@inproceedings")


def _device(tmp_path: Path, name: str, minor: int) -> Path:
    """A memory device of our own (`mknod`, root only): a test of code that would replace
    the device must never be able to replace the system's /dev/null or /dev/full."""
    if os.geteuid() != 0:
        pytest.skip("mknod needs root")
    path = tmp_path / name
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return path


def test_dev_full_stays_a_device_and_the_failure_is_one_line(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """Regression: `-o /dev/full` exited 0 and /dev/full became a 452-byte regular file."""
    full = _device(tmp_path, "full", 7)
    result = cli("convert", SEED, "-f", "bibtex", "-o", full)
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == "bib: error: no space left on device"
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_dev_null_stays_a_device(cli: Callable[..., Result], tmp_path: Path) -> None:
    """Regression: `-o /dev/null` replaced the device by a regular file."""
    null = _device(tmp_path, "null", 3)
    assert cli("convert", SEED, "-f", "bibtex", "-o", null).exit_code == 0
    assert stat.S_ISCHR(os.stat(null).st_mode)


@pytest.mark.parametrize("place", ["/proc/x.bib", "/sys/x.bib"])
def test_an_output_in_proc_or_sys_is_one_error_line(cli: Callable[..., Result], place: str) -> None:
    """Regression: `-o /proc/x.bib` and `-o /sys/x.bib` ended in a traceback."""
    if not Path(place).parent.is_dir():
        pytest.skip(f"no {Path(place).parent} here")
    result = cli("convert", SEED, "-o", place)
    assert result.exit_code in (1, 2)
    assert result.stderr.startswith("bib: error: ") and result.stderr.count("\n") == 1
    assert not Path(place).exists()


def test_a_fifo_reader_gets_the_whole_output(cli: Callable[..., Result], tmp_path: Path) -> None:
    """Regression: the FIFO was renamed over, and its reader got nothing."""
    fifo = tmp_path / "pipe.bib"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert cli("convert", SEED, "-o", fifo).exit_code == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received and received[0].count(b"\n@") + 1 >= 10


def test_a_path_through_a_file_is_one_error_line(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    afile = tmp_path / "existing.txt"
    afile.write_text("x")
    result = cli("convert", SEED, "-o", afile / "x.bib")
    assert result.exit_code == 2
    assert (
        result.stderr == f"bib: error: {afile / 'x.bib'}: a part of the path is not a directory\n"
    )


def test_write_atomic_follows_a_link(tmp_path: Path) -> None:
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("{}")
    link.symlink_to(real)
    write_atomic(link, "[]\n")
    assert link.is_symlink() and real.read_text() == "[]\n"


def test_stale_temp_files_of_a_killed_run_are_removed(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    """Regression: `kill -9` during a write left hidden `.X.tmp` files that no run removed."""
    out = tmp_path / "refs.bib"
    stale = tmp_path / ".refs.bib.abcd1234.tmp"
    fresh = tmp_path / ".refs.bib.wxyz5678.tmp"
    stale.write_text("half")
    fresh.write_text("another run, now")
    old = time.time() - STALE_AFTER_S - 10
    os.utime(stale, (old, old))
    assert cli("convert", SEED, "-o", out).exit_code == 0
    assert not stale.exists()
    assert fresh.exists()  # it may belong to a run still going
