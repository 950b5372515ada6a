"""A private redis-server process that a test may stop, restart (empty, as without persistence) or flush."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from tests.scripted_llm import free_port


class PrivateRedis:
    """One redis-server on 127.0.0.1 with nothing on disk, so a restart loses every key (like a cache restart)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._workdir = workdir
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server and wait until it answers PING."""
        self._workdir.mkdir(parents=True, exist_ok=True)
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self._process = subprocess.Popen(
            [*command, "--dir", str(self._workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the private redis-server did not start") from None
                time.sleep(0.05)
            finally:
                client.close()

    def stop(self) -> None:
        """Kill the server (its keys are gone: nothing is persisted)."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None

    def flushall(self) -> None:
        """Empty every database, as `redis-cli FLUSHALL` does."""
        client = redis.Redis.from_url(self.url)
        try:
            client.flushall()
        finally:
            client.close()


@contextmanager
def private_redis(workdir: Path) -> Iterator[PrivateRedis]:
    """Yield a started private Redis (skipped when redis-server is not installed, failed under CI)."""
    if shutil.which("redis-server") is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed; CI must run the Redis outage tests")
        pytest.skip("redis-server is not installed")
    server = PrivateRedis(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()
