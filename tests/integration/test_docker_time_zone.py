"""The container's time zone: the host's TZ reaches the app and its clocks, and the image has the zone database."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.integration.test_docker_config import ROOT, TEST_ENV, container_environment, dockerfile_stages


def _local_clocks(env: Mapping[str, str]) -> list[str]:
    """Return the UTC offset of the app's local clock and the crew scheduler's zone, in a process with `env`."""
    code = (
        "from app.wiring import local_now; from apscheduler.schedulers.asyncio import AsyncIOScheduler; "
        "print(local_now().utcoffset().total_seconds()); print(AsyncIOScheduler().timezone)"
    )
    base = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}
    done = subprocess.run(
        [sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_host_time_zone_reaches_the_app_and_its_clocks() -> None:
    # "Today", daily notes and crew schedules such as 07:00 are the user's local time, not the container's UTC.
    container = container_environment({**TEST_ENV, "TZ": "Pacific/Auckland"})
    offset, zone = _local_clocks({"TZ": container["TZ"]})

    assert container["TZ"] == "Pacific/Auckland"
    assert float(offset) in (12 * 3600, 13 * 3600) and zone == "Pacific/Auckland"
    assert container_environment()["TZ"] == "UTC"  # no TZ on the host or in .env: UTC, as before


def test_the_image_build_fails_without_a_time_zone_database(tmp_path: Path) -> None:
    # The python:3.11-slim images install tzdata; TZ without it would silently mean UTC, so the build checks.
    runtime = dockerfile_stages()[-1]
    (check,) = [args for name, args in runtime if name == "RUN" and "tm_gmtoff" in args]
    base = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}
    without_zones = tmp_path / "zoneinfo"
    without_zones.mkdir()

    assert _exit_code_in(["sh", "-c", check], base) == 0  # this machine has the time zone database
    assert _exit_code_in(["sh", "-c", check], {**base, "TZDIR": str(without_zones)}) != 0


def _exit_code_in(command: list[str], env: Mapping[str, str]) -> int:
    return subprocess.run(command, capture_output=True, env=dict(env), timeout=60).returncode
