"""`bib sync zotero` from the command line: summary, exit codes, secrets, crash safety."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from annotations import open_store
from annotations.copy import snapshot

ROOT = Path(__file__).resolve().parents[2]


def papers_in(path: Path) -> int:
    with open_store(path) as store:
        return store.count()


def sync_args(server: Any, *extra: str) -> list[str]:
    return ["sync", "zotero", "--endpoint", server.url, "--timeout", "60", *extra]


def test_summary_on_stdout_and_exit_0(cli, zotero_server, seeded_library, env):
    result = cli(*sync_args(zotero_server))
    assert result.exit_code == 0, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"created: {papers_in(seeded_library)} items, 3 notes, 1 collections")
    assert "failed: 0" in last


def test_json_summary(cli, zotero_server, seeded_library, env):
    result = cli(*sync_args(zotero_server, "--json"))
    summary = json.loads(result.stdout)
    assert summary["created"]["item"] == len(zotero_server.top_items())
    assert summary["failed"] == []


def test_dry_run_says_what_would_happen(cli, zotero_server, seeded_library, env):
    result = cli(*sync_args(zotero_server, "--dry-run"))
    assert result.exit_code == 0
    assert f"would be created: {papers_in(seeded_library)} items" in result.stdout
    assert zotero_server.log.writes() == []


def test_no_api_key_is_bad_usage(cli, zotero_server, seeded_library, monkeypatch):
    monkeypatch.delenv("ZOTERO_API_KEY", raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    result = cli(*sync_args(zotero_server, "--library-id", "1"))
    assert result.exit_code == 2
    assert "no Zotero API key" in result.stderr


def test_refused_key_is_bad_usage(cli, zotero_server, seeded_library, env, monkeypatch):
    monkeypatch.setenv("ZOTERO_API_KEY", "wrong-key-0123456789")
    result = cli(*sync_args(zotero_server))
    assert result.exit_code == 2
    assert "refused" in result.stderr
    assert "wrong-key-0123456789" not in result.output


def test_a_failed_object_is_reported_by_citation_key_and_exits_1(
    cli, zotero_server, seeded_library, env
):
    cli(*sync_args(zotero_server))
    with open_store(seeded_library) as store:
        key = sorted(store.pinned_keys().values())[2]
        store.add_note(key, "A note whose paper vanishes mid-sync")
    zotero_key = next(i["key"] for i in zotero_server.top_items() if i["citationKey"] == key)
    zotero_server.faults.configure(before_write=lambda lib: lib.delete_items([zotero_key]))
    result = cli(*sync_args(zotero_server))
    assert result.exit_code == 1
    assert any(
        line.startswith(f"failed\t{key}\tnote ") and "409" in line
        for line in result.stdout.splitlines()
    )


def test_api_key_never_appears_in_output_logs_or_database(
    cli, zotero_server, seeded_library, env, caplog
):
    caplog.set_level(logging.DEBUG)
    zotero_server.faults.configure(script=["500", "429", "drop"], retry_after="0")
    results = [cli(*sync_args(zotero_server)), cli(*sync_args(zotero_server, "--json"))]
    key = zotero_server.api_key
    assert results[0].exit_code == 0
    for result in results:
        assert key not in result.stdout and key not in result.stderr
    assert key not in caplog.text
    assert caplog.records  # the HTTP layer did log, without the key
    with open_store(seeded_library) as store:
        assert key not in json.dumps(snapshot(store), default=str)
    if isinstance(seeded_library, Path):  # the SQLite file and its journal, byte by byte
        for path in seeded_library.parent.glob("library.sqlite*"):
            assert key.encode() not in path.read_bytes()


def test_credentials_hide_the_key_in_reprs(zotero_server, env):
    from bib.zotero.client import ZoteroClient, load_credentials

    credentials = load_credentials()
    client = ZoteroClient(credentials, endpoint=zotero_server.url)
    try:
        for text in (
            repr(credentials),
            str(credentials.api_key),
            f"{credentials.api_key}",
            repr(client),
        ):
            assert zotero_server.api_key not in text
    finally:
        client.close()


def test_credentials_from_the_keyring(zotero_server, monkeypatch):
    import keyring
    from keyring.backend import KeyringBackend

    values = {
        "ZOTERO_API_KEY": zotero_server.api_key,
        "ZOTERO_LIBRARY_ID": str(zotero_server.user_id),
    }

    class Memory(KeyringBackend):
        priority = 1

        def get_password(self, service: str, username: str) -> str | None:
            return values.get(username) if service == "bib-zotero" else None

        def set_password(self, service: str, username: str, password: str) -> None:
            raise NotImplementedError

        def delete_password(self, service: str, username: str) -> None:
            raise NotImplementedError

    for name in ("ZOTERO_API_KEY", "ZOTERO_LIBRARY_ID", "ZOTERO_LIBRARY_TYPE"):
        monkeypatch.delenv(name, raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(Memory())
    try:
        from bib.zotero.client import load_credentials

        credentials = load_credentials()
    finally:
        keyring.set_keyring(previous)
    assert credentials.api_key.reveal() == zotero_server.api_key
    assert credentials.library_id == str(zotero_server.user_id)
    assert credentials.library_type == "user"


@pytest.mark.slow
def test_sync_killed_half_way_and_run_again_leaves_no_duplicates(
    zotero_server, seeded_library, env
):
    environ = {**os.environ, **env, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "bib",
        "--library",
        str(seeded_library),
        *sync_args(zotero_server),
    ]
    zotero_server.faults.configure(latency=0.4)
    process = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while zotero_server.log.count("POST", "/items") < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.1)  # the first batch is in flight: the server applies it, nobody hears
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    time.sleep(0.6)
    papers = papers_in(seeded_library)
    assert 0 < len(zotero_server.top_items()) < papers
    zotero_server.faults.configure(latency=0.0)
    rerun = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    citation_keys = [i["citationKey"] for i in zotero_server.top_items()]
    assert len(citation_keys) == len(set(citation_keys)) == papers
    assert len(zotero_server.notes()) == 3
