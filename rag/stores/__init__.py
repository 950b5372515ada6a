"""Vector stores: embedded qdrant-edge (the default) or a Qdrant server, picked by `build_vector_store`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.ports import VectorStore
    from core.settings import StoreSettings


def build_vector_store(settings: StoreSettings) -> VectorStore:
    """Return the store the settings ask for: a Qdrant server when `qdrant_url` is set, else qdrant-edge."""
    # Adapters are imported here so that choosing one never loads the other's library.
    if settings.qdrant_url:
        from qdrant_client import QdrantClient

        from rag.stores.server import ServerVectorStore

        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return ServerVectorStore(QdrantClient(url=settings.qdrant_url, api_key=api_key), settings.qdrant_collection)

    from rag.stores.edge import EdgeVectorStore

    return EdgeVectorStore(settings.data_dir / "qdrant-edge")
