"""Where a CLI command reaches the index: in this process when DATA_DIR is free, else through the server holding it.

A DATA_DIR has one owner (app/process/ownership.py). A command that finds it free takes it for its run and opens the
stores itself (`LocalIndex`); one that finds a `librarian serve` holding it asks that server over HTTP
(`RemoteIndex`), so nothing on disk is touched twice; one that finds another CLI command holding it may still
read the watermark database (SQLite, safe to share) for `status`, and is refused everything else.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.process.data_dir_vault import check_vault
from app.process.ownership import DataDirOwnership, DataDirTaken, Owner
from core.data_dirs import default_data_dir
from core.domain import SearchFilters
from core.errors import InvalidRequest
from core.llm_endpoints import hosts_off_machine
from core.settings import Settings
from rag.notes.vault import check_vault_path

if TYPE_CHECKING:  # the stores and models load only for commands that run locally
    from app.services.service_client import ServiceClient
    from app.wiring import Services
    from core.ports import WatermarkStore

ProgressSink = Callable[[dict[str, Any]], None]


class LocalIndex:
    """The index opened in this process, which holds DATA_DIR for the command's run."""

    def __init__(self, settings: Settings, services: Services) -> None:
        self.settings = settings
        self.services = services

    def status(self) -> dict[str, Any]:
        """Return the index status as `librarian status --json` prints it."""
        from sync.index_status import read_stored_status

        services = self.services
        stored = read_stored_status(services.watermarks, services.store, services.docstore).to_json()
        data = self._decorate(stored)
        data["changed_since_last_run"] = changed_since_last_run(self.settings, services.watermarks)
        return data

    def search(self, query: str, *, k: int | None, folder: str | None, tags: list[str]) -> Found:
        """Return the hits for `query`, best first; refuses an empty index (no index runs beside this command)."""
        if not self.services.retriever.has_index():
            raise EmptyIndex()
        filters = SearchFilters(folder=(folder or "").strip("/") or None, tags=tuple(t.lstrip("#") for t in tags))
        return Found([hit.to_json() for hit in self.services.retriever.search(query, k=k, filters=filters)])

    def index(self, on_progress: Callable[[Any], None]) -> dict[str, Any]:
        """Index new and changed notes; return the run report (`ReindexReport.to_json()`)."""
        return self.services.reindexer.run_once(on_progress).to_json()

    def ask(self, question: str, write: Callable[[str], None]) -> None:
        """Answer in this process with the chat pipeline, writing the text as it streams."""
        from app.process.tracing import tracing_command
        from app.services.answering import stream_answer

        if not self.services.retriever.has_index():
            raise EmptyIndex()
        with tracing_command(self.settings):
            asyncio.run(stream_answer(self.settings, self.services, question, write))

    def _decorate(self, stored: dict[str, Any]) -> dict[str, Any]:
        return cli_status(self.settings, stored, configured_model=self.services.embedder.identity.model_id)


class RemoteIndex:
    """The index of the `librarian serve` that holds DATA_DIR, reached over its HTTP API."""

    def __init__(self, settings: Settings, client: ServiceClient) -> None:
        self.settings = settings
        self.client = client

    def status(self) -> dict[str, Any]:
        """Return the server's index status in the CLI's shape, naming the server."""
        status = self.client.status()
        data = cli_status(self.settings, status, configured_model=status.get("model"))
        data["service"] = {"url": self.client.owner.url, "pid": self.client.owner.pid}
        return data

    def search(self, query: str, *, k: int | None, folder: str | None, tags: list[str]) -> Found:
        """Return the server's hits for `query`, with what it says while it is still indexing the vault."""
        body = self.client.search(query, k=k, folder=folder, tags=tags)
        return Found(body["hits"], notice=body.get("notice"))

    def index(self, on_progress: Callable[[Any], None]) -> dict[str, Any]:
        """Have the server index now; its progress is drawn here while it runs."""
        from sync.report import Progress

        return self.client.index(lambda raw: on_progress(Progress(**raw)))

    def ask(self, question: str, write: Callable[[str], None]) -> None:
        """Ask the server's chat endpoint, writing the text as it streams."""
        for text in self.client.ask(question):
            write(text)


@dataclass(frozen=True, slots=True)
class Found:
    """A search's hits (as `SearchHit.to_json()` gives them), and what the server said about its index being built."""

    hits: list[dict[str, Any]]
    notice: str | None = None  # set while the server is indexing the vault: the hits may be missing notes, or none


class EmptyIndex(InvalidRequest):
    """Nothing is indexed yet."""

    def __init__(self) -> None:
        super().__init__("the index is empty: run `librarian index` first")


def cli_status(settings: Settings, stored: dict[str, Any], *, configured_model: object) -> dict[str, Any]:
    """Return the status in the shape `librarian status --json` has always printed, plus the newer fields."""
    return {
        "vault": str(settings.vault_path),
        "data_dir": str(settings.data_dir),
        "service": None,
        **stored,
        "configured_model": configured_model,
        "last_run": stored.get("last_report"),
        "errors": stored.get("file_errors", []),
        # From this process's settings: a server holding DATA_DIR reads the same environment and .env.
        "llm": {"leaves_machine": hosts_off_machine(settings.llm_base_url)},
        "reranker": settings.retrieval.reranker,  # None: hits keep their fused order
        # Set by a command that reads the vault itself; a server holding DATA_DIR catches up on its own.
        "changed_since_last_run": None,
    }


def changed_since_last_run(settings: Settings, watermarks: WatermarkStore) -> dict[str, int] | None:
    """Return the notes added, modified and deleted since the last index run (stat only), None before any run."""
    from sync.vault_changes import changes_since_last_run

    changes = changes_since_last_run(settings.vault, watermarks)
    return changes.to_json() if changes is not None else None


@contextmanager
def open_index(
    settings: Settings, command: str, *, on_wait: Callable[[], None], switch_vault: bool = False
) -> Iterator[LocalIndex | RemoteIndex | BusyIndex]:
    """Yield the way to the index for `command`: local, through the server holding DATA_DIR, or read-only.

    `switch_vault`: DATA_DIR may hold another vault's index, which this vault's then replaces.

    Raises:
        AppError: the vault folder is missing, the stores cannot be opened, or DATA_DIR (or the server holding it)
            belongs to another vault.

    """
    # Before DATA_DIR is taken: taking it records the vault in vault.json, and a mistyped path must not claim it.
    check_vault_path(settings.vault_path)
    try:
        ownership = DataDirOwnership.acquire(
            settings.data_dir, command, vault=settings.vault_path, switch_vault=switch_vault
        )
    except DataDirTaken as taken:
        owner = taken.owner
        if owner is not None and owner.is_server:
            with _remote(settings, owner, on_wait) as remote:
                yield remote
            return
        yield BusyIndex(settings, owner)
        return
    try:
        from app.wiring import build_services

        services = build_services(settings)
        try:
            yield LocalIndex(settings, services)
        finally:
            services.close()
    finally:
        ownership.release()


@contextmanager
def _remote(settings: Settings, owner: Owner, on_wait: Callable[[], None]) -> Iterator[RemoteIndex]:
    with remote_client(settings, owner, on_wait) as client:
        yield RemoteIndex(settings, client)


@contextmanager
def remote_client(settings: Settings, owner: Owner, on_wait: Callable[[], None]) -> Iterator[ServiceClient]:
    """Yield a client of the server holding DATA_DIR, refusing one that serves another vault."""
    from app.services.service_client import ServiceClient

    wanted = settings.vault_path.expanduser().resolve()
    if Path(owner.vault) != wanted:
        raise InvalidRequest(
            f"{owner.describe()} holds DATA_DIR {settings.data_dir} for the vault {owner.vault}, not {wanted}; "
            f"give this vault a DATA_DIR of its own (with DATA_DIR unset each vault gets one, here "
            f"{default_data_dir(wanted)})"
        )
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    client = ServiceClient(owner, settings.data_dir, api_key=api_key, on_wait=on_wait)
    try:
        yield client
    finally:
        client.close()


class BusyIndex:
    """DATA_DIR held by another CLI command: the watermark database may be read, the stores may not be opened."""

    def __init__(self, settings: Settings, owner: Owner | None) -> None:
        self.settings = settings
        self.owner = owner

    def status(self) -> dict[str, Any]:
        """Return what the watermarks say (no chunk count: the vector store belongs to the other process)."""
        from sync.index_status import read_stored_status
        from sync.watermarks import WATERMARKS_FILE, SqliteWatermarkStore

        check_vault(self.settings.data_dir, self.settings.vault_path)
        watermarks = SqliteWatermarkStore(self.settings.data_dir / WATERMARKS_FILE)
        try:
            stored = read_stored_status(watermarks, None, None).to_json()
            data = cli_status(self.settings, stored, configured_model=None)
            data["held_by"] = self.owner.describe() if self.owner else "another process"
            # The run flag of a live `librarian index` is its own run, not one that was cut short.
            if stored["interrupted"] and self.owner is not None and self.owner.command == "index":
                data.update(running=True, interrupted=False)
            else:
                data["changed_since_last_run"] = changed_since_last_run(self.settings, watermarks)
        finally:
            watermarks.close()
        return data

    def search(self, *_args: object, **_kwargs: object) -> Found:
        """Refuse: the index is open in the other process."""
        raise self._taken()

    def index(self, *_args: object, **_kwargs: object) -> dict[str, Any]:
        """Refuse: the index is open in the other process."""
        raise self._taken()

    def ask(self, *_args: object, **_kwargs: object) -> None:
        """Refuse: the index is open in the other process."""
        raise self._taken()

    def _taken(self) -> DataDirTaken:
        taken = DataDirTaken(self.settings.data_dir, self.owner)
        taken.message += "; wait for it to finish, or run `librarian serve` so commands can share the index"
        return taken
