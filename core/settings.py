"""The one `Settings` of the service, read from environment variables (and `.env`), validated at startup."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.data_dirs import DEFAULT_VAULT, check_separate_dirs, data_dir_of
from core.llm_endpoints import DEFAULT_DENIED_PORTS, EndpointKeys, Ports, check_llm_endpoints
from core.llm_endpoints import LlmSettings as LlmSettings  # the LLM sub-model lives beside its rules

BUNDLED_EMBED_MODEL = "bundled/all-MiniLM-L6-v2-int8"
# Embedding costs about the same per full chunk, so this bounds what one note costs: 500 full 256-token chunks
# took 53 s on 2 busy cores (bench/hostile_notes.py), 2,067 took 163 s. The largest of 3,105 real notes (three
# public vaults and sample_vault) makes 171 chunks, the 99.9th percentile 135; a note over the limit keeps its
# first 500 chunks (about 290 kB of prose) and is reported.
MAX_NOTE_CHUNKS = 500


class VaultSettings(BaseModel):
    """Where the vault is and which of its files are indexed."""

    model_config = ConfigDict(frozen=True)

    path: Path
    ignore_globs: tuple[str, ...] = ()
    max_note_bytes: int
    private_folders: tuple[str, ...] = ()  # never indexed, never read by a tool, never sent to an LLM
    max_note_chunks: int = MAX_NOTE_CHUNKS  # a note that makes more keeps its first ones, reported in the status
    redact_secrets: bool = True  # credentials in note text are masked in what the read tools show


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
    reranker_model: str | None = None  # a fastembed cross-encoder name, downloaded into reranker_cache_dir
    reranker_cache_dir: Path = Path("./data/models")
    redact_secrets: bool = True  # credentials in chunk text are masked in every hit returned
    max_chunks_per_note: int = 2  # among the top k; 0: no limit (a long note may fill every slot)

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
    relevance_term_weight: float = 0.0  # the floor rises by this much when the notes hold none of the words
    show_sources: bool
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


class Settings(BaseSettings):
    """Every setting, from environment variables named as in the README (e.g. `VAULT_PATH`)."""

    # Inputs stay out of error text: pydantic would quote every setting given, keys included.
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, hide_input_in_errors=True)

    vault_path: Path = Field(DEFAULT_VAULT, description="The Obsidian vault to index.")
    # Unset: a folder of its own per vault, the same whatever the working directory (core/data_dirs.py).
    data_dir: Path = Field(default_factory=data_dir_of, description="The index and its stores; never inside the vault.")
    ignore_globs: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Comma-separated globs (vault-relative) to skip, e.g. 'Templates/**,*.excalidraw.md'."
    )
    max_note_bytes: int = Field(2_000_000, gt=0, description="Notes larger than this are skipped with an error.")
    max_note_chunks: int = Field(
        MAX_NOTE_CHUNKS, gt=0, description="Chunks indexed per note at most; a note over it keeps its first ones."
    )
    embed_model: str = Field(BUNDLED_EMBED_MODEL, description="Bundled offline model, or a fastembed model name.")
    embed_threads: int | None = Field(None, gt=0, description="ONNX threads for embedding (default: all cores).")
    # Measured on 2 cores with the int8 MiniLM: batch 1 embeds fastest and uses least memory (no padding);
    # batch 32 was 1.7x slower and peaked at 1.6 GB. Larger machines may gain from larger batches.
    embed_batch_size: int = Field(1, gt=0, description="Texts per ONNX call (texts are grouped by length).")
    chunk_overlap_tokens: int = Field(32, ge=0)
    qdrant_url: str | None = Field(None, description="Qdrant server URL; unset = embedded qdrant-edge.")
    qdrant_api_key: SecretStr | None = None
    qdrant_collection: str = "vault"
    redis_url: SecretStr | None = Field(None, description="Redis URL for the docstore; unset = SQLite.")
    reranker_model_dir: Path | None = Field(None, description="Folder of a cross-encoder ONNX model.")
    reranker_model: str | None = Field(None, description="fastembed cross-encoder name, fetched into DATA_DIR/models.")
    rerank_candidates: int = Field(20, gt=0)
    top_k: int = Field(6, gt=0)
    prefetch_limit: int = Field(50, gt=0)
    rrf_k: int = Field(10, gt=0)  # not Qdrant's 60: better on all four vaults' question sets (README, Benchmarks)
    # 2: on the question sets of the three ../shared/vaults (bench/questions/, `python -m bench.retrieval_quality`)
    # recall@6 0.957 -> 0.981 and distinct notes per answer 3.0 -> 4.3 of 6. 1 finds as many notes (0.986) but
    # keeps one section of each, where answers often need two of one note; 3 misses second notes again.
    max_chunks_per_note: int = Field(
        2, ge=0, description="At most this many chunks of one note among the top k hits (0: no limit)."
    )
    llm_base_url: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated OpenAI-compatible base URLs (http://localhost:11434/v1); first answering wins.",
    )
    llm_api_key: SecretStr | None = Field(None, description="The key of the one LLM_BASE_URL endpoint.")
    llm_api_keys: EndpointKeys = Field((), description="'URL=key,...': each endpoint's own key.")
    llm_denied_ports: Ports = Field(DEFAULT_DENIED_PORTS, description="LLM_BASE_URL ports refused (empty: none).")
    llm_model: str | None = Field(None, description="Model name; unset = the first model the endpoint lists.")
    llm_connect_timeout_seconds: float = Field(5.0, gt=0)
    llm_read_timeout_seconds: float = Field(120.0, gt=0)
    llm_retries: int = Field(2, ge=0)
    llm_probe_local_ports: bool = Field(True, description="With no LLM_BASE_URL, look for LM Studio and Ollama.")
    llm_tools: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Offer tools to the chat model: auto stops for a model that makes no tool call and gives an "
        "unusable reply when offered them (then one completion per turn from the retrieved passages).",
    )
    llm_max_tokens: int = Field(
        2048,
        ge=64,
        description="The longest reply the chat model may write per call (sent as max_tokens, and kept free in its "
        "context): a small model that repeats itself stops there instead of running until its context is full.",
    )
    llm_temperature: float | None = Field(
        0.2,
        ge=0,
        le=2,
        description="Sampling temperature sent with every model call (unset: the server's default, often 0.8 or 1). "
        "Low keeps answers to what the notes say; an endpoint that refuses it is asked again without it.",
    )
    llm_warm_up: bool = Field(
        True,
        description="At start, send the model the stable prompt prefix (instructions and tool schemas) and stop at its "
        "first token: its prompt cache then holds the prefix, and a local server has loaded the model.",
    )
    host: str = "127.0.0.1"
    port: int = Field(8000, gt=0, lt=65536)
    api_key: SecretStr | None = Field(None, description="Bearer key required on /v1/* when set.")
    cors_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        ("app://obsidian.md", "http://localhost", "http://127.0.0.1"),
        description="Allowed browser origins (localhost and 127.0.0.1 on any port are always allowed); never '*'.",
    )
    max_body_bytes: int = Field(1_000_000, gt=0)
    keepalive_seconds: float = Field(2.0, gt=0)
    sync_interval_minutes: float = Field(15, gt=0)
    watch: bool = True
    watch_debounce_ms: int = Field(1000, ge=0)
    # Chosen with `python -m bench.relevance_floor --choose-on sample_vault` (bundled int8 MiniLM) and judged on
    # the three vaults in ../shared/vaults (README table): no false refusal on any of the four. A question is
    # covered when its best dense cosine reaches the vault's noise level (the median best cosine of everyday
    # probe questions, rag/answer/vault_noise.py) plus RELEVANCE_FLOOR, plus RELEVANCE_TERM_WEIGHT times the
    # share of its rare-word weight that the retrieved notes lack. Cosines are model-specific: re-run the bench
    # after changing EMBED_MODEL. -1 turns the gate off.
    relevance_floor: float = Field(
        -0.11,
        ge=-1,
        le=1,
        description="How far above the vault's noise level a question's best cosine must be (-1: never refuse).",
    )
    relevance_term_weight: float = Field(
        0.25, ge=0, le=2, description="How much higher it must be when the found notes hold none of its words."
    )
    show_sources: bool = True
    redact_secrets: bool = Field(
        True, description="Mask credentials found in notes (API keys, passwords, private keys) in all note text shown."
    )
    agent_recursion_limit: int = Field(12, gt=0)
    write_backend: Literal["auto", "rest", "files", "none"] = Field(
        "auto", description="auto: the Obsidian Local REST API when reachable, else files; none: read-only."
    )
    obsidian_api_url: str = Field("https://127.0.0.1:27124", description="Local REST API plugin (or HTTP 27123).")
    obsidian_api_key: SecretStr | None = None
    writable_folders: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Comma-separated vault folders edits may touch (empty: the whole vault)."
    )
    private_folders: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Never indexed, read by a tool or sent to an LLM."
    )
    write_confirm: bool = Field(True, description="false auto-applies proposals (trusted setups only).")
    proposal_ttl_minutes: float = Field(30, gt=0)
    # 50: a rename updates every note that links to it, and "tag these notes" batches are common; each change is
    # still shown as a diff and needs the user's yes.
    max_writes_per_turn: int = Field(50, gt=0)
    max_note_write_bytes: int = Field(1_000_000, gt=0)
    crews_root: str = Field("_crews", min_length=1, description="Vault folder of crew team and agent notes.")
    crew_max_writes: int = Field(50, gt=0, description="Most writes any crew run may make (caps max_writes).")
    llm_context_tokens: int | None = Field(
        None, gt=0, description="The model's context window, when its endpoint does not report one."
    )
    otel_exporter_otlp_endpoint: str | None = Field(
        None, description="OTLP/HTTP collector base URL (http://localhost:4318); set: spans are exported."
    )
    otel_exporter_otlp_headers: SecretStr | None = Field(None, description="'key=value,...' sent with each export.")
    otel_service_name: str = Field("vault-librarian", min_length=1)
    trace_content: bool = Field(False, description="Put prompts, replies and note text (redacted) in spans.")

    @field_validator(
        "ignore_globs", "llm_base_url", "cors_origins", "writable_folders", "private_folders", mode="before"
    )
    @classmethod
    def _parse_globs(cls, value: object) -> object:
        return _split_commas(value)

    @field_validator("vault_path", "data_dir", mode="before")
    @classmethod
    def _path_not_blank(cls, value: object, info: ValidationInfo) -> object:
        if isinstance(value, str) and not value.strip():
            raise ValueError(f"{(info.field_name or 'path').upper()} is empty; set it to a folder")
        return value

    @field_validator(
        "qdrant_url",
        "reranker_model_dir",
        "reranker_model",
        "redis_url",
        "qdrant_api_key",
        "llm_api_key",
        "llm_model",
        "llm_context_tokens",
        "api_key",
        "otel_exporter_otlp_endpoint",
        "otel_exporter_otlp_headers",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("otel_exporter_otlp_endpoint")
    @classmethod
    def _otlp_over_http(cls, value: str | None) -> str | None:
        if value is not None and urlsplit(value.strip()).scheme not in ("http", "https"):
            raise ValueError(f"OTEL_EXPORTER_OTLP_ENDPOINT {value!r} must be an http(s) URL: spans go as OTLP/HTTP")
        return value.strip() if value else None

    @field_validator("crews_root")
    @classmethod
    def _crews_root_in_vault(cls, value: str) -> str:
        parts = [part for part in value.strip().replace("\\", "/").split("/") if part]
        hidden = any(part.startswith(".") for part in parts)  # also "." and "..": no dot-folder, no way out
        if not parts or value.strip().startswith(("/", "~")) or hidden:
            raise ValueError(f"CREWS_ROOT {value!r} must be a vault-relative folder such as '_crews'")
        return "/".join(parts)

    @model_validator(mode="after")
    def _data_dir_outside_vault(self) -> Settings:
        check_separate_dirs(self.vault_path, self.data_dir)
        check_llm_endpoints(self.llm_base_url, self.llm_api_key, self.llm_api_keys, self.llm_denied_ports)
        if "*" in self.cors_origins:
            raise ValueError("CORS_ORIGINS must list origins; '*' would let any web page read your notes")
        if self.reranker_model and self.reranker_model_dir:
            raise ValueError("set RERANKER_MODEL (a fastembed name) or RERANKER_MODEL_DIR (a folder), not both")
        if self.rerank_candidates < self.top_k:
            raise ValueError(f"RERANK_CANDIDATES ({self.rerank_candidates}) must be >= TOP_K ({self.top_k})")
        return self

    def with_vault(self, vault_path: Path) -> Settings:
        """Return a copy pointing at another vault, validated like the original (with that vault's default DATA_DIR)."""
        kept = self.model_dump(exclude=None if self.has_data_dir_set else {"data_dir"})
        return type(self).model_validate({**kept, "vault_path": vault_path})

    @property
    def has_data_dir_set(self) -> bool:
        """Return True when DATA_DIR was given; False when it is the vault's default (core/data_dirs.py)."""
        return "data_dir" in self.model_fields_set

    @property
    def vault(self) -> VaultSettings:
        """Return the vault sub-settings."""
        return VaultSettings(
            path=self.vault_path,
            # Crew notes and their run logs are configuration, not notes: never indexed, never read by a tool.
            ignore_globs=(*self.ignore_globs, f"{self.crews_root.strip('/')}/**"),
            max_note_bytes=self.max_note_bytes,
            private_folders=tuple(f.strip("/") for f in self.private_folders if f.strip("/")),
            max_note_chunks=self.max_note_chunks,
            redact_secrets=self.redact_secrets,
        )

    @property
    def embedding(self) -> EmbeddingSettings:
        """Return the embedding sub-settings."""
        return EmbeddingSettings(
            model=self.embed_model,
            threads=self.embed_threads,
            batch_size=self.embed_batch_size,
            overlap_tokens=self.chunk_overlap_tokens,
            cache_dir=self.data_dir / "models",
        )

    @property
    def retrieval(self) -> RetrievalSettings:
        """Return the retrieval sub-settings."""
        return RetrievalSettings(
            top_k=self.top_k,
            prefetch_limit=self.prefetch_limit,
            rrf_k=self.rrf_k,
            reranker_model_dir=self.reranker_model_dir,
            rerank_candidates=self.rerank_candidates,
            reranker_model=self.reranker_model,
            reranker_cache_dir=self.data_dir / "models",
            redact_secrets=self.redact_secrets,
            max_chunks_per_note=self.max_chunks_per_note,
        )

    @property
    def store(self) -> StoreSettings:
        """Return the storage sub-settings."""
        return StoreSettings(
            data_dir=self.data_dir,
            qdrant_url=self.qdrant_url,
            qdrant_api_key=self.qdrant_api_key,
            qdrant_collection=self.qdrant_collection,
            redis_url=self.redis_url,
        )

    @property
    def llm(self) -> LlmSettings:
        """Return the LLM endpoint sub-settings."""
        return LlmSettings(
            base_urls=self.llm_base_url,
            api_key=self.llm_api_key,
            endpoint_keys=self.llm_api_keys,
            model=self.llm_model,
            connect_timeout_seconds=self.llm_connect_timeout_seconds,
            read_timeout_seconds=self.llm_read_timeout_seconds,
            retries=self.llm_retries,
            probe_local_ports=self.llm_probe_local_ports,
            tools=self.llm_tools,
            context_tokens=self.llm_context_tokens,
            warm_up=self.llm_warm_up,
            max_tokens=self.llm_max_tokens,
            temperature=self.llm_temperature,
        )

    @property
    def server(self) -> ServerSettings:
        """Return the HTTP edge sub-settings."""
        return ServerSettings(
            host=self.host,
            port=self.port,
            api_key=self.api_key,
            cors_origins=self.cors_origins,
            max_body_bytes=self.max_body_bytes,
            keepalive_seconds=self.keepalive_seconds,
        )

    @property
    def sync(self) -> SyncSettings:
        """Return the background re-indexer sub-settings."""
        return SyncSettings(
            interval_minutes=self.sync_interval_minutes, watch=self.watch, watch_debounce_ms=self.watch_debounce_ms
        )

    @property
    def answer(self) -> AnswerSettings:
        """Return the answering sub-settings."""
        return AnswerSettings(
            relevance_floor=self.relevance_floor,
            relevance_term_weight=self.relevance_term_weight,
            show_sources=self.show_sources,
            recursion_limit=self.agent_recursion_limit,
        )

    @property
    def writes(self) -> WriteSettings:
        """Return the edit sub-settings."""
        return WriteSettings(
            backend=self.write_backend,
            obsidian_api_url=self.obsidian_api_url,
            obsidian_api_key=self.obsidian_api_key,
            writable_folders=tuple(f.strip("/") for f in self.writable_folders),
            private_folders=tuple(f.strip("/") for f in self.private_folders),
            confirm=self.write_confirm,
            proposal_ttl_minutes=self.proposal_ttl_minutes,
            max_writes_per_turn=self.max_writes_per_turn,
            max_note_bytes=self.max_note_write_bytes,
            crews_root=self.crews_root.strip("/"),
        )

    @property
    def tracing(self) -> TracingSettings:
        """Return the tracing sub-settings."""
        return TracingSettings(
            endpoint=self.otel_exporter_otlp_endpoint,
            headers=self.otel_exporter_otlp_headers,
            service_name=self.otel_service_name,
            records_content=self.trace_content,
        )

    @property
    def crews(self) -> CrewSettings:
        """Return the crew sub-settings."""
        return CrewSettings(
            root=self.crews_root.strip("/"),
            max_writes=self.crew_max_writes,
            context_tokens=self.llm_context_tokens,
        )
