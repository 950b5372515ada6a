"""Serving the stand-in over a vault folder on 127.0.0.1 (plain HTTP, the plugin's 27123 mode)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import TracebackType

from tests.live_server import serve_in_thread
from tests.obsidian_standin.app import RecordedRequest, StandinState, create_standin_app
from tests.obsidian_standin.errors import Flavor
from tests.obsidian_standin.vault_files import VaultFolder


class StandinVault:
    """A running stand-in: `base_url`, `api_key` and the `requests` it received, in order."""

    def __init__(self, vault_path: Path, *, api_key: str = "k", flavor: Flavor = "4.1.7") -> None:
        self.api_key = api_key
        self.state = StandinState(folder=VaultFolder(vault_path), api_key=api_key, flavor=flavor)
        self.base_url = ""
        self._serving: AbstractContextManager[str] | None = None

    @property
    def requests(self) -> list[RecordedRequest]:
        """Return the requests received so far."""
        return self.state.requests

    @property
    def auth_headers(self) -> dict[str, str]:
        """Return the header that authenticates a request."""
        return {"Authorization": f"Bearer {self.api_key}"}

    def __enter__(self) -> StandinVault:
        self._serving = serve_in_thread(create_standin_app(self.state))
        self.base_url = self._serving.__enter__()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._serving is not None:
            self._serving.__exit__(exc_type, exc, traceback)
            self._serving = None


@contextmanager
def obsidian_standin(vault_path: Path, *, api_key: str = "k", flavor: Flavor = "4.1.7") -> Iterator[str]:
    """Serve `vault_path` like the Local REST API plugin; yield the base URL (http://127.0.0.1:PORT)."""
    with StandinVault(vault_path, api_key=api_key, flavor=flavor) as standin:
        yield standin.base_url
