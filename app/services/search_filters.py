"""The checks a search's query, folder and tags pass, shared by `librarian search` and POST /v1/search.

A folder or tag that names nothing in the vault would otherwise read as "no notes match": a typo in a filter must
be named as such, with the same words from every front and whether or not a server holds the index.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import InvalidRequest, NotFound
from core.settings import VaultSettings


def require_query(query: str) -> str:
    """Return `query` without the blanks around it, or raise InvalidRequest when nothing is left."""
    text = query.strip()
    if not text:
        raise InvalidRequest("the search query is empty")  # the retriever's words, so every front says the same
    return text


def require_folder(vault: VaultSettings, folder: str | None) -> str | None:
    """Return `folder` as the vault spells it (None for none or the root), or raise NotFound.

    It is the folder check of the MCP search tool: "recipes/" names the folder Recipes, "/" the whole vault.
    """
    wanted = (folder or "").strip("/ ")
    if not wanted:
        return None
    from agent.tools.snapshot import build_snapshot
    from rag.notes.vault import scan_vault

    scan = scan_vault(vault)
    # The folder check needs the paths alone: every file goes in as a plain file, so no note is read or parsed.
    files = build_snapshot(scan.root, {}, {}, tuple(scan.all_paths))
    try:
        return files.require_folder(wanted)
    except NotFound as exc:
        raise NotFound(f"no folder {wanted!r} in the vault") from exc  # no server path to HTTP clients


def require_tagged_note(vault: VaultSettings, tags: Sequence[str]) -> None:
    """Raise NotFound when no note has any of `tags` (#a/b counts as #a), as the search's tag filter reads them.

    Every note is read until one has a tag, so call it only once a search with tags has found nothing.
    """
    from agent.tools.snapshot import has_tag
    from rag.notes.markdown import parse_note
    from rag.notes.vault import read_note_text, scan_vault

    wanted = [tag.strip().lstrip("#") for tag in tags if tag.strip().lstrip("#")]
    if not wanted:
        return
    scan = scan_vault(vault)
    for path, stat in scan.notes.items():
        if stat.size > vault.max_note_bytes:
            continue  # not indexed either, so its tags find nothing
        try:
            _, text, _ = read_note_text(scan.root, path)
        except OSError:
            continue
        if any(has_tag(parse_note(path, text).tags, tag) for tag in wanted):
            return
    named = " or ".join(f"#{tag}" for tag in wanted)
    raise NotFound(f"no note is tagged {named} in the vault")
