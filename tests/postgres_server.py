"""A throwaway PostgreSQL server for the tests: Debian's binaries, a temporary data
directory, 127.0.0.1 on a free port, trust authentication, removed afterwards.

initdb refuses to run as root, so as root the server runs as the `postgres` user
(`runuser`). `BIB_TEST_POSTGRES_URL` (a superuser URL) replaces the throwaway server.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Server:
    url: str
    """A superuser URL to the `postgres` database."""

    def database(self, name: str) -> str:
        return self.url.rsplit("/", 1)[0] + "/" + name


class Unavailable(Exception):
    """Why no server could be had."""


def binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise Unavailable("no PostgreSQL server binaries (apt-get install postgresql; see .ci/run)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def throwaway(*, durable: bool = False) -> Iterator[Server]:
    """A server for the tests (fsync off: nothing there must outlive the machine), or with
    `durable` one that syncs as a lab's server does (for benchmarks)."""
    given = os.environ.get("BIB_TEST_POSTGRES_URL")
    if given:
        yield Server(given)
        return
    bin_dir = binaries()
    root = os.geteuid() == 0
    if root and shutil.which("runuser") is None:
        raise Unavailable("running as root without runuser, and initdb refuses root")
    prefix = ["runuser", "-u", "postgres", "--"] if root else []
    home = Path(tempfile.mkdtemp(prefix="bib-pg-"))
    if root:
        shutil.chown(home, "postgres", "postgres")
    data = home / "data"
    port = _free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, check=False)
        if done.returncode:
            raise Unavailable(f"{Path(args[0]).name} failed: {done.stderr.strip()[-300:]}")

    try:
        run(
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-instructions",
            "--locale=C.UTF-8",
        )
        options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1"
        if not durable:
            options += " -c fsync=off"
        run(
            str(bin_dir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(home / "log"),
            "-w",
            "start",
        )
        try:
            yield Server(f"postgresql://postgres@127.0.0.1:{port}/postgres")
        finally:
            subprocess.run(
                [
                    *prefix,
                    str(bin_dir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ],
                capture_output=True,
                check=False,
            )
    finally:
        shutil.rmtree(home, ignore_errors=True)
