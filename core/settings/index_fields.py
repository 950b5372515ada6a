"""The settings of the vault and its index: what is read, how it is embedded, stored and searched."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, SecretStr
from pydantic.config import JsonDict
from pydantic_settings import NoDecode

from core.data_dirs import DEFAULT_VAULT, data_dir_of

BUNDLED_EMBED_MODEL = "bundled/all-MiniLM-L6-v2-int8"
# Embedding costs about the same per full chunk, so this bounds what one note costs: 500 full 256-token chunks
# took 53 s on 2 busy cores (bench/hostile_notes.py), 2,067 took 163 s. The largest of 3,105 real notes (three
# public vaults and sample_vault) makes 171 chunks, the 99.9th percentile 135; a note over the limit keeps its
# first 500 chunks (about 290 kB of prose) and is reported.
MAX_NOTE_CHUNKS = 500


def shown_default(text: str) -> JsonDict:
    """Return the field extra that the configuration reference shows instead of a default that is computed."""
    return {"shown_default": text}


class IndexFields(BaseModel):
    """The vault and its index."""

    vault_path: Path = Field(DEFAULT_VAULT, description="The Obsidian vault. `librarian index VAULT` overrides it.")
    # Unset: a folder of its own per vault, the same whatever the working directory (core/data_dirs.py).
    data_dir: Path = Field(
        default_factory=data_dir_of,
        description="Index, docstore, watermarks, link graph, change log. Holds one vault's index (recorded in "
        "`vault.json`; another vault is refused). Must not be inside the vault, nor the vault inside it.",
        json_schema_extra=shown_default(
            "a folder per vault: `~/.local/share/vault-librarian/<vault name>-<hash>` (under `$XDG_DATA_HOME` when "
            "set; macOS: `~/Library/Application Support`)"
        ),
    )
    ignore_globs: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Comma-separated vault-relative globs to skip, e.g. `Templates/**,*.excalidraw.md`."
    )
    private_folders: Annotated[tuple[str, ...], NoDecode] = Field(
        (), description="Comma-separated folders that are never indexed, never read by a tool, never sent to an LLM."
    )
    max_note_bytes: int = Field(2_000_000, gt=0, description="Larger notes are skipped and reported.")
    max_note_chunks: int = Field(
        MAX_NOTE_CHUNKS,
        gt=0,
        description="Chunks indexed per note at most: a note that makes more keeps its first ones and is listed with "
        "a warning in the status. This bounds what one note costs to embed, however its text is built; the largest "
        "of 3,105 real notes (three public vaults and `sample_vault`) makes 171.",
    )
    embed_model: str = Field(
        BUNDLED_EMBED_MODEL,
        description="The bundled offline model, or any fastembed model name (downloaded once into `DATA_DIR/models`, "
        "so it needs internet the first time). Changing it rebuilds the index.",
    )
    embed_threads: int | None = Field(
        None, gt=0, description="ONNX threads for embedding.", json_schema_extra=shown_default("all cores")
    )
    # Measured on 2 cores with the int8 MiniLM: batch 1 embeds fastest and uses least memory (no padding);
    # batch 32 was 1.7x slower and peaked at 1.6 GB. Larger machines may gain from larger batches.
    embed_batch_size: int = Field(
        1, gt=0, description="Texts per ONNX call (grouped by length); 1 was fastest and leanest on 2 cores."
    )
    chunk_overlap_tokens: int = Field(32, ge=0, description="Overlap between consecutive chunks of one section.")
    qdrant_url: str | None = Field(
        None,
        description="A Qdrant server, e.g. `http://localhost:6333`.",
        json_schema_extra=shown_default("unset: embedded qdrant-edge"),
    )
    qdrant_api_key: SecretStr | None = Field(None, description="API key for the Qdrant server.")
    qdrant_collection: str = Field("vault", description="Collection name on the Qdrant server.")
    redis_url: SecretStr | None = Field(
        None,
        description="Redis for the docstore, e.g. `redis://localhost:6379/0`.",
        json_schema_extra=shown_default("unset: SQLite in DATA_DIR"),
    )


class SearchFields(BaseModel):
    """Search: fusion, reranking, and which questions the notes cover."""

    top_k: int = Field(6, gt=0, description="Hits returned.")
    prefetch_limit: int = Field(50, gt=0, description="Candidates per retrieval branch (dense, BM25) before fusion.")
    rrf_k: int = Field(
        10, gt=0, description="The RRF constant k (Qdrant's default is 60; 10 found more on every vault measured)."
    )
    # 2: on the question sets of three public vaults (bench/questions/, `python -m bench.retrieval_quality`)
    # recall@6 0.957 -> 0.981 and distinct notes per answer 3.0 -> 4.3 of 6. 1 finds as many notes (0.986) but
    # keeps one section of each, where answers often need two of one note; 3 misses second notes again.
    max_chunks_per_note: int = Field(
        2,
        ge=0,
        description=(
            "At most this many chunks of one note among the top k hits (0: no limit); in an answer's passages a "
            "further chunk with twice the fused score of the weakest hit takes its slot."
        ),
    )
    reranker_model_dir: Path | None = Field(
        None,
        description="Folder holding a cross-encoder ONNX model and its tokenizer files, loaded by fastembed.",
        json_schema_extra=shown_default("unset: no reranking"),
    )
    reranker_model: str | None = Field(
        None,
        description="A fastembed cross-encoder name instead of a folder, e.g. `Xenova/ms-marco-MiniLM-L-6-v2`, "
        "downloaded once into `DATA_DIR/models` (with `HF_HUB_OFFLINE=1` a model not there yet fails at start). "
        "Not together with `RERANKER_MODEL_DIR`.",
        json_schema_extra=shown_default("unset: no reranking"),
    )
    rerank_candidates: int = Field(20, gt=0, description="Hits fetched for the reranker (at least `TOP_K`).")
    # Chosen with `python -m bench.relevance_floor --choose-on sample_vault` (bundled int8 MiniLM) and judged on
    # three public vaults: no false refusal on any of the four. A question is covered when its best dense cosine
    # reaches the vault's noise level (the median best cosine of everyday probe questions,
    # rag/answer/vault_noise.py) plus RELEVANCE_FLOOR, plus RELEVANCE_TERM_WEIGHT times the share of its rare-word
    # weight that the retrieved notes lack. Cosines are model-specific: re-run the bench after changing EMBED_MODEL.
    relevance_floor: float = Field(
        -0.11,
        ge=-1,
        le=1,
        description="The relevance gate: how far above the vault's noise level the best dense cosine must be for a "
        'question to count as covered (below it: "the notes don\'t cover this", no model asked); `-1` never refuses.',
    )
    relevance_term_weight: float = Field(
        0.25,
        ge=0,
        le=2,
        description="How much higher the relevance gate's floor is when the notes found hold none of the question's "
        "rare words.",
    )
    redact_secrets: bool = Field(
        True,
        description="Mask credentials written in notes (API keys, tokens, `password: …`, private keys, any value "
        "assigned to a credential's name such as `API_TOKEN=abc123`) as `[redacted secret]` in every passage, search "
        "hit, tool result and everything sent to the model, chat history included. `false` shows them as written.",
    )
