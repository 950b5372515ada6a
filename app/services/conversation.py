"""Which conversation a request belongs to: from client headers, the `user` field, or the history itself."""

from __future__ import annotations

import hashlib

from starlette.datastructures import Headers

from core.chat import ChatMessage

CONVERSATION_HEADERS = ("x-conversation-id", "x-openwebui-chat-id")
MAX_ID_LENGTH = 200


def conversation_id(headers: Headers, user: str | None, history: tuple[ChatMessage, ...]) -> str:
    """Return a stable id: X-Conversation-Id, X-OpenWebUI-Chat-Id, `user`, else a hash of how the chat began.

    Clients that resend the whole history each turn (most do) keep the same first messages, so the hash of the
    system prompt and first user message identifies the conversation across turns.
    """
    for name in CONVERSATION_HEADERS:
        value = headers.get(name, "").strip()
        if value:
            return f"h:{value[:MAX_ID_LENGTH]}"
    if user and user.strip():
        return f"u:{user.strip()[:MAX_ID_LENGTH]}"
    system = next((m.content for m in history if m.role == "system"), "")
    first_user = next((m.content for m in history if m.role == "user"), "")
    digest = hashlib.sha256(f"{system}\x1f{first_user}".encode()).hexdigest()[:32]
    return f"d:{digest}"
