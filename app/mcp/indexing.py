"""What `search_notes` over MCP says while the vault is being indexed (app/services/indexing_notice.py)."""

from __future__ import annotations

from app.mcp.backend import McpBackend
from app.services.indexing_notice import IndexingNotice
from app.services.indexing_notice import indexing_notice as service_notice

SEARCH_TOOL = "search_notes"


async def indexing_notice(backend: McpBackend) -> IndexingNotice | None:
    """Return what `search_notes` should say about the index being built, None when it is complete."""
    return await service_notice(
        backend.runner,
        backend.retriever,
        backend.settings.vault,
        progress_hint="the index_status tool shows the progress",
    )
