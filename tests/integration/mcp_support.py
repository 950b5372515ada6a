"""Helpers for the MCP tests: the SDK's own client over streamable HTTP or stdio, and a user who answers dialogs."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

Action = Literal["accept", "decline", "cancel"]
READ_CALLS: dict[str, dict[str, Any]] = {
    "search_notes": {"query": "sourdough starter feeding", "k": 3},
    "read_note": {"note": "Sourdough"},
    "vault": {"command": "list_notes", "folder": "Areas"},
    "links": {"command": "backlinks", "note": "Sourdough"},
    "tags": {"command": "list_with_counts"},
    "properties": {"command": "list"},
    "tasks": {"command": "open"},
    "daily_note": {"command": "path", "date": "2026-11-13"},
    "templates": {"command": "list"},
    "bases": {"command": "list"},
    "index_status": {},
}


class User:
    """The person in front of the client: sees each confirmation dialog and answers it as scripted."""

    def __init__(self, *answers: Action) -> None:
        self._answers = list(answers)
        self.shown: list[str] = []

    async def __call__(self, _ctx: Any, params: Any) -> types.ElicitResult:
        """Record the question and answer it (the last scripted answer repeats)."""
        self.shown.append(params.message)
        action = self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]
        return types.ElicitResult(action=action)


@asynccontextmanager
async def http_client(
    url: str,
    *,
    mode: str = "legacy",
    user: User | None = None,
    headers: dict[str, str] | None = None,
) -> AsyncIterator[Client]:
    """Yield the SDK's client connected to `url` (the /mcp endpoint), with `user` answering elicitations."""
    async with httpx2.AsyncClient(headers=headers or {}, timeout=httpx2.Timeout(60.0)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, elicitation_callback=user, read_timeout_seconds=120) as client:  # type: ignore[arg-type]
            yield client


def text_of(result: types.CallToolResult) -> str:
    """Return the text a tool result shows the model."""
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


def proposal_ids(text: str) -> list[str]:
    """Return the proposal ids a write tool's result names."""
    return re.findall(r"Proposed change ([0-9a-f]{8})", text)


async def propose_append(client: Client, path: str, content: str) -> list[str]:
    """Have the client's model propose appending `content` to the note at `path`; return the proposal ids."""
    result = await client.call_tool("edit_note", {"command": "append", "path": path, "content": content})
    assert not result.is_error, text_of(result)
    ids = proposal_ids(text_of(result))
    assert ids, text_of(result)
    return ids


def tool_names(tools: Sequence[types.Tool]) -> list[str]:
    """Return the names of listed tools, in order."""
    return [tool.name for tool in tools]
