"""The one `Settings` of the service, read from environment variables (and `.env`), validated at startup."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.data_dirs import check_separate_dirs
from core.llm_endpoints import check_llm_endpoints
from core.settings.edit_fields import EditFields
from core.settings.index_fields import IndexFields, SearchFields
from core.settings.llm_fields import LlmFields
from core.settings.sections import (
    AnswerSettings,
    CrewSettings,
    EmbeddingSettings,
    LlmSettings,
    RetrievalSettings,
    ServerSettings,
    StoreSettings,
    SyncSettings,
    TracingSettings,
    VaultSettings,
    WriteSettings,
)
from core.settings.service_fields import ServiceFields


def _check_data_dir_is_folder(data_dir: Path) -> None:
    """Refuse a DATA_DIR that is a file, or that a file in its path would keep from being created."""
    path = data_dir.expanduser()
    for place in (path, *path.parents):
        if place.is_dir():
            return
        if place.exists():  # a file: creating the folder would fail later, with a traceback
            where = "is not a folder" if place == path else f"cannot be created: {place} is a file"
            raise ValueError(f"DATA_DIR {path} {where}; set DATA_DIR to a folder (it is created when missing)")


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


class Settings(BaseSettings, EditFields, ServiceFields, LlmFields, SearchFields, IndexFields):
    """Every setting, from environment variables named as in docs/configuration.md (e.g. `VAULT_PATH`).

    The fields, each with its one default and description, are grouped in the `*_fields` modules (the bases are
    listed last group first: pydantic orders fields by reverse MRO); here are the rules that span them and the
    sub-settings each layer receives.
    """

    # Inputs stay out of error text: pydantic would quote every setting given, keys included.
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True, hide_input_in_errors=True)

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
        _check_data_dir_is_folder(self.data_dir)
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
            shutdown_grace_seconds=self.shutdown_grace_seconds,
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
            show_evidence=self.show_evidence,
            passage_chars=self.answer_passage_chars,
            first_token_seconds=self.answer_first_token_seconds,
            neighbour_chunks=self.answer_neighbour_chunks,
            quote_first=self.answer_quotes,
            check_answers=self.answer_check,
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
            run_logs_keep=self.crew_run_logs_keep,
            context_tokens=self.llm_context_tokens,
        )
