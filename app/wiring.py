"""The one place that names concrete adapters: builds every service from `Settings`.

Adapters are imported where they are built, so a light command (`librarian changes`, `--help`) never pays for
numpy, ONNX or LangGraph.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from core.llm_endpoints import key_values
from core.ports import ChatModel, DocStore, Embedder, NoteWriter, VectorStore, WatermarkStore
from core.settings import Settings, WriteSettings

if TYPE_CHECKING:
    from crews.service import CrewService
    from edits.changelog import SqliteChangeLog
    from edits.lock import EditLock
    from edits.proposals import SqliteProposalStore
    from rag.notes.linkindex import SqliteLinkIndex
    from rag.retrieve import Retriever
    from sync.reindex import Reindexer

PROPOSALS_FILE = "proposals.sqlite"
CHANGES_FILE = "changes.sqlite"
SNAPSHOTS_DIR = "snapshots"
EDIT_LOCK_FILE = "edits.lock"
CREW_RUNS_DIR = "crews/runs"
CREW_COLLECT_ONLY_RUNS_DIR = "crews/collect-only-runs"  # dry runs without a model: they write nothing in the vault
CREW_LOCKS_DIR = "crews/locks"
CREW_APPROVALS_FILE = "crews/approvals.json"  # the schedules the user enabled (crews.teams.approvals)


@dataclass(frozen=True, slots=True)
class Services:
    """Every port instance the entry points need, built once and closed together."""

    settings: Settings
    embedder: Embedder
    store: VectorStore
    docstore: DocStore
    watermarks: WatermarkStore
    links: SqliteLinkIndex
    retriever: Retriever
    reindexer: Reindexer

    def close(self) -> None:
        """Release files and connections; one failing close does not keep the others open."""
        with ExitStack() as closing:
            for resource in (self.links, self.watermarks, self.docstore, self.store):
                closing.callback(resource.close)


def utc_now() -> datetime:
    """Return the current time in UTC (the production clock)."""
    return datetime.now(UTC)


def build_services(settings: Settings, *, embedder: Embedder | None = None) -> Services:
    """Build every service from settings; tests may pass a fake embedder.

    If one part fails to open, the parts already open are closed again (the embedded store holds a lock).
    """
    from rag.docstore import build_docstore
    from rag.embedding.embedders import build_embedder
    from rag.embedding.rerank import build_reranker
    from rag.indexer import NoteIndexer
    from rag.notes.linkindex import SqliteLinkIndex
    from rag.retrieve import Retriever
    from rag.stores import build_vector_store
    from sync.reindex import Reindexer
    from sync.watermarks import WATERMARKS_FILE, SqliteWatermarkStore

    data_dir = settings.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as opened:
        # The reranker first: the bundled embedder turns HF_HUB_OFFLINE on, and a named reranker may need one download.
        reranker = build_reranker(settings.retrieval)
        embedder = embedder or build_embedder(settings.embedding)
        store = build_vector_store(settings.store)
        opened.callback(store.close)
        docstore = build_docstore(settings.store)
        opened.callback(docstore.close)
        watermarks = SqliteWatermarkStore(data_dir / WATERMARKS_FILE)
        opened.callback(watermarks.close)
        links = SqliteLinkIndex(data_dir / "links.sqlite")
        opened.callback(links.close)
        indexer = NoteIndexer(embedder, overlap_tokens=settings.chunk_overlap_tokens)
        reindexer = Reindexer(
            vault=settings.vault,
            embedder=embedder,
            indexer=indexer,
            store=store,
            docstore=docstore,
            watermarks=watermarks,
            links=links,
            clock=utc_now,
        )
        retriever = Retriever(embedder, store, reranker, settings.retrieval, watermarks=watermarks)
        opened.pop_all()
    return Services(
        settings=settings,
        embedder=embedder,
        store=store,
        docstore=docstore,
        watermarks=watermarks,
        links=links,
        retriever=retriever,
        reindexer=reindexer,
    )


@dataclass(frozen=True, slots=True)
class EditServices:
    """What proposing, applying and undoing edits needs; `writer` None: the vault is read-only (WRITE_BACKEND=none)."""

    settings: WriteSettings
    store: SqliteProposalStore
    log: SqliteChangeLog
    writer: NoteWriter | None
    lock: EditLock

    def close(self) -> None:
        """Release the proposal store and the change log."""
        with ExitStack() as closing:
            closing.callback(self.store.close)
            closing.callback(self.log.close)


def build_note_writer(settings: Settings) -> NoteWriter | None:
    """Return the writer WRITE_BACKEND asks for (the plugin, files, or auto), or None for a read-only vault."""
    from edits.writers import build_writer

    return build_writer(settings.writes, settings.vault_path)


def open_change_log(settings: Settings) -> SqliteChangeLog:
    """Open the change log under DATA_DIR (created on first use)."""
    from edits.changelog import SqliteChangeLog

    return SqliteChangeLog(settings.data_dir / CHANGES_FILE, settings.data_dir / SNAPSHOTS_DIR)


def open_edit_lock(settings: Settings) -> EditLock:
    """Return the lock every apply and undo holds, shared by the server and the CLI through DATA_DIR."""
    from edits.lock import EditLock

    return EditLock(settings.data_dir / EDIT_LOCK_FILE)


def build_edit_services(settings: Settings) -> EditServices:
    """Open the proposal store and the change log under DATA_DIR and pick the writer; close with `close()`."""
    from edits.proposals import SqliteProposalStore

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    writer = build_note_writer(settings)
    with ExitStack() as opened:
        store = SqliteProposalStore(settings.data_dir / PROPOSALS_FILE)
        opened.callback(store.close)
        log = open_change_log(settings)
        opened.pop_all()
    return EditServices(settings=settings.writes, store=store, log=log, writer=writer, lock=open_edit_lock(settings))


def build_crew_service(
    settings: Settings,
    services: Services | None,
    edits: EditServices | None,
    chat_model: ChatModel | None,
    *,
    after_write: Callable[[], Awaitable[object]] | None,
) -> CrewService:
    """Return the crew service; without `services` and `edits` it only reads crews and run logs (CLI listings)."""
    from crews.collectors import COLLECTORS
    from crews.install import base_text
    from crews.logs.runlog import RunStore, runs_folder
    from crews.runs.run_deps import CrewDeps
    from crews.service import CrewService
    from crews.teams.approvals import ApprovalStore
    from llm_client import OpenAICompatibleChatModel
    from llm_client.completions.wire import estimate_tokens

    writer = edits.writer if edits is not None else build_note_writer(settings)
    # A read-only vault keeps its crews' run logs under DATA_DIR instead of writing them into the vault.
    folder = runs_folder(settings.vault_path, settings.crews.root) if writer else settings.data_dir / CREW_RUNS_DIR
    secrets = (*(s.get_secret_value() for s in (settings.api_key, settings.redis_url) if s), *key_values(settings.llm))
    context = chat_model.context_window if isinstance(chat_model, OpenAICompatibleChatModel) else None
    deps = CrewDeps(
        vault=settings.vault,
        writes=settings.writes,
        crews=settings.crews,
        writer=writer if edits is not None else None,
        log=edits.log if edits is not None else None,
        lock=edits.lock if edits is not None else open_edit_lock(settings),
        store=RunStore(folder, secrets=secrets, base_text=base_text()),
        collect_only_store=RunStore(settings.data_dir / CREW_COLLECT_ONLY_RUNS_DIR, secrets=secrets),
        clock=local_now,
        count_tokens=estimate_tokens,
        chat_model=chat_model,
        search=(lambda query, k, filters: services.retriever.search(query, k=k, filters=filters)) if services else None,
        context_tokens=context,
        after_write=after_write,
    )
    return CrewService(
        deps,
        locks_dir=settings.data_dir / CREW_LOCKS_DIR,
        collectors=tuple(COLLECTORS),
        approvals=ApprovalStore(settings.data_dir / CREW_APPROVALS_FILE),
    )


def local_now() -> datetime:
    """Return the local time (crews run on the user's day, not UTC's)."""
    return datetime.now().astimezone()
