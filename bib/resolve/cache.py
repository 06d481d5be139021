"""A response cache on disk, so that a re-run or `--offline` needs no network.

One JSON file per request (named by a hash of method, URL, parameters and body) under
`BIB_CACHE_DIR`, default the user cache directory. Entries expire after `TTL_DAYS`; a file
that cannot be read is treated as missing and rewritten, never fatal.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from bib.atomic import write_atomic

TTL_DAYS = 30
"""Accepted papers' metadata rarely changes within a month; a month keeps re-runs offline."""


@dataclass(frozen=True, slots=True)
class Cached:
    status: int
    body: str
    fetched: float


def default_dir() -> Path:
    configured = os.environ.get("BIB_CACHE_DIR")
    if configured:
        return Path(configured)
    return Path(platformdirs.user_cache_dir("bib")) / "resolve"


def request_key(method: str, url: str, params: dict[str, str], body: str = "") -> str:
    text = json.dumps([method, url, sorted(params.items()), body], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Cache:
    """Responses by request key; `ttl` in seconds (None: never expire)."""

    def __init__(self, directory: Path | None = None, *, ttl: float | None = TTL_DAYS * 86400):
        self.directory = directory or default_dir()
        self.ttl = ttl

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str, *, now: float | None = None) -> Cached | None:
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            entry = Cached(int(data["status"]), str(data["body"]), float(data["fetched"]))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)
            return None
        current = time.time() if now is None else now
        if self.ttl is not None and current - entry.fetched > self.ttl:
            return None
        return entry

    def put(self, key: str, status: int, body: str) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"status": status, "body": body, "fetched": time.time()}
        write_atomic(path, json.dumps(payload, ensure_ascii=False))
