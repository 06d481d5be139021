"""`--endpoint`, `--timeout` and retries: fail at once when there is no server, wait visibly."""

from __future__ import annotations

import base64
import time
import urllib.parse
from typing import Any

import pytest

from bib.zotero.client import Credentials, RetryPolicy, Secret, ZoteroClient, key_forms

KEY = "P9xyz+/=Secret0123456789"


def sync(cli: Any, endpoint: str, *extra: str) -> Any:
    return cli("sync", "zotero", "--endpoint", endpoint, *extra)


@pytest.mark.parametrize(
    "endpoint", ["http://[::1", "http://127.0.0.1:99999", "ftp://x", "http://"]
)
def test_invalid_endpoint_is_one_line_and_exit_2(cli, seeded_library, env, endpoint):
    result = sync(cli, endpoint)
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("bib: error: --endpoint")
    assert "Traceback" not in result.output


def test_connection_refused_fails_at_once_with_exit_1(cli, seeded_library, env):
    started = time.monotonic()
    result = sync(cli, "http://127.0.0.1:9")
    assert result.exit_code == 1
    assert time.monotonic() - started < 5
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("bib: error: cannot reach http://127.0.0.1:9")
    assert "retrying" not in result.stderr


def test_unknown_host_fails_at_once_with_exit_1(cli, seeded_library, env):
    started = time.monotonic()
    result = sync(cli, "http://no-such-host.invalid")
    assert result.exit_code == 1
    assert time.monotonic() - started < 10
    assert result.stderr.startswith("bib: error: cannot reach http://no-such-host.invalid")


def test_retries_show_on_stderr_as_they_happen(cli, zotero_server, seeded_library, env):
    zotero_server.faults.configure(script=["503", "503"], retry_after="0")
    result = sync(cli, zotero_server.url)
    assert result.exit_code == 0, result.output
    notices = [line for line in result.stderr.splitlines() if line.startswith("Zotero: 503")]
    assert len(notices) == 2
    assert "retrying in" in notices[0] and "(2/8)" in notices[0] and "(3/8)" in notices[1]
    assert "retrying" not in result.stdout


def test_timeout_bounds_the_whole_run(cli, zotero_server, seeded_library, env):
    zotero_server.faults.configure(latency=0.4)
    started = time.monotonic()
    result = sync(cli, zotero_server.url, "--timeout", "1")
    assert result.exit_code == 1
    assert time.monotonic() - started < 4
    assert "longer than --timeout" in result.stderr


@pytest.mark.parametrize(
    "form",
    [
        KEY,
        urllib.parse.quote(KEY, safe=""),
        urllib.parse.quote(KEY, safe="").lower(),
        base64.b64encode(KEY.encode()).decode(),
        base64.b64encode(KEY.encode()).decode().rstrip("="),
        base64.urlsafe_b64encode(KEY.encode()).decode(),
        base64.b64encode(b":" + KEY.encode()).decode(),
    ],
)
def test_api_key_is_masked_in_its_encoded_forms(form):
    credentials = Credentials(Secret(KEY), "1", "user")
    assert form in key_forms(KEY) or form.lower() in key_forms(KEY)
    assert form not in credentials.scrub(f"server said: bad key {form} here")


def test_server_error_echoing_the_key_in_base64_is_masked(zotero_server):
    echoed = base64.b64encode(zotero_server.api_key.encode()).decode()
    credentials = Credentials(Secret(zotero_server.api_key), "1", "user")
    client = ZoteroClient(credentials, endpoint=zotero_server.url, policy=RetryPolicy(attempts=1))
    error = client._refused("read", 400, f"Invalid key {echoed}")
    client.close()
    assert echoed not in str(error)
    assert "***" in str(error)
