"""The guarded client: Backoff, bounded retries, timeouts."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bib.zotero.client import Credentials, RetryPolicy, Secret, ZoteroClient, ZoteroHTTPError


def client_for(server: Any, **kwargs: Any) -> ZoteroClient:
    credentials = Credentials(Secret(server.api_key), str(server.user_id), "user")
    kwargs.setdefault("policy", RetryPolicy(attempts=4, base=0.01, cap=0.05, total=10))
    return ZoteroClient(credentials, endpoint=server.url, **kwargs)


def test_backoff_header_delays_the_next_request(zotero_server):
    client = client_for(zotero_server, timeout=5)
    zotero_server.faults.configure(backoff="1")
    client.deleted_since(0)
    zotero_server.faults.configure(backoff=None)
    started = time.monotonic()
    client.deleted_since(0)
    assert time.monotonic() - started >= 0.9
    client.close()


def test_persistent_server_errors_give_up_after_the_bounded_attempts(zotero_server):
    client = client_for(zotero_server, timeout=5)
    zotero_server.faults.configure(rate=1.0, kinds=("503",), retry_after="0")
    with pytest.raises(ZoteroHTTPError, match="giving up after 4 attempts"):
        client.post("create items", "items", [{"itemType": "note", "note": "x"}])
    assert zotero_server.log.count("POST") == 4
    client.close()


def test_a_stalled_server_is_retried_after_the_timeout(zotero_server):
    client = client_for(zotero_server, timeout=0.3)
    zotero_server.faults.configure(script=["timeout"], timeout_sleep=1.0)
    started = time.monotonic()
    versions, _ = client.versions_and_library(["ABCD2345"])
    assert versions == {}
    assert time.monotonic() - started < 1.0
    assert zotero_server.log.count("GET") == 2
    client.close()
