"""What `search_notes` over MCP says while the vault is being indexed: how far the index is, not "no passages".

`librarian mcp` started by a client for the first time indexes the vault in the background, and the client's
model searches at once. An empty result then would read as "the notes don't cover this"; chat answers "still being
indexed" before its agent runs (agent/graph.py), and MCP tools have no such step, so the dispatcher asks here.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from app.mcp.backend import McpBackend
from rag.notes.vault import scan_vault
from sync.report import Progress

SEARCH_TOOL = "search_notes"


@dataclass(frozen=True, slots=True)
class IndexingNotice:
    """What to tell the model; `is_blocking`: nothing can be searched yet, so the search is not run."""

    text: str
    is_blocking: bool


async def indexing_notice(backend: McpBackend) -> IndexingNotice | None:
    """Return what a search should say about the index being built, None when it is complete."""
    progress = backend.runner.progress
    retriever = backend.retriever
    unready = await asyncio.to_thread(retriever.unready_reason) if retriever is not None else None
    if unready is not None and progress is None:
        return IndexingNotice(unready, is_blocking=True)  # an empty vault, or a first run not begun yet
    if unready is not None:
        done, total = await asyncio.to_thread(_how_far, backend, progress)
        text = (
            f"The vault is still being indexed ({done} of {total} notes so far), so nothing can be searched yet. "
            "Search again in a minute; the index_status tool shows the progress."
        )
        return IndexingNotice(text, is_blocking=True)
    if progress is not None and progress.phase == "index" and progress.notes_done < progress.notes_total:
        text = (
            f"The vault is still being indexed ({progress.notes_done} of {progress.notes_total} notes so far): "
            "passages of the notes not indexed yet are missing from these results."
        )
        return IndexingNotice(text, is_blocking=False)
    return None


def _how_far(backend: McpBackend, progress: Progress | None) -> tuple[int, int]:
    """Return notes indexed and notes to index; before its first commit a run has not said its total yet."""
    if progress is not None and progress.notes_total:
        return progress.notes_done, progress.notes_total
    return 0, len(scan_vault(backend.settings.vault).notes)
