"""A Zotero Web API client: pyzotero for reads, guarded writes on the same httpx2 client.

pyzotero 1.16 does the reads (types and fields, versions, deleted objects, items by key,
collections). Writes go out through the same `httpx2.Client` with our own retry loop,
because pyzotero's write methods lose information a sync cannot do without (see
docs/zotero.md, "pyzotero faults guarded"): `create_items` turns a 429 into a JSON decode
error, `update_items` returns True whatever the `failed` map says, and a list
`delete_item` sends an object version where the API wants the library version.

Every request honours `Backoff` and `Retry-After`; 429, 5xx, timeouts and dropped
connections are retried with bounded exponential backoff and jitter. The API key travels
only in the Authorization header and never appears in messages, reprs or logs.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import json as jsonlib
import os
import random
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx2
from pyzotero import zotero
from pyzotero import zotero_errors as ze

from bib.errors import BibError, OperationError

DEFAULT_ENDPOINT = "https://api.zotero.org"
KEYRING_SERVICE = "bib-zotero"
MAX_OBJECTS = 50
TEMPLATE_MAX_AGE = dt.timedelta(minutes=50)
RETRYABLE = frozenset({429, 500, 502, 503, 504})


class Secret:
    """A string that never shows itself: repr, str and format print `***`."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return "***"

    def __bool__(self) -> bool:
        return bool(self._value)

    def __reduce__(self) -> Any:
        raise TypeError("a Secret cannot be pickled")


@dataclass(frozen=True)
class Credentials:
    api_key: Secret = field(repr=False)
    library_id: str
    library_type: str

    def scrub(self, text: str) -> str:
        """`text` with the key masked in every form it may travel in (see `key_forms`)."""
        for form in key_forms(self.api_key.reveal()):
            text = text.replace(form, "***")
        return text


def key_forms(key: str) -> list[str]:
    """The key as written, percent-encoded and in base64 (standard and URL-safe, with and
    without padding, also as part of a `user:key` Basic credential), longest first.

    A server or proxy may echo any of these in an error body; each is masked.
    """
    if not key:
        return []
    raw = key.encode("utf-8")
    forms = {key, urllib.parse.quote(key, safe=""), urllib.parse.quote_plus(key)}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for data in (raw, b":" + raw):
            text = encode(data).decode("ascii")
            forms.update({text, text.rstrip("=")})
    forms.update({f.lower() for f in list(forms) if "%" in f})
    return sorted((f for f in forms if len(f) >= 4), key=len, reverse=True)


def check_endpoint(endpoint: str) -> str:
    """The endpoint, or a BibError (exit 2) naming what is wrong with it."""
    try:
        url = httpx2.URL(endpoint)
        port = url.port
    except (httpx2.InvalidURL, ValueError) as exc:
        raise BibError(f"--endpoint {endpoint!r} is not a valid URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise BibError(f"--endpoint must be an http(s) URL with a host, not {endpoint!r}")
    if port is not None and not 0 < port < 65536:
        raise BibError(f"--endpoint {endpoint!r} is not a valid URL: port {port} out of range")
    return endpoint.rstrip("/")


def _keyring_get(name: str) -> str | None:
    try:
        import keyring
        from keyring.errors import KeyringError

        try:
            return keyring.get_password(KEYRING_SERVICE, name)
        except KeyringError:
            return None
    except Exception:  # a broken keyring backend must not stop a sync that has env vars
        return None


def load_credentials(
    *,
    library_id: str | None = None,
    library_type: str | None = None,
    environ: dict[str, str] | None = None,
) -> Credentials:
    """Credentials as pyzotero users know them: environment first, then the system keyring."""
    env = os.environ if environ is None else environ
    key = env.get("ZOTERO_API_KEY") or _keyring_get("ZOTERO_API_KEY")
    if not key:
        raise BibError(
            "no Zotero API key: set ZOTERO_API_KEY or store it with "
            f"`keyring set {KEYRING_SERVICE} ZOTERO_API_KEY` (see docs/zotero.md)"
        )
    lib_id = library_id or env.get("ZOTERO_LIBRARY_ID") or _keyring_get("ZOTERO_LIBRARY_ID")
    if not lib_id or not str(lib_id).isdigit():
        raise BibError("no Zotero library id: pass --library-id or set ZOTERO_LIBRARY_ID")
    lib_type = (
        library_type
        or env.get("ZOTERO_LIBRARY_TYPE")
        or _keyring_get("ZOTERO_LIBRARY_TYPE")
        or "user"
    )
    if lib_type not in ("user", "group"):
        raise BibError(f"ZOTERO_LIBRARY_TYPE must be 'user' or 'group', not {lib_type!r}")
    return Credentials(Secret(key), str(lib_id), lib_type)


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff: attempts, a cap per wait and a bound on the total wait."""

    attempts: int = 8
    base: float = 0.5
    cap: float = 30.0
    total: float = 600.0

    def delay(self, attempt: int) -> float:
        ceiling = min(self.cap, self.base * 2**attempt)
        return random.uniform(ceiling / 2, ceiling)


class ZoteroHTTPError(OperationError):
    """A request the server refused for good (not retryable), or retries ran out."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class WriteResult:
    status: int
    report: dict[str, Any]
    version: int | None


class _FixedTimeout(httpx2.HTTPTransport):
    """Impose one timeout on every request.

    pyzotero passes `timeout=30` on each read (_client.py:503), which overrides the
    client's own timeout; a sync that must notice a stalled server sooner sets it here.
    """

    def __init__(self, timeout: float) -> None:
        super().__init__()
        self._timeout = httpx2.Timeout(timeout).as_dict()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        request.extensions["timeout"] = self._timeout
        return super().handle_request(request)


@dataclass(frozen=True)
class RemoteChanges:
    """What changed in the library after a version: item versions, deletions, and the
    library version they were read at. `unchanged` when the server answered 304."""

    versions: dict[str, int]
    deleted: dict[str, list[str]]
    library_version: int
    unchanged: bool = False


@dataclass
class RequestCounts:
    reads: int = 0
    writes: int = 0

    @property
    def total(self) -> int:
        return self.reads + self.writes


class ZoteroClient:
    """The requests a sync makes, each retried within the policy's bounds."""

    def __init__(
        self,
        credentials: Credentials,
        *,
        endpoint: str = DEFAULT_ENDPOINT,
        timeout: float = 30.0,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        notice: Callable[[str], None] | None = None,
        run_timeout: float | None = None,
    ) -> None:
        self.credentials = credentials
        self.endpoint = check_endpoint(endpoint)
        self.deadline = None if run_timeout is None else time.monotonic() + run_timeout
        """`--timeout`: no request starts, and no retry waits, past this moment."""
        self.policy = policy or RetryPolicy()
        self.counts = RequestCounts()
        self._sleep = sleep
        say = notice or (lambda message: None)
        self._notice = lambda message: say(credentials.scrub(message))
        self.http = httpx2.Client(
            trust_env=False,
            transport=_FixedTimeout(timeout),
            event_hooks={"request": [self._count], "response": [self._rate_limited]},
        )
        self._reading = 0
        """Attempts of the pyzotero read under way (it retries a 429 on its own)."""
        self.zot = zotero.Zotero(
            credentials.library_id,
            credentials.library_type,
            credentials.api_key.reveal(),
            client=self.http,
        )
        self.zot.endpoint = self.endpoint
        self.prefix = f"/{credentials.library_type}s/{credentials.library_id}"

    def __repr__(self) -> str:
        return f"ZoteroClient(endpoint={self.endpoint!r}, library={self.prefix!r})"

    def close(self) -> None:
        self.http.close()

    def _rate_limited(self, response: httpx2.Response) -> None:
        """Say so when pyzotero meets a 429 inside a read: it waits and retries by itself,
        silently, and the user must see every wait as it happens."""
        if not self._reading or response.status_code != 429:
            return
        self._reading += 1
        wait = self._note_backoff(response.headers)
        self._notice(f"Zotero: 429, retrying in {wait:.0f} s (read, attempt {self._reading})")

    def _count(self, request: httpx2.Request) -> None:
        if request.method == "GET":
            self.counts.reads += 1
        else:
            self.counts.writes += 1

    # -- backoff -------------------------------------------------------------------------
    def _wait_backoff(self) -> None:
        remainder = self.zot.backoff_until - time.time()
        if remainder > 0:
            self._sleep(remainder)

    def _note_backoff(self, headers: httpx2.Headers) -> float:
        """Record Backoff/Retry-After (seconds) for every later request; return it."""
        seconds = 0.0
        for name in ("Backoff", "Retry-After"):
            value = headers.get(name)
            if value:
                try:
                    seconds = max(seconds, float(value))
                except ValueError:
                    continue
        if seconds:
            self.zot.backoff_until = max(self.zot.backoff_until, time.time() + seconds)
        return seconds

    def _retry(self, what: str, attempt: int, started: float, reason: str) -> None:
        """Wait before the next attempt, saying so on the notice channel; or give up."""
        if attempt + 1 >= self.policy.attempts or time.monotonic() - started > self.policy.total:
            raise ZoteroHTTPError(
                self.credentials.scrub(f"{what}: giving up after {attempt + 1} attempts ({reason})")
            )
        wait = max(self.policy.delay(attempt), self.zot.backoff_until - time.time())
        remaining = self._remaining()
        if remaining is not None and wait >= remaining:
            raise self._out_of_time(what)
        self._notice(
            f"Zotero: {reason}, retrying in {wait:.0f} s ({attempt + 2}/{self.policy.attempts})"
        )
        self._sleep(wait)

    def _remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _out_of_time(self, what: str) -> OperationError:
        return OperationError(f"Zotero: {what}: the run took longer than --timeout; stopped")

    def _check_deadline(self, what: str) -> None:
        remaining = self._remaining()
        if remaining is not None and remaining <= 0:
            raise self._out_of_time(what)

    def _unreachable(self, exc: httpx2.ConnectError) -> OperationError:
        """Connection refused or a name that does not resolve: no retry, one line, exit 1."""
        reason = str(exc).split("] ", 1)[-1] or type(exc).__name__
        return OperationError(f"cannot reach {self.endpoint}: {self.credentials.scrub(reason)}")

    # -- reads (pyzotero) ----------------------------------------------------------------
    def _read(self, what: str, call: Callable[[], Any]) -> Any:
        started = time.monotonic()
        for attempt in range(self.policy.attempts):
            self._check_deadline(what)
            self._wait_backoff()
            self._reading = 1
            try:
                result = call()
            except httpx2.ConnectError as exc:
                raise self._unreachable(exc) from None
            except (httpx2.TimeoutException, httpx2.TransportError) as exc:
                self._retry(what, attempt, started, type(exc).__name__)
                continue
            except ze.PyZoteroError as exc:
                response = self.zot.request
                status = response.status_code if response is not None else None
                if status in RETRYABLE or isinstance(exc, ze.TooManyRetriesError):
                    if response is not None:
                        self._note_backoff(response.headers)
                    self._retry(what, attempt, started, str(status))
                    continue
                raise self._refused(what, status, str(exc)) from None
            finally:
                self._reading = 0
            if self.zot.request is not None:
                self._note_backoff(self.zot.request.headers)
            return result
        raise ZoteroHTTPError(f"{what}: giving up")

    def _refused(self, what: str, status: int | None, detail: str) -> BibError:
        detail = self.credentials.scrub(detail.strip().splitlines()[-1] if detail else "")
        if status in (401, 403):
            return BibError(f"{what}: the Zotero API key was refused (HTTP {status})")
        return ZoteroHTTPError(f"{what}: HTTP {status}: {detail}", status)

    def _evict_stale_templates(self) -> None:
        """Drop cached templates before pyzotero's one-hour refresh path runs.

        Past an hour, pyzotero re-checks a cached template with a request that leaves
        out the query (no itemType, _client.py:577-591), which the API rejects with 400
        -> UnsupportedParamsError (errors.py:137); a fresh request is always valid.
        """
        now = dt.datetime.now(dt.UTC)
        for name, entry in list(self.zot.templates.items()):
            updated = entry.get("updated")
            if updated is None or now - updated > TEMPLATE_MAX_AGE:
                del self.zot.templates[name]

    def item_type_fields(self, item_type: str) -> frozenset[str]:
        self._evict_stale_templates()
        rows = self._read(f"fields of {item_type}", lambda: self.zot.item_type_fields(item_type))
        return frozenset(row["field"] for row in rows)

    def item_template(self, item_type: str) -> dict[str, Any]:
        self._evict_stale_templates()
        template: dict[str, Any] = self._read(
            f"template {item_type}", lambda: self.zot.item_template(item_type)
        )
        return template

    def changes_since(self, since: int) -> RemoteChanges:
        """Item versions and deletions after `since`: one request when nothing changed.

        The versions listing carries `If-Modified-Since-Version: since`, so an unchanged
        library answers 304 with no body (Web API v3, basics: "Caching"), and the deletion
        log is then not read at all (nothing can have been deleted without a new version).
        """
        response = self._send(
            "item versions",
            "GET",
            f"{self.prefix}/items",
            params={"since": str(since), "format": "versions", "includeTrashed": "1"},
            headers={"If-Modified-Since-Version": str(since)},
        )
        if response.status_code == 304:
            return RemoteChanges({}, {}, since, unchanged=True)
        if response.status_code != 200:
            raise self._refused("item versions", response.status_code, response.text)
        versions = {str(k): int(v) for k, v in response.json().items()}
        version = _int(response.headers.get("Last-Modified-Version")) or since
        return RemoteChanges(versions, self.deleted_since(since), version)

    def _library_version(self) -> int:
        """`Last-Modified-Version` of the last read (pyzotero keeps its response)."""
        response = self.zot.request
        return int(response.headers.get("Last-Modified-Version", 0)) if response else 0

    def deleted_since(self, since: int) -> dict[str, list[str]]:
        deleted: dict[str, list[str]] = self._read(
            "deleted objects", lambda: self.zot.deleted(since=since)
        )
        return deleted

    def versions_and_library(self, keys: list[str]) -> tuple[dict[str, int], int]:
        """Versions of up to 50 item keys, and the library version they were read at."""
        joined = ",".join(keys)
        got = self._read("read versions", lambda: self.zot.item_versions(itemKey=joined))
        return dict(got), self._library_version()

    def items_by_key(
        self, keys: Iterable[str], progress: Callable[[int, int], None] | None = None
    ) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        wanted = list(keys)
        for chunk in _chunks(wanted, MAX_OBJECTS):
            joined = ",".join(chunk)
            got: list[dict[str, Any]] = self._read(
                "fetch items",
                functools.partial(
                    self.zot.items, itemKey=joined, limit=MAX_OBJECTS, includeTrashed=1
                ),
            )
            found.update({item["key"]: item for item in got})
            if progress is not None:
                progress(len(found), len(wanted))
        return found

    def collections(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self._read(
            "collections", lambda: self.zot.everything(self.zot.collections())
        )
        return found

    def key_access(self) -> dict[str, Any]:
        """GET /keys/current (the key stays in a header).

        pyzotero's `key_info` puts the key into the URL path (_client.py:680), and its
        error messages print the URL (errors.py:194); this never does either.
        """
        response = self._send(f"connecting to {self.endpoint}", "GET", "/keys/current")
        if response.status_code in (401, 403):
            raise BibError("the Zotero API key was refused (HTTP 403)")
        if response.status_code != 200:
            raise ZoteroHTTPError(f"check the API key: HTTP {response.status_code}")
        info = response.json()
        return {"userID": info.get("userID"), "access": info.get("access", {})}

    # -- writes (httpx2, guarded) --------------------------------------------------------
    def _send(
        self,
        what: str,
        method: str,
        path: str,
        *,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
        params: dict[str, str] | None = None,
    ) -> httpx2.Response:
        """One request, retried on 429/5xx/timeouts/dropped connections; other codes returned."""
        started = time.monotonic()
        url = self.endpoint + path
        all_headers = {**self.zot.default_headers(), **(headers or {})}
        for attempt in range(self.policy.attempts):
            self._check_deadline(what)
            self._wait_backoff()
            try:
                response = self.http.request(
                    method, url, content=content, headers=all_headers, params=params
                )
            except httpx2.ConnectError as exc:
                raise self._unreachable(exc) from None
            except (httpx2.TimeoutException, httpx2.TransportError) as exc:
                self._retry(what, attempt, started, type(exc).__name__)
                continue
            self._note_backoff(response.headers)
            if response.status_code in RETRYABLE:
                self._retry(what, attempt, started, str(response.status_code))
                continue
            return response
        raise ZoteroHTTPError(f"{what}: giving up")

    def post(
        self,
        what: str,
        collection: str,
        objects: list[dict[str, Any]],
        *,
        write_token: str | None = None,
        body: bytes | None = None,
    ) -> WriteResult:
        """POST up to 50 objects; returns the status and the per-object write report.

        A repeated request (after a timeout or a dropped response) carries the same write
        token, so the server answers 412 instead of applying it twice. `body` is `objects`
        already encoded (see `encode`), so that the encoding can happen off the critical path.
        """
        if len(objects) > MAX_OBJECTS:
            raise ValueError(f"at most {MAX_OBJECTS} objects per write")
        headers = {"Content-Type": "application/json"}
        if write_token:
            headers["Zotero-Write-Token"] = write_token
        response = self._send(
            what,
            "POST",
            f"{self.prefix}/{collection}",
            content=body if body is not None else encode(objects),
            headers=headers,
        )
        version = _int(response.headers.get("Last-Modified-Version"))
        if response.status_code == 200:
            report = response.json()
            for name in ("successful", "success", "unchanged", "failed"):
                report.setdefault(name, {})
            return WriteResult(200, report, version)
        if response.status_code == 412:
            return WriteResult(412, {}, version)
        raise self._refused(what, response.status_code, response.text)

    def delete_items(self, keys: list[str], library_version: int) -> int | None:
        """DELETE up to 50 items under the library version (not an object version)."""
        response = self._send(
            "delete notes",
            "DELETE",
            f"{self.prefix}/items",
            params={"itemKey": ",".join(keys)},
            headers={"If-Unmodified-Since-Version": str(library_version)},
        )
        if response.status_code == 204:
            return _int(response.headers.get("Last-Modified-Version"))
        if response.status_code == 412:
            return None
        raise self._refused("delete notes", response.status_code, response.text)


def encode(objects: list[dict[str, Any]]) -> bytes:
    return jsonlib.dumps(objects, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def new_write_token() -> str:
    return uuid.uuid4().hex


def _int(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
