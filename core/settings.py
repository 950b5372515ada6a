"""The one `Settings` of the service, read from environment variables (and `.env`), validated at startup."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

BUNDLED_EMBED_MODEL = "bundled/all-MiniLM-L6-v2-int8"


class VaultSettings(BaseModel):
    """Where the vault is and which of its files are indexed."""

    model_config = ConfigDict(frozen=True)

    path: Path
    ignore_globs: tuple[str, ...] = ()
    max_note_bytes: int


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


class StoreSettings(BaseModel):
    """Where the index, docstore and watermarks live."""

    model_config = ConfigDict(frozen=True)

    data_dir: Path
    qdrant_url: str | None
    qdrant_api_key: SecretStr | None
    qdrant_collection: str
    redis_url: SecretStr | None  # a Redis URL may carry a password


def _split_commas(value: object) -> object:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


class Settings(BaseSettings):
    """Every setting, from environment variables named as in the README (e.g. `VAULT_PATH`)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    vault_path: Path = Field(Path("./sample_vault"), description="The Obsidian vault to index.")
    data_dir: Path = Field(Path("./data"), description="Index, docstore and watermarks; never inside the vault.")
    ignore_globs: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Comma-separated globs (vault-relative) to skip, e.g. 'Templates/**,*.excalidraw.md'."
    )
    max_note_bytes: int = Field(2_000_000, gt=0, description="Notes larger than this are skipped with an error.")
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
    rerank_candidates: int = Field(20, gt=0)
    top_k: int = Field(6, gt=0)
    prefetch_limit: int = Field(50, gt=0)
    rrf_k: int = Field(60, gt=0)

    @field_validator("ignore_globs", mode="before")
    @classmethod
    def _parse_globs(cls, value: object) -> object:
        return _split_commas(value)

    @field_validator("vault_path", "data_dir", mode="before")
    @classmethod
    def _path_not_blank(cls, value: object, info: ValidationInfo) -> object:
        if isinstance(value, str) and not value.strip():
            raise ValueError(f"{(info.field_name or 'path').upper()} is empty; set it to a folder")
        return value

    @field_validator("qdrant_url", "reranker_model_dir", "redis_url", "qdrant_api_key", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _data_dir_outside_vault(self) -> Settings:
        check_separate_dirs(self.vault_path, self.data_dir)
        if self.rerank_candidates < self.top_k:
            raise ValueError(f"RERANK_CANDIDATES ({self.rerank_candidates}) must be >= TOP_K ({self.top_k})")
        return self

    def with_vault(self, vault_path: Path) -> Settings:
        """Return a copy pointing at another vault, validated like the original."""
        return type(self).model_validate({**self.model_dump(), "vault_path": vault_path})

    @property
    def vault(self) -> VaultSettings:
        """Return the vault sub-settings."""
        return VaultSettings(path=self.vault_path, ignore_globs=self.ignore_globs, max_note_bytes=self.max_note_bytes)

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


def check_separate_dirs(vault_path: Path, data_dir: Path) -> None:
    """Refuse a DATA_DIR inside the vault (it would be indexed and synced) or a vault inside DATA_DIR."""
    vault = vault_path.expanduser().resolve()
    data = data_dir.expanduser().resolve()
    if data == vault or data.is_relative_to(vault):
        raise ValueError(f"DATA_DIR ({data}) must not be inside the vault ({vault}); choose a folder outside it")
    if vault.is_relative_to(data):
        raise ValueError(f"the vault ({vault}) must not be inside DATA_DIR ({data})")
