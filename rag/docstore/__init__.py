"""Docstore adapters (verbatim markdown per note + content-hash dedup sets) and the factory that picks one."""

from __future__ import annotations

from core.ports import DocStore
from core.settings import StoreSettings

DOCSTORE_FILENAME = "docstore.sqlite"


def build_docstore(settings: StoreSettings) -> DocStore:
    """Return a Redis docstore when `redis_url` is set, else the SQLite one in `data_dir`."""
    # Imported here so that a SQLite deployment never imports redis, and nothing connects at import time.
    if settings.redis_url is not None:
        from rag.docstore.redis import RedisDocStore

        return RedisDocStore.from_url(settings.redis_url.get_secret_value())

    from rag.docstore.sqlite import SqliteDocStore

    return SqliteDocStore(settings.data_dir / DOCSTORE_FILENAME)
