"""Each pyzotero 1.16 fault the sync guards against, shown on the test server, and the guard."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import httpx2
import pytest
from pyzotero import zotero
from pyzotero import zotero_errors as ze

from bib.zotero.client import Credentials, RetryPolicy, Secret, ZoteroClient

PAPER = {"itemType": "conferencePaper", "title": "A"}


@pytest.fixture
def zot(zotero_server: Any):
    client = httpx2.Client(trust_env=False)
    z = zotero.Zotero(str(zotero_server.user_id), "user", zotero_server.api_key, client=client)
    z.endpoint = zotero_server.url
    yield z
    client.close()


@pytest.fixture
def ours(zotero_server: Any):
    credentials = Credentials(Secret(zotero_server.api_key), str(zotero_server.user_id), "user")
    client = ZoteroClient(
        credentials,
        endpoint=zotero_server.url,
        timeout=5,
        policy=RetryPolicy(attempts=5, base=0.01, cap=0.05),
    )
    yield client
    client.close()


def test_pyzotero_create_items_does_not_retry_a_429(zotero_server, zot):
    zotero_server.faults.configure(script=["429"], retry_after="0")
    with pytest.raises(json.JSONDecodeError):
        zot.create_items([PAPER])
    assert zotero_server.top_items() == []


def test_guarded_create_retries_a_429(zotero_server, ours):
    zotero_server.faults.configure(script=["429"], retry_after="0")
    result = ours.post("create", "items", [PAPER], write_token="b" * 32)
    assert result.status == 200
    assert len(zotero_server.top_items()) == 1


def test_pyzotero_update_items_reports_success_when_objects_failed(zotero_server, zot):
    key = zot.create_items([PAPER])["success"]["0"]
    assert zot.update_items([{"key": key, "version": 999, "title": "B"}]) is True
    assert zotero_server.top_items()[0]["title"] == "A"


def test_guarded_update_returns_the_failed_map(zotero_server, ours):
    key = ours.post("create", "items", [PAPER]).report["success"]["0"]
    result = ours.post("update", "items", [{"key": key, "version": 999, "title": "B"}])
    assert result.report["failed"]["0"]["code"] == 412


def _age_templates(z: Any) -> None:
    for entry in z.templates.values():
        entry["updated"] -= dt.timedelta(hours=2)


def test_pyzotero_template_older_than_an_hour_raises(zot):
    zot.item_template("conferencePaper")
    _age_templates(zot)
    with pytest.raises(ze.UnsupportedParamsError):
        zot.item_template("conferencePaper")


def test_guarded_template_refetches_after_an_hour(ours):
    ours.item_template("conferencePaper")
    ours.item_type_fields("conferencePaper")
    _age_templates(ours.zot)
    assert ours.item_template("conferencePaper")["itemType"] == "conferencePaper"
    assert "title" in ours.item_type_fields("conferencePaper")


def test_pyzotero_delete_item_list_sends_an_object_version(zotero_server, zot):
    first = zot.create_items([PAPER])["successful"]["0"]
    zot.create_items([{**PAPER, "title": "B"}])
    with pytest.raises(ze.PreConditionFailedError):
        zot.delete_item([first])
    assert len(zotero_server.top_items()) == 2


def test_guarded_delete_sends_the_library_version(zotero_server, ours):
    first = ours.post("create", "items", [PAPER]).report["success"]["0"]
    result = ours.post("create", "items", [{**PAPER, "title": "B"}])
    assert ours.delete_items([first], result.version) is not None
    assert [i["title"] for i in zotero_server.top_items()] == ["B"]
