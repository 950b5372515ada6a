"""What a search says while the vault is being indexed: how far the index is, not "no notes match".

A first index takes minutes on a big vault, and a client searches at once (a model over MCP, `librarian search`
beside a `serve` that has just started). An empty result then reads as "the notes don't cover this", so every
front that searches asks here first. Chat answers "still being indexed" before its agent runs (agent/graph.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from core.settings import VaultSettings
from rag.notes.vault import scan_vault
from rag.retrieve import Retriever
from sync.index_runner import IndexRunner
from sync.report import Progress


@dataclass(frozen=True, slots=True)
class IndexingNotice:
    """What to tell the searcher; `is_blocking`: nothing can be searched yet, so the search is not run."""

    text: str
    is_blocking: bool


async def indexing_notice(
    runner: IndexRunner, retriever: Retriever | None, vault: VaultSettings, *, progress_hint: str
) -> IndexingNotice | None:
    """Return what a search should say about the index being built, None when it is complete.

    `progress_hint` tells this front's user where to follow the progress (a tool, a command).
    """
    progress = runner.progress
    unready = await asyncio.to_thread(retriever.unready_reason) if retriever is not None else None
    if unready is not None and progress is None:
        return IndexingNotice(unready, is_blocking=True)  # an empty vault, or a first run not begun yet
    if unready is not None:
        done, total = await asyncio.to_thread(_how_far, vault, progress)
        text = (
            f"The vault is still being indexed ({done} of {total} notes so far), so nothing can be searched yet. "
            f"Search again in a minute; {progress_hint}."
        )
        return IndexingNotice(text, is_blocking=True)
    if progress is not None and progress.phase == "index" and progress.notes_done < progress.notes_total:
        text = (
            f"The vault is still being indexed ({progress.notes_done} of {progress.notes_total} notes so far): "
            "passages of the notes not indexed yet are missing from these results."
        )
        return IndexingNotice(text, is_blocking=False)
    return None


def _how_far(vault: VaultSettings, progress: Progress | None) -> tuple[int, int]:
    """Return notes indexed and notes to index; before its first commit a run has not said its total yet."""
    if progress is not None and progress.notes_total:
        return progress.notes_done, progress.notes_total
    return 0, len(scan_vault(vault).notes)
