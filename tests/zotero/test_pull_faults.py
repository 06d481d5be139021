"""The pull under faults and a kill: the same final state, no duplicate, no lost note."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from annotations import open_store

ROOT = Path(__file__).resolve().parents[2]


def sync_args(server: Any, *extra: str) -> list[str]:
    return ["sync", "zotero", "--endpoint", server.url, "--timeout", "120", *extra]


def edit_in_zotero(server: Any, count: int) -> dict[str, str]:
    """Retitle `count` papers and give each a new child note; returns cite -> new title."""
    lib = server.library
    titles = {}
    for item in sorted(server.top_items(), key=lambda i: i["key"])[:count]:
        titles[item["citationKey"]] = f"Edited {item['key']}"
        lib.edit_item(item["key"], title=titles[item["citationKey"]])
        with lib.lock:
            note = {"itemType": "note", "note": f"<p>remote {item['key']}</p>"}
            lib.write_items([{**note, "parentItem": item["key"]}], None, server.url)
    return titles


def local_state(path: Path) -> tuple[dict[str, str], list[str]]:
    with open_store(path) as store:
        titles = {e.record.key: e.record.title for e in store.entries()}
        notes = sorted(n.body for n in store.notes())
    return titles, notes


def assert_pulled(path: Path, titles: dict[str, str]) -> None:
    have, notes = local_state(path)
    assert {k: have[k] for k in titles} == titles
    remote_notes = [n for n in notes if n.startswith("remote ")]
    assert len(remote_notes) == len(set(remote_notes)) == len(titles)


def test_twenty_percent_faults_on_the_pull_end_in_the_right_state(
    cli, zotero_server, seeded_library, env
):
    assert cli(*sync_args(zotero_server)).exit_code == 0
    titles = edit_in_zotero(zotero_server, 10)
    zotero_server.faults.configure(
        rate=0.2, seed=3, kinds=("429", "503", "500", "drop"), retry_after="0.05"
    )
    result = cli(*sync_args(zotero_server))
    assert result.exit_code == 0, result.output
    faults = {e.fault for e in zotero_server.log.entries if e.fault}
    assert faults, "the seed must inject at least one fault"
    assert "retrying" in result.stderr
    assert_pulled(seeded_library, titles)
    zotero_server.faults.configure(rate=0.0)
    zotero_server.log.clear()
    assert cli(*sync_args(zotero_server)).exit_code == 0
    assert zotero_server.log.writes() == []
    assert_pulled(seeded_library, titles)


def test_pull_killed_with_sigkill_and_run_again_gives_the_same_state(
    zotero_server, seeded_library, env
):
    environ = {**os.environ, **env, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "bib", "--library", str(seeded_library)]
    command += sync_args(zotero_server)
    subprocess.run(command, env=environ, capture_output=True, check=True, timeout=120)
    titles = edit_in_zotero(zotero_server, 12)
    zotero_server.log.clear()
    zotero_server.faults.configure(latency=0.3)
    process = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while zotero_server.log.count("GET", "/items") < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.4)  # the changed items are arriving: part of the pull may be applied
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    zotero_server.faults.configure(latency=0.0)
    rerun = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert_pulled(seeded_library, titles)
    again = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0
    assert_pulled(seeded_library, titles)


def test_twenty_percent_faults_on_a_run_that_pulls_and_pushes_end_in_the_right_state(
    cli, zotero_server, seeded_library, env
):
    assert cli(*sync_args(zotero_server)).exit_code == 0
    titles = edit_in_zotero(zotero_server, 8)
    with open_store(seeded_library) as store:
        untouched = sorted(set(store.pinned_keys().values()) - set(titles))[:8]
        for key in untouched:
            store.tag(key, ["faulty"], [])
            store.add_note(key, f"local note on {key}")
    zotero_server.faults.configure(
        rate=0.2, seed=11, kinds=("429", "503", "500", "drop"), retry_after="0.05"
    )
    result = cli(*sync_args(zotero_server))
    assert result.exit_code == 0, result.output
    assert {e.fault for e in zotero_server.log.entries if e.fault} >= {"drop"}
    zotero_server.faults.configure(rate=0.0)
    assert_pulled(seeded_library, titles)
    items = {i["citationKey"]: i for i in zotero_server.top_items()}
    assert all({"tag": "faulty", "type": 0} in items[key]["tags"] for key in untouched)
    local_notes = [n["note"] for n in zotero_server.notes() if "local note on" in n["note"]]
    assert len(local_notes) == len(set(local_notes)) == len(untouched)
    zotero_server.log.clear()
    assert cli(*sync_args(zotero_server)).exit_code == 0
    assert zotero_server.log.writes() == []
