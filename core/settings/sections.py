"""The sub-settings each layer receives: frozen, and without defaults (every value comes from `Settings`).

Tests build them from `Settings(_env_file=None, ...)` (e.g. `settings.llm`), so a default is written once, on the
environment variable's field (core/settings/*_fields.py), and cannot drift between the two.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, SecretStr


class VaultSettings(BaseModel):
    """Where the vault is and which of its files are indexed."""

    model_config = ConfigDict(frozen=True)

    path: Path
    ignore_globs: tuple[str, ...]
    max_note_bytes: int
    private_folders: tuple[str, ...]  # never indexed, never read by a tool, never sent to an LLM
    max_note_chunks: int  # a note that makes more keeps its first ones, reported in the status
    redact_secrets: bool  # credentials in note text are masked in what the read tools show


class EmbeddingSettings(BaseModel):
    """Which dense model embeds chunks, and how chunks are sized for it."""

    model_config = ConfigDict(frozen=True)

    model: str
    threads: int | None
    batch_size: int
    overlap_tokens: int
    cache_dir: Path


class RetrievalSettings(BaseModel):
    """How hybrid search fuses and reranks."""

    model_config = ConfigDict(frozen=True)

    top_k: int
    prefetch_limit: int
    rrf_k: int
    reranker_model_dir: Path | None
    rerank_candidates: int
    reranker_model: str | None  # a fastembed cross-encoder name, downloaded into reranker_cache_dir
    reranker_cache_dir: Path
    redact_secrets: bool  # credentials in chunk text are masked in every hit returned
    max_chunks_per_note: int  # among the top k; 0: no limit (a long note may fill every slot)

    @property
    def reranker(self) -> str | None:
        """Return the cross-encoder hits are reranked with (RERANKER_MODEL or _DIR); None: they keep RRF's order."""
        if self.reranker_model:
            return self.reranker_model
        return str(self.reranker_model_dir) if self.reranker_model_dir else None


class StoreSettings(BaseModel):
    """Where the index, docstore and watermarks live."""

    model_config = ConfigDict(frozen=True)

    data_dir: Path
    qdrant_url: str | None
    qdrant_api_key: SecretStr | None
    qdrant_collection: str
    redis_url: SecretStr | None  # a Redis URL may carry a password


class ServerSettings(BaseModel):
    """The HTTP edge: address, auth, CORS, limits, streaming keep-alive."""

    model_config = ConfigDict(frozen=True)

    host: str
    port: int
    api_key: SecretStr | None
    cors_origins: tuple[str, ...]
    max_body_bytes: int
    keepalive_seconds: float
    shutdown_grace_seconds: int


class SyncSettings(BaseModel):
    """The background re-indexer: interval and file watcher."""

    model_config = ConfigDict(frozen=True)

    interval_minutes: float
    watch: bool
    watch_debounce_ms: int


class AnswerSettings(BaseModel):
    """How answers are grounded: relevance floor, sources list, agent limits."""

    model_config = ConfigDict(frozen=True)

    relevance_floor: float  # over the vault's noise level; below it "the notes don't cover this", no LLM call
    relevance_term_weight: float  # the floor rises by this much when the notes hold none of the words
    show_sources: bool
    show_evidence: bool  # "Your notes say:" under answers, chosen by code (rag/answer/evidence)
    passage_chars: int  # note text sent with each question (rag/answer/context.build_context), at most
    first_token_seconds: float  # the time the model may take to read it (agent/passage_budget.py; 0: no limit)
    neighbour_chunks: int  # chunks around the best hit that may fill the room left (rag/answer/neighbours.py)
    quote_first: bool  # questions answered without tools quote the passages first (agent/quoting)
    check_answers: bool  # a plain answer's opening is shown only when the notes bear it out (agent/opening_check)
    recursion_limit: int


class WriteSettings(BaseModel):
    """How and where edits may be written."""

    model_config = ConfigDict(frozen=True)

    backend: Literal["auto", "rest", "files", "none"]
    obsidian_api_url: str
    obsidian_api_key: SecretStr | None
    writable_folders: tuple[str, ...]
    private_folders: tuple[str, ...]
    confirm: bool
    proposal_ttl_minutes: float
    max_writes_per_turn: int
    max_note_bytes: int
    crews_root: str  # CREWS_ROOT: in the fixed denylist, so an edit never changes a crew's definition or logs


class CrewSettings(BaseModel):
    """Where crews live in the vault and what any run may do at most."""

    model_config = ConfigDict(frozen=True)

    root: str  # vault-relative folder of team and agent notes (and their run logs)
    max_writes: int  # caps every team's max_writes
    run_logs_keep: int  # run logs kept per crew; 0: all (crews.logs.run_retention)
    context_tokens: int | None  # the model's context window when the endpoint does not say it


class TracingSettings(BaseModel):
    """Where OpenTelemetry spans go (OTLP over HTTP), and whether they may hold note text and prompts."""

    model_config = ConfigDict(frozen=True)

    endpoint: str | None  # None: tracing is off and nothing of OpenTelemetry is imported
    headers: SecretStr | None  # "key=value,..." sent with every export (an API key, Basic auth)
    service_name: str
    records_content: bool  # prompts, replies, note text, tool arguments and results, redacted


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


class LlmSettings(BaseModel):
    """Which OpenAI-compatible endpoints answer, and how patiently."""

    model_config = ConfigDict(frozen=True)

    base_urls: tuple[str, ...]  # tried in order; the first that answers wins
    api_key: SecretStr | None  # LLM_API_KEY: the one endpoint's (or the local server's that probing finds)
    endpoint_keys: tuple[tuple[str, SecretStr], ...]  # LLM_API_KEYS: (base URL, key), see keys_by_endpoint
    model: str | None  # None: the first model the endpoint lists
    connect_timeout_seconds: float
    read_timeout_seconds: float
    retries: int  # connection failures before the first token, with backoff
    probe_local_ports: bool  # with no base URL: look for LM Studio (1234) and Ollama (11434) once at start
    tools: Literal["auto", "on", "off"]  # auto: offered until the model shows it does not call them
    context_tokens: int | None  # the model's context window when the endpoint does not say it
    warm_up: bool  # at start, have the server evaluate (and cache) the stable prompt prefix
    max_tokens: int  # the longest chat reply per model call (max_tokens), also kept free in the context
    temperature: float | None  # sent with every call; None: the server's default
