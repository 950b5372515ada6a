"""A `librarian serve` of its own for an eval: a scratch copy of the vault, a temporary DATA_DIR, a free port.

The server is a separate process, as users run it, so the eval measures the service and not a test harness. It
serves a copy of the vault with proposals that wait for a yes, so no eval can change the vault it was pointed at.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from core.errors import UpstreamUnavailable
from rag.notes.vault import check_vault_path

STOP_SECONDS = 30.0
_POLL_SECONDS = 0.25
LOG_TAIL_CHARS = 2_000


def free_port() -> int:
    """Return a port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(vault: Path, data_dir: Path, port: int, *, llm_base_url: str | None, no_llm: bool) -> dict[str, str]:
    """Return the environment of the eval's server: this one's, pointed at the copies, writes waiting for a yes."""
    env = {
        **os.environ,
        "VAULT_PATH": str(vault),
        "DATA_DIR": str(data_dir),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WRITE_BACKEND": "files",  # never the Obsidian plugin: it writes to the vault Obsidian has open
        "WRITE_CONFIRM": "true",
        "WATCH": "false",
    }
    if no_llm:
        env |= {"LLM_BASE_URL": "", "LLM_PROBE_LOCAL_PORTS": "false"}
    elif llm_base_url:
        env["LLM_BASE_URL"] = llm_base_url
    return env


@contextmanager
def started_service(
    vault: Path,
    *,
    api_key: str | None,
    llm_base_url: str | None = None,
    no_llm: bool = False,
    startup_seconds: float = 600.0,
    announce: Callable[[str], None] = lambda _line: None,
) -> Iterator[str]:
    """Serve a scratch copy of `vault` until the block ends; yield the base URL once the first index is built."""
    check_vault_path(vault)
    with tempfile.TemporaryDirectory(prefix="librarian-eval-") as tmp:
        scratch = Path(tmp) / "vault"
        shutil.copytree(vault, scratch, symlinks=True)
        port = free_port()
        env = server_env(scratch, Path(tmp) / "data", port, llm_base_url=llm_base_url, no_llm=no_llm)
        log_path = Path(tmp) / "serve.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "app.cli.main", "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
            )
        url = f"http://127.0.0.1:{port}"
        try:
            announce(f"started librarian serve on {url} over a copy of {vault} (log: {log_path})")
            _wait_until_indexed(url, process, log_path, api_key=api_key, timeout=startup_seconds)
            yield url
        finally:
            _stop(process)


def _wait_until_indexed(
    url: str, process: subprocess.Popen[bytes], log_path: Path, *, api_key: str | None, timeout: float
) -> None:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(timeout, connect=5.0)) as http:
        while True:
            if process.poll() is not None:
                raise UpstreamUnavailable("the eval's librarian serve", f"it exited:\n{_tail(log_path)}")
            try:
                if http.get("/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass  # not listening yet (models still loading)
            if time.monotonic() > deadline:
                raise UpstreamUnavailable("the eval's librarian serve", f"not up after {timeout:.0f} s")
            time.sleep(_POLL_SECONDS)
        # Answers the report of a run started after the one at start-up: the whole vault is indexed by then.
        response = http.post("/v1/index")
        if response.status_code != 200:
            raise UpstreamUnavailable("the eval's librarian serve", f"indexing failed: {response.text[:300]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _tail(log_path: Path) -> str:
    text = log_path.read_text(encoding="utf-8", errors="replace")
    return text[-LOG_TAIL_CHARS:]
