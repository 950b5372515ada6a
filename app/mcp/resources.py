"""Notes as MCP resources: `vault:///{+path}`, listed with their properties, read as the chat's tools read them.

Only what the read tools can see is listed or read: the vault scan leaves out PRIVATE_FOLDERS, dot-folders and
dot-files (`.obsidian/`, `.trash/`), IGNORE_GLOBS and the crew notes, and DATA_DIR is never inside the vault. A
note's text comes without the comments reading view hides, and with credentials masked (REDACT_SECRETS), as
every read tool returns it.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.domain import Note
from core.errors import AppError
from rag.answer.reading_view import visible_text
from rag.answer.secrets import redact_secrets

URI_PREFIX = "vault:///"
URI_TEMPLATE = "vault:///{+path}"  # RFC 6570 reserved expansion: the path's slashes stay as they are
MIME_TYPE = "text/markdown"
PAGE_SIZE = 500
PROPERTIES_KEY = "vault-librarian/properties"
TAGS_KEY = "vault-librarian/tags"
ALIASES_KEY = "vault-librarian/aliases"


def note_uri(path: str) -> str:
    """Return the resource URI of a vault-relative note path (spaces and other reserved characters escaped)."""
    return URI_PREFIX + quote(path, safe="/")


def note_path(uri: str) -> str:
    """Return the vault-relative path a note URI names, or raise MCPError (invalid params) for another URI."""
    if not uri.startswith(URI_PREFIX):
        raise MCPError(types.INVALID_PARAMS, f"not a note URI: {uri!r}; notes are {URI_TEMPLATE}")
    return unquote(uri[len(URI_PREFIX) :])


def _visible(value: object, *, is_redacting: bool) -> object:
    """Return a property value as JSON, its text masked where credentials would show."""
    if isinstance(value, str):
        return redact_secrets(value) if is_redacting else value
    if isinstance(value, list):
        return [_visible(item, is_redacting=is_redacting) for item in value]
    if isinstance(value, dict):
        return {str(key): _visible(item, is_redacting=is_redacting) for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float):
        return value
    return _visible(str(value), is_redacting=is_redacting)  # dates and times, as the frontmatter wrote them


def note_meta(note: Note, *, is_redacting: bool) -> dict[str, Any]:
    """Return a note's properties, tags and aliases as resource metadata."""
    properties = _visible(dict(note.frontmatter), is_redacting=is_redacting)
    return {PROPERTIES_KEY: properties, TAGS_KEY: list(note.tags), ALIASES_KEY: list(note.aliases)}


def note_resource(snapshot: VaultSnapshot, path: str, *, is_redacting: bool) -> types.Resource:
    """Return one note as a listed resource: URI, path, title, size and its properties."""
    note = snapshot.notes[path]
    return types.Resource(
        uri=note_uri(path),
        name=path,
        title=note.title,
        mime_type=MIME_TYPE,
        size=snapshot.stats[path].size,
        meta=note_meta(note, is_redacting=is_redacting),
    )


async def list_notes(reader: VaultReader, cursor: str | None) -> types.ListResourcesResult:
    """Return one page of the vault's notes (by path), with the cursor of the next page."""
    start = _offset(cursor)
    snapshot = await asyncio.to_thread(reader.snapshot)
    paths = sorted(snapshot.notes)
    page = paths[start : start + PAGE_SIZE]
    resources = [note_resource(snapshot, path, is_redacting=reader.redacts_secrets) for path in page]
    more = start + PAGE_SIZE < len(paths)
    return types.ListResourcesResult(resources=resources, next_cursor=str(start + PAGE_SIZE) if more else None)


def _offset(cursor: str | None) -> int:
    if cursor is None or cursor == "":
        return 0
    if not cursor.isdigit():
        raise MCPError(types.INVALID_PARAMS, f"invalid cursor {cursor!r}; pass the nextCursor of the last page")
    return int(cursor)


def templates() -> types.ListResourceTemplatesResult:
    """Return the one template: any note by its vault-relative path."""
    template = types.ResourceTemplate(
        uri_template=URI_TEMPLATE,
        name="note",
        title="A note of the vault",
        description="A note by its vault-relative path, e.g. vault:///Projects/Garden%20Plan.md. Private folders, "
        "dot-folders and ignored files are never served.",
        mime_type=MIME_TYPE,
    )
    return types.ListResourceTemplatesResult(resource_templates=[template])


async def read_note(reader: VaultReader, uri: str) -> types.ReadResourceResult:
    """Return a note's text (comments left out, credentials masked) with its properties as metadata."""
    path = note_path(uri)
    snapshot = await asyncio.to_thread(reader.snapshot)
    if path not in snapshot.notes:
        # The same answer for a private note, a dot-folder and a typo: what cannot be read is not confirmed to exist.
        raise MCPError(types.INVALID_PARAMS, f"no note at {path!r} (list the resources, or search the notes)")
    try:
        text = await asyncio.to_thread(reader.read_text, snapshot, path)
    except AppError as exc:
        raise MCPError(types.INVALID_PARAMS, exc.message) from exc
    shown = visible_text(text)
    is_redacting = reader.redacts_secrets
    contents = types.TextResourceContents(
        uri=uri,
        mime_type=MIME_TYPE,
        text=redact_secrets(shown) if is_redacting else shown,
        meta=note_meta(snapshot.notes[path], is_redacting=is_redacting),
    )
    return types.ReadResourceResult(contents=[contents])
