"""The progress bar of long pulls and pushes: on a terminal only (a real pseudo-terminal
here), unstyled with NO_COLOR, absent when standard error is piped; retry notices show
while it runs."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from annotations import open_store
from bib.record import Record

pytestmark = pytest.mark.sqlite_only  # a terminal's behaviour, whatever holds the library
ROOT = Path(__file__).resolve().parents[2]
SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""Select Graphic Rendition: the escape sequences that style (colour, bold) text."""


@pytest.fixture
def long_library(seeded_library: Path) -> Path:
    """The seeds and 150 more papers: long enough for a bar (bib.cli.sync.LONG_RUN)."""
    extra = [
        Record(id=f"extra-{n}", key=f"extra{n}", title=f"Extra paper {n}", venue="ICML", year=2026)
        for n in range(150)
    ]
    with open_store(seeded_library) as store:
        store.upsert(extra)
    return seeded_library


def run_on_terminal(command: list[str], environ: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run with standard error on a pseudo-terminal (standard output piped)."""
    leader, follower = os.openpty()
    process = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    os.close(leader)
    out = process.stdout.read() if process.stdout else b""
    return process.wait(timeout=60), out, seen


def sync_command(server: Any, library: Path) -> list[str]:
    command = [sys.executable, "-m", "bib", "--library", str(library), "sync", "zotero"]
    return [*command, "--endpoint", server.url, "--timeout", "120"]


def environment(env: dict[str, str], **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return {**base, **env, "PYTHONPATH": str(ROOT), "COLUMNS": "100", **extra}


def test_a_long_push_shows_a_bar_on_a_terminal_and_retries_above_it(
    zotero_server, long_library, env
):
    zotero_server.faults.configure(latency=0.02, script=[None] * 6 + ["503"], retry_after="0")
    code, out, err = run_on_terminal(sync_command(zotero_server, long_library), environment(env))
    assert code == 0, err
    assert b"Pushing to Zotero" in err
    assert SGR.findall(err)  # styled, as a terminal may be (see the NO_COLOR test)
    assert b"Zotero: 503, retrying in 0 s (2/8)" in err
    assert b"created: 207 items" in out and b"Pushing" not in out


def test_a_long_pull_shows_a_bar_on_a_terminal(zotero_server, long_library, env):
    command = sync_command(zotero_server, long_library)
    subprocess.run(command, env=environment(env), capture_output=True, check=True, timeout=120)
    for item in list(zotero_server.top_items())[:120]:
        zotero_server.library.edit_item(item["key"], title=f"Edited {item['key']}")
    zotero_server.faults.configure(latency=0.02)
    code, out, err = run_on_terminal(command, environment(env))
    assert code == 0, err
    assert b"Pulling from Zotero" in err
    assert b"pulled: 120 updated" in out


def test_with_no_color_the_bar_has_no_styling(zotero_server, long_library, env):
    zotero_server.faults.configure(latency=0.02)
    command = sync_command(zotero_server, long_library)
    code, _, err = run_on_terminal(command, environment(env, NO_COLOR="1"))
    assert code == 0, err
    assert b"Pushing to Zotero" in err
    assert SGR.findall(err) == []


def test_no_bar_when_standard_error_is_piped(zotero_server, long_library, env):
    command = sync_command(zotero_server, long_library)
    done = subprocess.run(command, env=environment(env), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"Pushing" not in done.stderr and b"\x1b" not in done.stderr
