"""The test server keeps the documented Zotero Web API v3 rules the sync relies on."""

from __future__ import annotations

import time
from typing import Any

import httpx2
import pytest


@pytest.fixture
def http(zotero_server: Any):
    client = httpx2.Client(
        base_url=f"{zotero_server.url}/users/{zotero_server.user_id}",
        headers={"Zotero-API-Key": zotero_server.api_key, "Zotero-API-Version": "3"},
        trust_env=False,
        timeout=5,
    )
    yield client
    client.close()


def paper(title: str = "A", **fields: Any) -> dict[str, Any]:
    return {"itemType": "conferencePaper", "title": title, **fields}


def test_write_token_reuse_is_refused_with_412(http):
    headers = {"Zotero-Write-Token": "a" * 32}
    assert http.post("/items", json=[paper()], headers=headers).status_code == 200
    assert http.post("/items", json=[paper()], headers=headers).status_code == 412


def test_more_than_50_objects_is_413(http):
    assert http.post("/items", json=[paper(str(i)) for i in range(51)]).status_code == 413


def test_invalid_field_and_item_type_fail_per_object_with_400(http):
    report = http.post(
        "/items", json=[paper(), paper(proceedingsName="x"), {"itemType": "nonsense"}]
    ).json()
    assert list(report["success"]) == ["0"]
    assert report["failed"]["1"]["code"] == 400
    assert "proceedingsName" in report["failed"]["1"]["message"]
    assert report["failed"]["2"]["code"] == 400


def test_stale_library_version_is_412_and_keyed_write_without_version_is_428(http):
    first = http.post("/items", json=[paper()])
    key = first.json()["success"]["0"]
    version = int(first.headers["Last-Modified-Version"])
    http.post("/items", json=[paper("B")])
    stale = http.post(
        "/items", json=[paper("C")], headers={"If-Unmodified-Since-Version": str(version)}
    )
    assert stale.status_code == 412
    report = http.post("/items", json=[{**paper("D"), "key": key}]).json()
    assert report["failed"]["0"]["code"] == 428
    assert http.patch(f"/items/{key}", json={"title": "E"}).status_code == 428


def test_object_version_conflict_is_412_in_the_failed_map(http):
    key = http.post("/items", json=[paper()]).json()["success"]["0"]
    report = http.post("/items", json=[{"key": key, "version": 999, "title": "x"}]).json()
    assert report["failed"]["0"]["code"] == 412


def test_child_note_needs_an_existing_parent(http):
    report = http.post(
        "/items", json=[{"itemType": "note", "note": "<p>x</p>", "parentItem": "ABCD2345"}]
    ).json()
    assert report["failed"]["0"]["code"] == 409


def test_wrong_key_is_403_and_both_auth_headers_work(zotero_server):
    url = zotero_server.url
    key = zotero_server.api_key
    assert httpx2.get(f"{url}/keys/current", headers={"Zotero-API-Key": "nope"}).status_code == 403
    bearer = httpx2.get(f"{url}/keys/current", headers={"Authorization": f"Bearer {key}"})
    assert bearer.status_code == 200
    assert bearer.json()["userID"] == zotero_server.user_id
    items = f"{url}/users/{zotero_server.user_id}/items"
    assert httpx2.get(items, headers={"Authorization": "Bearer nope"}).status_code == 403


def test_since_versions_and_pagination_headers(http):
    for i in range(3):
        http.post("/items", json=[paper(str(i))])
    all_versions = http.get("/items", params={"format": "versions"})
    assert sorted(all_versions.json().values()) == [1, 2, 3]
    since = http.get("/items", params={"format": "versions", "since": 2}).json()
    assert list(since.values()) == [3]
    page = http.get("/items", params={"limit": 2})
    assert page.headers["Total-Results"] == "3"
    assert 'rel="next"' in page.headers["Link"]
    assert len(page.json()) == 2


def test_deleted_lists_keys_deleted_since_a_version(http):
    key = http.post("/items", json=[paper()]).json()["success"]["0"]
    version = int(http.get(f"/items/{key}").headers["Last-Modified-Version"])
    gone = http.delete(f"/items/{key}", headers={"If-Unmodified-Since-Version": str(version)})
    assert gone.status_code == 204
    assert http.get("/deleted", params={"since": version}).json()["items"] == [key]
    assert http.get("/deleted").status_code == 400


def test_citation_key_field_toggle(zotero_server):
    url = f"{zotero_server.url}/itemTypeFields"

    def fields() -> list[str]:
        rows = httpx2.get(url, params={"itemType": "conferencePaper"}).json()
        return [r["field"] for r in rows]

    assert "citationKey" in fields()
    zotero_server.library.citation_key_field = False
    assert "citationKey" not in fields()


def test_dropped_response_still_commits_the_write(zotero_server, http):
    zotero_server.faults.configure(script=["drop"])
    with pytest.raises(httpx2.TransportError):
        http.post("/items", json=[paper()])
    assert len(zotero_server.top_items()) == 1


def test_injected_429_carries_retry_after_and_latency_applies(zotero_server, http):
    zotero_server.faults.configure(script=["429"], retry_after="3", latency=0.2)
    started = time.monotonic()
    response = http.get("/items")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "3"
    assert time.monotonic() - started >= 0.2


# -- the version rules, one test per rule of the table in docs/zotero.md ------------------
NEW_KEY = "ABCD2345"


def test_rule_keyed_create_without_version_or_header_is_428_even_for_a_new_key(http):
    report = http.post("/items", json=[{**paper(), "key": NEW_KEY}]).json()
    assert report["failed"]["0"]["code"] == 428
    assert "'version' property must be provided" in report["failed"]["0"]["message"]
    assert http.get(f"/items/{NEW_KEY}").status_code == 404


def test_rule_keyed_create_with_version_0_is_accepted(http):
    report = http.post("/items", json=[{**paper(), "key": NEW_KEY, "version": 0}]).json()
    assert report["success"] == {"0": NEW_KEY}


def test_rule_keyed_create_under_the_library_version_header_is_accepted(http):
    version = http.get("/items?format=versions").headers["Last-Modified-Version"]
    response = http.post(
        "/items",
        json=[{**paper(), "key": NEW_KEY}],
        headers={"If-Unmodified-Since-Version": version},
    )
    assert response.json()["success"] == {"0": NEW_KEY}


def test_rule_version_0_on_an_existing_object_is_412(http):
    http.post("/items", json=[{**paper(), "key": NEW_KEY, "version": 0}])
    report = http.post("/items", json=[{**paper("B"), "key": NEW_KEY, "version": 0}]).json()
    assert report["failed"]["0"]["code"] == 412


def test_rule_a_version_above_0_on_a_missing_object_is_404(http):
    report = http.post("/items", json=[{**paper(), "key": NEW_KEY, "version": 7}]).json()
    assert report["failed"]["0"]["code"] == 404
    assert "use 0 instead" in report["failed"]["0"]["message"]


def test_rule_stale_object_version_is_a_per_object_412(http):
    key = http.post("/items", json=[paper()]).json()["success"]["0"]
    http.post("/items", json=[paper("other")])
    current = http.get(f"/items/{key}").json()["version"]
    http.patch(f"/items/{key}", json={"title": "B", "version": current})
    report = http.post("/items", json=[{**paper("C"), "key": key, "version": current}]).json()
    assert report["failed"]["0"]["code"] == 412


def test_rule_header_0_on_a_library_that_is_not_empty_is_412_with_the_library_version(http):
    http.post("/items", json=[paper()])
    response = http.post("/items", json=[paper("B")], headers={"If-Unmodified-Since-Version": "0"})
    assert response.status_code == 412
    assert response.headers["Last-Modified-Version"] == "1"


def test_rule_other_errors_carry_no_library_version(http):
    response = http.post("/items", json=[paper(str(i)) for i in range(51)])
    assert response.status_code == 413
    assert "Last-Modified-Version" not in response.headers


def test_rule_patch_of_a_missing_key_without_version_is_404(http):
    response = http.patch(f"/items/{NEW_KEY}", json={"title": "x"})
    assert response.status_code == 404
    assert "to create" in response.text


def test_rule_put_of_a_missing_key_with_header_0_creates_it(http):
    response = http.put(
        f"/items/{NEW_KEY}", json=paper(), headers={"If-Unmodified-Since-Version": "0"}
    )
    assert response.status_code == 204
    assert http.get(f"/items/{NEW_KEY}").json()["data"]["title"] == "A"


def test_rule_single_object_write_to_a_missing_key_with_a_version_is_412(http):
    response = http.patch(f"/items/{NEW_KEY}", json={"title": "x", "version": 3})
    assert response.status_code == 412


def test_rule_header_and_json_version_that_differ_are_400(http):
    key = http.post("/items", json=[paper()]).json()["success"]["0"]
    response = http.patch(
        f"/items/{key}",
        json={"title": "x", "version": 1},
        headers={"If-Unmodified-Since-Version": "2"},
    )
    assert response.status_code == 400


def test_rule_multi_object_delete_without_header_is_428(http):
    key = http.post("/items", json=[paper()]).json()["success"]["0"]
    assert http.delete("/items", params={"itemKey": key}).status_code == 428


def test_rule_multi_object_delete_with_a_stale_library_version_is_412(http):
    key = http.post("/items", json=[paper()]).json()["success"]["0"]
    http.post("/items", json=[paper("B")])
    response = http.delete(
        "/items", params={"itemKey": key}, headers={"If-Unmodified-Since-Version": "1"}
    )
    assert response.status_code == 412


def test_rule_unchanged_library_is_304_under_if_modified_since_version(http):
    version = http.get("/items?format=versions").headers["Last-Modified-Version"]
    response = http.get(
        "/items?format=versions&since=0", headers={"If-Modified-Since-Version": version}
    )
    assert response.status_code == 304


def test_rule_a_library_changed_since_the_version_answers_200_with_the_changes(http):
    version = int(http.get("/items?format=versions").headers["Last-Modified-Version"])
    created = http.post("/items", json=[paper("New")]).json()
    response = http.get(
        f"/items?format=versions&since={version}",
        headers={"If-Modified-Since-Version": str(version)},
    )
    assert response.status_code == 200
    assert list(response.json()) == [created["success"]["0"]]


def test_rule_a_single_object_is_304_by_its_own_version_under_if_modified_since_version(http):
    first = http.post("/items", json=[paper("One")]).json()
    key = first["success"]["0"]
    object_version = http.get(f"/items/{key}").headers["Last-Modified-Version"]
    http.post("/items", json=[paper("Two")])  # the library moves on
    response = http.get(f"/items/{key}", headers={"If-Modified-Since-Version": object_version})
    assert response.status_code == 304


def test_rule_keyed_collection_create_without_version_is_428(http):
    report = http.post("/collections", json=[{"name": "X", "key": NEW_KEY}]).json()
    assert report["failed"]["0"]["code"] == 428


def test_rule_group_library_without_write_access_refuses_writes(zotero_server):
    zotero_server.library.group_id = 98765
    zotero_server.library.group_write = False
    client = httpx2.Client(
        base_url=f"{zotero_server.url}/groups/98765",
        headers={"Zotero-API-Key": zotero_server.api_key},
        trust_env=False,
        timeout=5,
    )
    with client:
        assert client.get("/items").status_code == 200
        assert client.post("/items", json=[paper()]).status_code == 403
