"""The one HTTP layer every source goes through: cache, per-host rate limits, Retry-After,
bounded retries and timeouts, and offline mode.

A source asks for a URL; the answer comes from the cache when it holds one, else from the
network (only when the session is online). 429 and 5xx are retried after the server's
`Retry-After` or an exponential back-off, at most `retries` times, each wait reported on
standard error.
"""

from __future__ import annotations

import email.utils
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from bib.errors import BibError, OperationError
from bib.resolve.cache import Cache, request_key

USER_AGENT = "bib/0.1 (+https://github.com/; reference manager)"


def base_url(variable: str, default: str) -> str:
    """A source's base URL: `variable` from the environment (tests, mirrors), else `default`;
    a value that is no http(s) URL is bad usage (exit 2) naming the variable, before any
    request."""
    value = os.environ.get(variable) or default
    try:
        url = httpx.URL(value)
        port = url.port
    except (httpx.InvalidURL, ValueError) as exc:
        raise BibError(f"{variable}={value!r} is not a valid URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host or not 0 < (port or 80) < 65536:
        raise BibError(f"{variable} must be an http(s) URL with a host, not {value!r}")
    return value.rstrip("/")


class Offline(OperationError):
    """A request the cache cannot answer while the session is offline."""


class SourceFault(OperationError):
    """A source answered with an error, or not at all, after every retry."""


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    text: str
    from_cache: bool


@dataclass(slots=True)
class HostLimit:
    """At most one request every `interval` seconds to one host, and one at a time: `lock`
    is held from the wait to the answer, so threads asking different hosts run side by side
    while each host sees its own published pace."""

    interval: float
    last: float = float("-inf")
    lock: threading.Lock = field(default_factory=threading.Lock)


def host_of(url: str) -> str:
    return urlsplit(url).netloc


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from `Retry-After`: delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def _say(message: str) -> None:
    print(message, file=sys.stderr)


@dataclass
class Http:
    """Shared by all sources of one run; counts the requests that went to the network."""

    cache: Cache
    online: bool = False
    intervals: dict[str, float] = field(default_factory=dict)
    retries: int = 3
    timeout: float = 20.0
    max_wait: float = 120.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    report: Callable[[str], None] = _say
    transport: httpx.BaseTransport | None = None
    network_requests: int = 0
    _limits: dict[str, HostLimit] = field(default_factory=dict)
    _client: httpx.Client | None = None
    _guard: threading.Lock = field(default_factory=threading.Lock)

    def client(self) -> httpx.Client:
        with self._guard:
            return self._open_client()

    def _open_client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                timeout=self.timeout,
                headers={"User-Agent": USER_AGENT},
                transport=self.transport,
                follow_redirects=True,
            )
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def _limit(self, host: str) -> HostLimit:
        with self._guard:
            return self._limits.setdefault(host, HostLimit(self.intervals.get(host, 0.0)))

    def _wait_turn(self, limit: HostLimit) -> None:
        """Called with `limit.lock` held."""
        wait = limit.last + limit.interval - self.clock()
        if wait > 0:
            self.sleep(wait)
        limit.last = self.clock()
        with self._guard:
            self.network_requests += 1

    def request(
        self,
        method: str,
        url: str,
        params: dict[str, str] | None = None,
        *,
        json_body: str = "",
        headers: dict[str, str] | None = None,
        source: str = "",
        secret: tuple[str, ...] = (),
    ) -> Response:
        """The response (any status below 500 but 429) to one request, from the cache if held.

        Parameters named in `secret` (an API key) are sent but left out of the cache key, so
        a new key still finds the cached answers and no key ever reaches the cache."""
        params = params or {}
        public = {k: v for k, v in params.items() if k not in secret}
        key = request_key(method, url, public, json_body)
        cached = self.cache.get(key)
        if cached is not None:
            return Response(cached.status, cached.body, from_cache=True)
        if not self.online:
            raise Offline(f"{source or url}: not in the cache and the network was not asked for")
        host = host_of(url)
        name = source or host
        limit = self._limit(host)
        with limit.lock:
            return self._send(limit, key, method, url, params, json_body, headers or {}, name)

    def _send(
        self,
        limit: HostLimit,
        key: str,
        method: str,
        url: str,
        params: dict[str, str],
        json_body: str,
        headers: dict[str, str],
        name: str,
    ) -> Response:
        problem = ""
        for attempt in range(self.retries + 1):
            self._wait_turn(limit)
            try:
                answer = self.client().request(
                    method,
                    url,
                    params=params,
                    content=json_body.encode("utf-8") if json_body else None,
                    headers={
                        **headers,
                        **({"Content-Type": "application/json"} if json_body else {}),
                    },
                )
            except httpx.TimeoutException:
                problem, wait = "timed out", 2.0**attempt
            except httpx.TransportError as exc:
                if attempt == self.retries:
                    raise SourceFault(f"{name}: no connection ({exc.__class__.__name__})") from exc
                problem, wait = f"connection failed ({exc.__class__.__name__})", 2.0**attempt
            else:
                if answer.status_code != 429 and answer.status_code < 500:
                    self.cache.put(key, answer.status_code, answer.text)
                    return Response(answer.status_code, answer.text, from_cache=False)
                problem = f"HTTP {answer.status_code}"
                told = retry_after(answer.headers.get("Retry-After"), time.time())
                wait = told if told is not None else 2.0**attempt
            if attempt == self.retries:
                break
            wait = min(wait, self.max_wait)
            self.report(
                f"bib: {name}: {problem}, retrying in {wait:.0f} s ({attempt + 1}/{self.retries})"
            )
            self.sleep(wait)
        raise SourceFault(f"{name}: {problem} after {self.retries + 1} attempts")


class Malformed(SourceFault):
    """A source answered in a shape its documentation does not describe."""
