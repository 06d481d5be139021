"""A stateful Zotero Web API v3 server for tests, with a fault injector and a request log.

It follows the documented rules that a sync client depends on (see docs/zotero.md, "What
the test server checks"): library and object versions with `Last-Modified-Version`,
`If-Unmodified-Since-Version` (412 when stale, 428 when a keyed write has no version),
`Zotero-Write-Token` (412 on reuse), at most 50 objects per write (413), the
`successful`/`success`/`unchanged`/`failed` write report with per-object validation against
the item type fields of /work/shared/reference/zotero-item-fields.json, child notes with
`parentItem`, collections, `?since=`, `format=versions|keys`, `itemKey=`, `limit`/`start`
with `Total-Results` and `Link`, `/deleted`, `/keys/current` and the type/field endpoints.
The API is served at the root path, as pyzotero expects of `zot.endpoint`.

Run it alone with `python tests/zotero/server.py --latency 0.05` (prints its URL).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

REFERENCE = Path(__file__).resolve().parent / "data" / "zotero-item-fields.json"
KEY_RE = re.compile(r"^[23456789ABCDEFGHIJKLMNPQRSTUVWXYZ]{8}$")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_WRITE_OBJECTS = 50
MAX_LIMIT = 100
DEFAULT_LIMIT = 25
FAULT_KINDS = ("429", "503", "500", "timeout", "drop")
SCHEMA_MODIFIED = "Mon, 02 Mar 2026 10:00:00 GMT"
# Properties every item may carry besides its type's fields (the editable JSON of write_requests).
ITEM_META = {"key", "version", "itemType", "tags", "collections", "relations", "deleted"}
ITEM_META |= {"dateAdded", "dateModified", "creators", "inPublications"}
NOTE_PROPS = {"key", "version", "itemType", "note", "parentItem", "tags", "collections"}
NOTE_PROPS |= {"relations", "deleted", "dateAdded", "dateModified"}


class Drop(Exception):
    """Close the connection without a response (after the write was applied)."""


@dataclass
class Faults:
    """What goes wrong, and how often: by rate (seeded) or by a scripted sequence.

    `script` entries are consumed one per request that `applies_to`; an entry is a fault
    kind from FAULT_KINDS or None for a clean request. `rate` draws from `kinds` for the
    remaining requests. `latency` delays every request; `timeout_sleep` is how long a
    "timeout" fault stalls before the write is applied and answered (too late).
    """

    latency: float = 0.0
    rate: float = 0.0
    kinds: tuple[str, ...] = FAULT_KINDS
    seed: int = 0
    retry_after: str = "1"
    backoff: str | None = None
    timeout_sleep: float = 1.0
    methods: frozenset[str] = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE"})
    script: deque[str | None] = field(default_factory=deque)
    before_write: Callable[[ZoteroLibrary], None] | None = None
    _rng: random.Random = field(default_factory=random.Random)

    def configure(self, **values: Any) -> None:
        for name, value in values.items():
            if not hasattr(self, name):
                raise AttributeError(name)
            setattr(self, name, deque(value) if name == "script" else value)
        if "seed" in values:
            self._rng.seed(values["seed"])

    def draw(self, method: str) -> str | None:
        if method not in self.methods:
            return None
        if self.script:
            return self.script.popleft()
        if self.rate and self._rng.random() < self.rate:
            return self._rng.choice(self.kinds)
        return None


@dataclass
class LoggedRequest:
    method: str
    path: str
    query: str
    status: int | None
    fault: str | None
    headers: dict[str, str]


class RequestLog:
    """Every request the server saw, for assertions on counts and headers."""

    def __init__(self) -> None:
        self.entries: list[LoggedRequest] = []
        self._lock = threading.Lock()

    def add(self, entry: LoggedRequest) -> None:
        with self._lock:
            self.entries.append(entry)

    def clear(self) -> None:
        with self._lock:
            self.entries.clear()

    def writes(self) -> list[LoggedRequest]:
        return [e for e in self.entries if e.method in WRITE_METHODS]

    def count(self, method: str | None = None, path_contains: str = "") -> int:
        return sum(
            1
            for e in self.entries
            if (method is None or e.method == method) and path_contains in e.path
        )


def load_schema(path: Path = REFERENCE) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _write_report() -> dict[str, dict[str, Any]]:
    """The four parts of a multi-object write response, empty."""
    return {"successful": {}, "success": {}, "unchanged": {}, "failed": {}}


class ZoteroLibrary:
    """One user library: items, collections, versions, the delete log and write tokens."""

    def __init__(self, user_id: int, api_key: str, schema: dict[str, Any]) -> None:
        self.user_id = user_id
        self.api_key = api_key
        self.username = f"user{user_id}"
        self.schema = schema
        self.citation_key_field = True
        self.group_id: int | None = None
        """Serve a group library (`/groups/ID`) instead of the user's (`/users/ID`)."""
        self.group_write = True
        self.version = 0
        self.items: dict[str, dict[str, Any]] = {}
        self.collections: dict[str, dict[str, Any]] = {}
        self.deleted: dict[str, dict[str, int]] = {"items": {}, "collections": {}}
        self.write_tokens: set[str] = set()
        self.children: dict[str, set[str]] = {}
        self.lock = threading.RLock()

    @property
    def prefix(self) -> str:
        if self.group_id is not None:
            return f"/groups/{self.group_id}"
        return f"/users/{self.user_id}"

    def library_json(self) -> dict[str, Any]:
        if self.group_id is not None:
            return {"type": "group", "id": self.group_id, "name": "Lab", "links": {}}
        return {"type": "user", "id": self.user_id, "name": self.username, "links": {}}

    # -- schema --------------------------------------------------------------------
    def item_types(self) -> list[str]:
        return sorted(self.schema["itemTypes"])

    def fields_of(self, item_type: str) -> list[str]:
        fields = list(self.schema["itemTypes"][item_type]["fields"])
        if not self.citation_key_field:
            fields = [f for f in fields if f != "citationKey"]
        return fields

    def creator_types_of(self, item_type: str) -> list[str]:
        return list(self.schema["itemTypes"][item_type]["creatorTypes"])

    def template(self, item_type: str) -> dict[str, Any]:
        if item_type == "note":
            return {"itemType": "note", "note": "", "tags": [], "collections": [], "relations": {}}
        data: dict[str, Any] = {"itemType": item_type, "title": ""}
        primary = self.creator_types_of(item_type)[0]
        data["creators"] = [{"creatorType": primary, "firstName": "", "lastName": ""}]
        data.update({f: "" for f in self.fields_of(item_type) if f != "title"})
        data.update({"tags": [], "collections": [], "relations": {}})
        return data

    # -- helpers ---------------------------------------------------------------------
    def new_key(self) -> str:
        alphabet = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
        while True:
            key = "".join(secrets.choice(alphabet) for _ in range(8))
            if key not in self.items and key not in self.collections:
                return key

    def live_items(self) -> list[dict[str, Any]]:
        return [i for i in self.items.values() if not i["data"].get("deleted")]

    def item_json(self, item: dict[str, Any], base: str) -> dict[str, Any]:
        key = item["key"]
        children = len(self.children.get(key, ()))
        return {
            "key": key,
            "version": item["version"],
            "library": self.library_json(),
            "links": {"self": {"href": f"{base}{self.prefix}/items/{key}"}},
            "meta": {"numChildren": children} if item["data"]["itemType"] != "note" else {},
            "data": _copy(item["data"]),
        }

    def collection_json(self, coll: dict[str, Any], base: str) -> dict[str, Any]:
        key = coll["key"]
        n = sum(1 for i in self.live_items() if key in i["data"].get("collections", []))
        return {
            "key": key,
            "version": coll["version"],
            "library": self.library_json(),
            "links": {"self": {"href": f"{base}{self.prefix}/collections/{key}"}},
            "meta": {"numCollections": 0, "numItems": n},
            "data": dict(coll["data"]),
        }

    # -- validation ------------------------------------------------------------------
    def validate_item(self, data: dict[str, Any], pending: set[str]) -> tuple[int, str] | None:
        """Per-object validation; returns (code, message) for the `failed` map."""
        item_type = data.get("itemType")
        if item_type not in self.schema["itemTypes"]:
            return 400, f"'itemType' value '{item_type}' is not a valid item type"
        allowed = NOTE_PROPS if item_type == "note" else ITEM_META | set(self.fields_of(item_type))
        for name in data:
            if name not in allowed:
                return 400, f"'{name}' is not a valid field for type '{item_type}'"
        for name in self.fields_of(item_type) if item_type != "note" else ["note"]:
            if name in data and not isinstance(data[name], str):
                return 400, f"'{name}' must be a string"
        creator_types = self.creator_types_of(item_type)
        for creator in data.get("creators", []):
            if not isinstance(creator, dict) or creator.get("creatorType") not in creator_types:
                return 400, f"'{creator}' is not a valid creator for type '{item_type}'"
            if "name" in creator and ("firstName" in creator or "lastName" in creator):
                return 400, "'name' and 'firstName'/'lastName' are mutually exclusive"
        for tag in data.get("tags", []):
            if not isinstance(tag, dict) or not str(tag.get("tag", "")).strip():
                return 400, "Tag must be an object with a non-empty 'tag'"
            if tag.get("type", 0) not in (0, 1):
                return 400, f"Invalid tag type '{tag.get('type')}'"
        parent = data.get("parentItem")
        if parent:
            if item_type != "note":
                return 400, "Only notes and attachments can be child items"
            target = self.items.get(parent)
            if parent not in pending and (target is None or target["data"]["itemType"] == "note"):
                return 409, f"Parent item {parent} doesn't exist"
            if data.get("collections"):
                return 400, "Child items cannot be assigned to collections"
        for coll in data.get("collections", []):
            if coll not in self.collections:
                return 409, f"Collection {coll} doesn't exist"
        return None

    # -- writes ----------------------------------------------------------------------
    def write_items(
        self, objects: list[Any], header_version: int | None, base: str
    ) -> tuple[dict[str, Any], int]:
        """Apply a multi-object POST; all changed objects share one new library version."""
        report = _write_report()
        new_version = self.version + 1
        changed = False
        created_here: set[str] = set()
        for index, obj in enumerate(objects):
            idx = str(index)
            if not isinstance(obj, dict):
                report["failed"][idx] = {"key": "", "code": 400, "message": "Invalid object"}
                continue
            key = obj.get("key")
            if key is not None and not KEY_RE.match(str(key)):
                report["failed"][idx] = {"key": key, "code": 400, "message": "Invalid key"}
                continue
            existing = self.items.get(key) if key else None
            problem = version_problem(key, obj.get("version"), header_version, existing)
            if problem:
                code, message = problem
                report["failed"][idx] = {"key": key, "code": code, "message": message}
                continue
            if existing is not None:
                merged = {**existing["data"], **obj, "key": key}
                merged.pop("version", None)
                merged.setdefault("itemType", existing["data"]["itemType"])
            else:
                key = key or self.new_key()
                merged = {k: v for k, v in obj.items() if k != "version"}
                merged["key"] = key
            problem = self.validate_item(merged, created_here)
            if problem:
                code, message = problem
                report["failed"][idx] = {"key": key, "code": code, "message": message}
                continue
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            if existing is not None:
                old = {k: v for k, v in existing["data"].items() if k not in ("version",)}
                if _same(old, merged):
                    report["unchanged"][idx] = key
                    continue
                merged["dateAdded"] = existing["data"].get("dateAdded", now)
            else:
                merged.setdefault("dateAdded", now)
                merged.setdefault("tags", [])
                merged.setdefault("relations", {})
                if merged["itemType"] != "note" or not merged.get("parentItem"):
                    merged.setdefault("collections", [])
                self.deleted["items"].pop(key, None)
            merged["dateModified"] = now
            merged["version"] = new_version
            if existing is not None and existing["data"].get("parentItem"):
                self.children.get(existing["data"]["parentItem"], set()).discard(key)
            if merged.get("parentItem"):
                self.children.setdefault(merged["parentItem"], set()).add(key)
            self.items[key] = {"key": key, "version": new_version, "data": merged}
            created_here.add(key)
            changed = True
            report["success"][idx] = key
            report["successful"][idx] = self.item_json(self.items[key], base)
        if changed:
            self.version = new_version
        return report, self.version

    def write_collections(self, objects: list[Any], base: str) -> tuple[dict[str, Any], int]:
        report = _write_report()
        new_version = self.version + 1
        changed = False
        for index, obj in enumerate(objects):
            idx = str(index)
            if not isinstance(obj, dict) or not str(obj.get("name", "")).strip():
                report["failed"][idx] = {"key": "", "code": 400, "message": "Collection name"}
                continue
            existing = self.collections.get(obj["key"]) if obj.get("key") else None
            problem = version_problem(obj.get("key"), obj.get("version"), None, existing)
            if problem:
                code, message = problem
                report["failed"][idx] = {"key": obj.get("key"), "code": code, "message": message}
                continue
            key = obj.get("key") or self.new_key()
            parent = obj.get("parentCollection") or False
            if parent and parent not in self.collections:
                msg = f"Parent collection {parent} doesn't exist"
                report["failed"][idx] = {"key": key, "code": 409, "message": msg}
                continue
            data = {"key": key, "version": new_version, "name": obj["name"]}
            data.update({"parentCollection": parent, "relations": obj.get("relations", {})})
            self.collections[key] = {"key": key, "version": new_version, "data": data}
            changed = True
            report["success"][idx] = key
            report["successful"][idx] = self.collection_json(self.collections[key], base)
        if changed:
            self.version = new_version
        return report, self.version

    def delete_items(self, keys: Iterable[str]) -> int:
        """Delete items (and their child notes); one new library version."""
        new_version = self.version + 1
        doomed = set(keys)
        doomed |= {k for k, i in self.items.items() if i["data"].get("parentItem") in doomed}
        hit = False
        for key in doomed:
            self.children.pop(key, None)
            item = self.items.get(key)
            if item is not None and item["data"].get("parentItem"):
                self.children.get(item["data"]["parentItem"], set()).discard(key)
            if self.items.pop(key, None) is not None:
                self.deleted["items"][key] = new_version
                hit = True
        if hit:
            self.version = new_version
        return self.version

    # -- test helpers ----------------------------------------------------------------
    def edit_item(self, key: str, **fields: Any) -> None:
        """Change an item as the Zotero client would (a new library version)."""
        with self.lock:
            self.version += 1
            item = self.items[key]
            item["data"].update(fields)
            item["version"] = item["data"]["version"] = self.version

    def remove_item(self, key: str) -> None:
        with self.lock:
            self.delete_items([key])


def version_problem(
    key: str | None,
    version: Any,
    header_version: int | None,
    existing: dict[str, Any] | None,
) -> tuple[int, str] | None:
    """The per-object version rules of a multi-object POST (docs/zotero.md, rules R3-R6).

    The dataserver checks them per object after the request-level header check
    (model/API.inc.php, processJSON / checkJSONVersion): a keyed object needs a JSON
    `version` unless the request carries If-Unmodified-Since-Version, even when the key
    is new; `version` 0 means "must not exist yet".
    """
    if key is None:
        return None
    if version is None:
        if header_version is None:
            return 428, (
                "Either If-Unmodified-Since-Version or 'version' property must be "
                "provided for 'key'-based writes"
            )
        return None
    version = int(version)
    if existing is None:
        if version > 0:
            return 404, f"Item doesn't exist (expected version {version}; use 0 instead)"
        return None
    if version != existing["version"]:
        return 412, (
            f"Item has been modified since specified version "
            f"(expected {version}, found {existing['version']})"
        )
    return None


def _copy(data: dict[str, Any]) -> dict[str, Any]:
    """A copy deep enough for item data (lists of dicts), far cheaper than deepcopy."""
    out = dict(data)
    for name in ("tags", "creators"):
        if name in out:
            out[name] = [dict(x) for x in out[name]]
    for name in ("collections",):
        if name in out:
            out[name] = list(out[name])
    return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    skip = {"dateModified", "dateAdded", "version"}
    return {k: v for k, v in a.items() if k not in skip} == {
        k: v for k, v in b.items() if k not in skip
    }


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ZoteroHTTPServer

    def setup(self) -> None:
        super().setup()
        # One response = headers + body in two sends; without this, Nagle's algorithm and
        # delayed ACKs add ~40 ms to every response on loopback.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    # -- plumbing --------------------------------------------------------------------
    def _handle(self, method: str) -> None:
        srv = self.server
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        fault = srv.faults.draw(method)
        entry = LoggedRequest(method, parts.path, parts.query, None, fault, dict(self.headers))
        srv.log.add(entry)
        if srv.faults.latency:
            time.sleep(srv.faults.latency)
        try:
            if fault in ("429", "503"):
                raise ApiError(
                    int(fault), "Try again later", {"Retry-After": srv.faults.retry_after}
                )
            if fault == "500":
                raise ApiError(500, "An error occurred")
            if fault == "timeout":
                time.sleep(srv.faults.timeout_sleep)
            status, payload, headers = self._route(method, parts.path, parts.query, body)
            if fault == "drop":
                raise Drop()
        except Drop:
            entry.status = 0
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        except ApiError as exc:
            status, payload, headers = exc.status, exc.message, exc.headers
        entry.status = status
        if srv.faults.backoff and status < 400:
            headers = {**headers, "Backoff": srv.faults.backoff}
        self._send(status, payload, headers)

    def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
        if status in (204, 304) or payload is None:
            data = b""
            ctype = None
        elif isinstance(payload, str):
            data, ctype = payload.encode(), "text/plain; charset=utf-8"
        else:
            data, ctype = json.dumps(payload).encode(), "application/json"
        try:
            self.send_response(status)
            self.send_header("Zotero-API-Version", "3")
            if ctype:
                self.send_header("Content-Type", ctype)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _api_key(self, query: dict[str, list[str]]) -> str | None:
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return auth[len("Bearer ") :].strip()
        return self.headers.get("Zotero-API-Key") or (query.get("key") or [None])[0]

    def _base(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    # -- routing ---------------------------------------------------------------------
    def _route(self, method: str, path: str, query_string: str, body: bytes):
        lib = self.server.library
        query = parse_qs(query_string)
        if path.rstrip("/") in ("/itemTypes", "/itemFields", "/itemTypeFields"):
            return self._schema(path.rstrip("/"), query)
        if path.rstrip("/") in ("/itemTypeCreatorTypes", "/creatorFields", "/items/new"):
            return self._schema(path.rstrip("/"), query)
        match = re.match(r"^/keys/([^/]+)/?$", path)
        if match and method == "GET":
            key = self._api_key(query) if match.group(1) == "current" else match.group(1)
            if key != lib.api_key:
                raise ApiError(403, "Invalid key")
            access: dict[str, Any] = {
                "user": {"library": True, "files": True, "notes": True, "write": True}
            }
            if lib.group_id is not None:
                group = {"library": True, "write": lib.group_write}
                access["groups"] = {str(lib.group_id): group}
            info = {"key": key, "userID": lib.user_id, "username": lib.username}
            return 200, {**info, "access": access}, {}
        match = re.match(r"^(/(?:users|groups)/\d+)(/.*)?$", path)
        if not match:
            raise ApiError(404, "Not found")
        if match.group(1) != lib.prefix:
            raise ApiError(403, "Forbidden")
        if self._api_key(query) != lib.api_key:
            raise ApiError(403, "Forbidden")
        if self.headers.get("Zotero-API-Version", "3") != "3":
            raise ApiError(400, "Only API version 3 is served here")
        rest = (match.group(2) or "/").rstrip("/") or "/"
        with lib.lock:
            if method == "GET":
                return self._read(rest, query)
            if lib.group_id is not None and not lib.group_write:
                raise ApiError(403, "Write access denied")
            if lib.schema and self.server.faults.before_write is not None:
                hook, self.server.faults.before_write = self.server.faults.before_write, None
                hook(lib)
            return self._write(method, rest, query, body)

    def _schema(self, path: str, query: dict[str, list[str]]):
        lib = self.server.library
        headers = {"Last-Modified": SCHEMA_MODIFIED}
        if self.headers.get("If-Modified-Since") == SCHEMA_MODIFIED:
            return 304, None, headers
        if path == "/itemTypes":
            return 200, [{"itemType": t, "localized": t} for t in lib.item_types()], headers
        if path == "/itemFields":
            names = sorted({f for t in lib.item_types() for f in lib.fields_of(t)})
            return 200, [{"field": f, "localized": f} for f in names], headers
        if path == "/creatorFields":
            names = ("firstName", "lastName", "name")
            return 200, [{"field": f, "localized": f} for f in names], headers
        item_type = (query.get("itemType") or [None])[0]
        if not item_type:
            raise ApiError(400, "'itemType' not provided")
        if item_type not in lib.schema["itemTypes"]:
            raise ApiError(400, f"Invalid item type '{item_type}'")
        if path == "/itemTypeFields":
            fields = lib.fields_of(item_type)
            return 200, [{"field": f, "localized": f} for f in fields], headers
        if path == "/itemTypeCreatorTypes":
            types = lib.creator_types_of(item_type)
            return 200, [{"creatorType": t, "localized": t} for t in types], headers
        return 200, lib.template(item_type), headers

    def _read(self, rest: str, query: dict[str, list[str]]):
        lib = self.server.library
        base = self._base()
        version_headers = {"Last-Modified-Version": str(lib.version)}
        # Rule R15 (Web API v3, basics, "Caching"; the dataserver's conditional reads):
        # under If-Modified-Since-Version, a library not modified since that version (for a
        # single-object request, the object) answers 304 Not Modified with no body.
        since_header = self.headers.get("If-Modified-Since-Version")
        single = re.match(r"^/(items|collections)/([A-Z0-9]{8})$", rest)
        if since_header is not None:
            if single:
                found = (lib.items if single.group(1) == "items" else lib.collections).get(
                    single.group(2)
                )
                current = found["version"] if found is not None else None
            else:
                current = lib.version
            if current is not None and current <= int(since_header):
                return 304, None, {"Last-Modified-Version": str(current)}
        if rest == "/deleted":
            if "since" not in query:
                raise ApiError(400, "'since' parameter must be provided")
            since = int(query["since"][0])
            out = {
                kind: sorted(k for k, v in lib.deleted[kind].items() if v > since)
                for kind in ("items", "collections")
            }
            return 200, {**out, "searches": [], "tags": [], "settings": []}, version_headers
        match = re.match(r"^/items/([A-Z0-9]{8})(/children)?$", rest)
        if match and not match.group(2):
            item = lib.items.get(match.group(1))
            if item is None:
                raise ApiError(404, "Item not found")
            return 200, lib.item_json(item, base), {"Last-Modified-Version": str(item["version"])}
        if match:
            parent = match.group(1)
            if parent not in lib.items:
                raise ApiError(404, "Item not found")
            objs = [i for i in lib.live_items() if i["data"].get("parentItem") == parent]
            return self._listing(objs, query, rest, lambda o: lib.item_json(o, base))
        match = re.match(r"^/collections/([A-Z0-9]{8})(/items(/top)?)?$", rest)
        if match and not match.group(2):
            coll = lib.collections.get(match.group(1))
            if coll is None:
                raise ApiError(404, "Collection not found")
            headers = {"Last-Modified-Version": str(coll["version"])}
            return 200, lib.collection_json(coll, base), headers
        if match:
            key = match.group(1)
            objs = [i for i in lib.live_items() if key in i["data"].get("collections", [])]
            if match.group(3):
                objs = [i for i in objs if not i["data"].get("parentItem")]
            return self._listing(objs, query, rest, lambda o: lib.item_json(o, base))
        if rest in ("/items", "/items/top"):
            trashed = query.get("includeTrashed", ["0"])[0] == "1"
            objs = list(lib.items.values()) if trashed else lib.live_items()
            if rest == "/items/top":
                objs = [i for i in objs if not i["data"].get("parentItem")]
            if "itemKey" in query:
                keys = [k for k in query["itemKey"][0].split(",") if k]
                if len(keys) > MAX_WRITE_OBJECTS:
                    raise ApiError(400, "Too many keys in itemKey")
                objs = [i for i in objs if i["key"] in set(keys)]
            if "itemType" in query:
                wanted = query["itemType"][0]
                if wanted.startswith("-"):
                    objs = [i for i in objs if i["data"]["itemType"] != wanted[1:]]
                else:
                    objs = [i for i in objs if i["data"]["itemType"] == wanted]
            return self._listing(objs, query, rest, lambda o: lib.item_json(o, base))
        if rest in ("/collections", "/collections/top"):
            objs = list(lib.collections.values())
            if rest == "/collections/top":
                objs = [c for c in objs if not c["data"].get("parentCollection")]
            if "collectionKey" in query:
                keys = set(query["collectionKey"][0].split(","))
                objs = [c for c in objs if c["key"] in keys]
            return self._listing(objs, query, rest, lambda o: lib.collection_json(o, base))
        if rest in ("/tags", "/searches"):
            return self._listing([], query, rest, lambda o: o)
        raise ApiError(404, "Not found")

    def _listing(self, objs: list[dict[str, Any]], query, rest: str, render):
        lib = self.server.library
        headers = {"Last-Modified-Version": str(lib.version)}
        if "since" in query:
            since = int(query["since"][0])
            objs = [o for o in objs if o["version"] > since]
        objs = sorted(objs, key=lambda o: (o["data"].get("dateAdded", ""), o["key"]))
        fmt = query.get("format", ["json"])[0]
        total = len(objs)
        headers["Total-Results"] = str(total)
        if fmt in ("versions", "keys") and "limit" not in query:
            page = objs
        else:
            limit = min(int(query.get("limit", [DEFAULT_LIMIT])[0]), MAX_LIMIT)
            start = int(query.get("start", ["0"])[0])
            page = objs[start : start + limit]
            headers["Link"] = self._links(rest, query, start, limit, total)
        if fmt == "versions":
            return 200, {o["key"]: o["version"] for o in page}, headers
        if fmt == "keys":
            return 200, "\n".join(o["key"] for o in page), headers
        if fmt != "json":
            raise ApiError(400, f"Invalid 'format' value '{fmt}'")
        return 200, [render(o) for o in page], headers

    def _links(self, rest: str, query, start: int, limit: int, total: int) -> str:
        url = f"{self._base()}{self.server.library.prefix}{rest}"
        params = {k: v[0] for k, v in query.items() if k not in ("start", "key")}

        def link(at: int, rel: str) -> str:
            return f'<{url}?{urlencode({**params, "start": at})}>; rel="{rel}"'

        links = []
        if start + limit < total:
            links.append(link(start + limit, "next"))
            links.append(link(((total - 1) // limit) * limit, "last"))
        if start > 0:
            links.append(link(0, "first"))
            links.append(link(max(0, start - limit), "prev"))
        links.append(f'<{url}>; rel="alternate"')
        return ", ".join(links)

    def _json_body(self, body: bytes) -> Any:
        try:
            return json.loads(body or b"null")
        except ValueError:
            raise ApiError(400, "Invalid JSON") from None

    def _write(self, method: str, rest: str, query, body: bytes):
        lib = self.server.library
        base = self._base()
        header = self.headers.get("If-Unmodified-Since-Version")
        header_version = int(header) if header is not None else None
        token = self.headers.get("Zotero-Write-Token")
        if method == "POST" and rest in ("/items", "/collections"):
            objects = self._json_body(body)
            if not isinstance(objects, list):
                raise ApiError(400, "Uploaded data must be a JSON array")
            if len(objects) > MAX_WRITE_OBJECTS:
                raise ApiError(413, f"Only {MAX_WRITE_OBJECTS} objects can be saved at once")
            if header_version is not None and header_version < lib.version:
                raise ApiError(
                    412,
                    f"Library has been modified since specified version "
                    f"(expected {header_version}, found {lib.version})",
                    {"Last-Modified-Version": str(lib.version)},
                )
            if token is not None and token in lib.write_tokens:
                raise ApiError(412, "Write token already used")
            if rest == "/items":
                report, version = lib.write_items(objects, header_version, base)
            else:
                report, version = lib.write_collections(objects, base)
            if token is not None:
                lib.write_tokens.add(token)
            return 200, report, {"Last-Modified-Version": str(version)}
        match = re.match(r"^/items/([A-Z0-9]{8})$", rest)
        if match and method in ("PUT", "PATCH", "DELETE"):
            key = match.group(1)
            item = lib.items.get(key)
            data = self._json_body(body) if method != "DELETE" else {}
            if method != "DELETE" and not isinstance(data, dict):
                raise ApiError(400, "Uploaded data must be a JSON object")
            if (
                header_version is not None
                and "version" in data
                and int(data["version"]) != header_version
            ):
                raise ApiError(
                    400,
                    "If-Unmodified-Since-Version value does not match JSON 'version' "
                    f"property ({header_version} != {data['version']})",
                )
            version = data.get("version", header_version)
            if item is None:
                if version is None:
                    if method == "DELETE":
                        raise ApiError(404, "Item not found")
                    raise ApiError(
                        404,
                        "Item not found (to create, use If-Unmodified-Since-Version: 0, "
                        "JSON 'version' 0, or PUT method)",
                    )
                if int(version) > 0:
                    raise ApiError(412, f"Item not found (expected version {version})")
                if method == "DELETE":
                    raise ApiError(404, "Item not found")
                report, new = lib.write_items([{**data, "key": key, "version": 0}], None, base)
                if report["failed"]:
                    failure = report["failed"]["0"]
                    raise ApiError(failure["code"], failure["message"])
                return 204, None, {"Last-Modified-Version": str(new)}
            if version is None:
                raise ApiError(
                    428,
                    "Either If-Unmodified-Since-Version or object version property must be "
                    "provided for key-based writes",
                )
            if int(version) != item["version"]:
                raise ApiError(
                    412,
                    f"Item has been modified since specified version "
                    f"(expected {version}, found {item['version']})",
                    {"Last-Modified-Version": str(item["version"])},
                )
            if method == "DELETE":
                new = lib.delete_items([key])
                return 204, None, {"Last-Modified-Version": str(new)}
            if method == "PUT":
                payload = {**data, "key": key, "version": item["version"]}
            else:
                payload = {**item["data"], **data, "key": key, "version": item["version"]}
            payload.setdefault("itemType", item["data"]["itemType"])
            report, new = lib.write_items([payload], None, base)
            if report["failed"]:
                failure = report["failed"]["0"]
                raise ApiError(failure["code"], failure["message"])
            return 204, None, {"Last-Modified-Version": str(new)}
        if method == "DELETE" and rest == "/items":
            keys = [k for k in query.get("itemKey", [""])[0].split(",") if k]
            if not keys:
                raise ApiError(400, "No keys provided")
            if len(keys) > MAX_WRITE_OBJECTS:
                raise ApiError(413, "Too many keys")
            if header_version is None:
                raise ApiError(428, "If-Unmodified-Since-Version not provided")
            if header_version < lib.version:
                raise ApiError(
                    412,
                    f"Library has been modified since specified version "
                    f"(expected {header_version}, found {lib.version})",
                    {"Last-Modified-Version": str(lib.version)},
                )
            new = lib.delete_items(keys)
            return 204, None, {"Last-Modified-Version": str(new)}
        raise ApiError(405, "Method not allowed")


class ZoteroHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, library: ZoteroLibrary, faults: Faults, log: RequestLog):
        super().__init__(address, Handler)
        self.library = library
        self.faults = faults
        self.log = log


class ZoteroTestServer:
    """The server, its library, faults and log; `start()` serves it from a thread."""

    def __init__(
        self,
        *,
        user_id: int = 475425,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.api_key = api_key or secrets.token_hex(12)
        self.library = ZoteroLibrary(user_id, self.api_key, load_schema())
        self.faults = Faults()
        self.log = RequestLog()
        self._httpd = ZoteroHTTPServer((host, port), self.library, self.faults, self.log)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def user_id(self) -> int:
        return self.library.user_id

    def start(self) -> ZoteroTestServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # -- views for assertions --------------------------------------------------------
    def top_items(self) -> list[dict[str, Any]]:
        return [i["data"] for i in self.library.live_items() if i["data"]["itemType"] != "note"]

    def notes(self) -> list[dict[str, Any]]:
        return [i["data"] for i in self.library.live_items() if i["data"]["itemType"] == "note"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--no-citation-key", action="store_true")
    args = parser.parse_args()
    server = ZoteroTestServer(port=args.port, api_key=args.api_key)
    server.faults.configure(latency=args.latency)
    server.library.citation_key_field = not args.no_citation_key
    print(json.dumps({"url": server.url, "user_id": server.user_id}), flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
