r"""Text that is not valid Unicode, made valid once at the edge: lone surrogates and bad UTF-8 become U+FFFD.

JSON may escape a lone UTF-16 surrogate (`"a\ud800b"`, what JavaScript produces when it cuts a string inside
an emoji); Python decodes it into a `str` that cannot be encoded as UTF-8, so hashing, tokenizing or sending it to
the LLM fails deep inside. Repairing the decoded JSON body before any route parses it means nothing downstream
ever sees such text.
"""

from __future__ import annotations

import json
import logging
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger(__name__)
REPLACEMENT = "\ufffd"
# A \uD800-\uDFFF escape: the only way valid UTF-8 JSON can carry a surrogate. Pairs match too (they are fine);
# the decoded text tells them apart.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def repair_json_body(body: bytes) -> bytes | None:
    """Return `body` re-encoded with every text that is not valid Unicode replaced, or None when it is valid.

    Bodies that are not JSON are left alone (None): the route's own parsing refuses them with a 400.
    """
    is_utf8 = _is_utf8(body)
    if is_utf8 and _SURROGATE_ESCAPE.search(body) is None:
        return None
    try:
        # "replace": bytes that are not valid in the body's encoding become U+FFFD, as in notes read from disk.
        value = json.loads(body.decode(json.detect_encoding(body), "replace"))
        # Without ensure_ascii a lone surrogate is written as itself, and only inside a string (keys included),
        # so every surrogate in the dumped text is one to replace (escaped pairs decode to one code point).
        dumped = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None
    repaired, replaced = _SURROGATE.subn(REPLACEMENT, dumped)
    if is_utf8 and not replaced:
        return None  # only valid surrogate pairs
    logger.info("replaced text that is not valid Unicode in a request body with U+FFFD")
    return repaired.encode("utf-8")


def _is_utf8(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class ValidUnicodeBody:
    """Run the app on a request body whose text is valid Unicode (see `repair_json_body`).

    Sits inside `BodySizeLimit`, so the body it buffers is already within MAX_BODY_BYTES.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Read the body, repair it if needed, and replay it to the app."""
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        parts: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left before sending the whole body: nobody to answer
            parts.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body: bytes | None = b"".join(parts)
        repaired = repair_json_body(body) if body else None
        if repaired is not None:
            body = repaired
            headers = [(name, value) for name, value in scope.get("headers", []) if name != b"content-length"]
            scope = {**scope, "headers": [*headers, (b"content-length", str(len(repaired)).encode())]}

        async def replay() -> Message:
            # The body once, then the server's own events (http.disconnect), which streaming responses watch.
            nonlocal body
            if body is None:
                return await receive()
            message: Message = {"type": "http.request", "body": body, "more_body": False}
            body = None
            return message

        await self._app(scope, replay, send)
