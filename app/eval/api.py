"""The eval's client of a running librarian: readiness, search, one chat turn, and the changes a conversation made."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from core.errors import AppError, InvalidRequest, UpstreamUnavailable

INDEX_POLL_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class ChatReply:
    """One assistant message as the user got it, with the token counts the service reported."""

    text: str
    seconds: float
    prompt_tokens: int | None
    completion_tokens: int | None
    first_token_seconds: float | None = None  # streamed: until the first text the user saw; None when not streamed


@dataclass(frozen=True, slots=True)
class ServiceMode:
    """What `GET /ready` says about how the service answers and writes."""

    mode: str  # "agent", "retrieval-only", or a degraded mode
    llm: str
    writes: str

    @property
    def auto_applies(self) -> bool:
        """Return True when the service applies proposals without asking (WRITE_CONFIRM=false)."""
        return "WRITE_CONFIRM=false" in self.writes

    def edit_skip_reason(self) -> str | None:
        """Return why edit items cannot produce a proposal here, or None when they can."""
        if self.mode == "retrieval-only":
            return "no model (retrieval-only mode): changes need one"
        if self.writes.startswith("read-only"):
            return "the vault is read-only (WRITE_BACKEND=none)"
        return None


class LibrarianApi:
    """Call the service under evaluation; every failure is an AppError saying what failed."""

    def __init__(self, base_url: str, *, api_key: str | None, timeout_seconds: float) -> None:
        self.base_url = base_url.rstrip("/").removesuffix("/v1")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        timeout = httpx.Timeout(timeout_seconds, connect=10.0)
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=timeout)

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def mode(self, *, wait_seconds: float = 600.0) -> ServiceMode:
        """Return the service's mode once its index is built (waiting up to `wait_seconds` for a first index)."""
        deadline = time.monotonic() + wait_seconds
        while True:
            body = await self._json("GET", "/ready", accept=(200, 503))
            checks = body.get("checks", {})
            if checks.get("index") != "indexing" or time.monotonic() > deadline:
                break
            await asyncio.sleep(INDEX_POLL_SECONDS)
        return ServiceMode(str(body.get("mode", "")), str(checks.get("llm", "")), str(checks.get("writes", "")))

    async def wait_for_warm_up(self, *, wait_seconds: float) -> float | None:
        """Return the model's prompt-reading speed once its warm-up is over (None: not timed, or not within the wait).

        Timing from the first item on is the service after warm-up: a first question sent during it waits behind it
        in the model server's queue, and is sent every passage a model not yet timed gets.
        """
        deadline = time.monotonic() + wait_seconds
        while True:
            body = await self._json("GET", "/ready", accept=(200, 503))
            model = body.get("model")
            model = model if isinstance(model, dict) else {}
            speed = model.get("prompt_tokens_per_second")
            if model.get("warm_up") != "running" or time.monotonic() > deadline:
                return float(speed) if isinstance(speed, int | float) else None
            await asyncio.sleep(INDEX_POLL_SECONDS)

    async def ranked_notes(self, question: str, k: int) -> tuple[str, ...]:
        """Return the distinct note paths of `POST /v1/search` for the question, best first."""
        body = await self._json("POST", "/v1/search", json={"query": question, "k": k})
        return tuple(dict.fromkeys(str(hit["path"]) for hit in body["hits"]))

    async def ask(self, question: str, conversation: str, *, stream: bool = False) -> ChatReply:
        """Send the question as the first message of its own conversation; return the reply.

        Streamed as chat apps ask (Obsidian Copilot, Open WebUI), the reply also says when its first text came.
        """
        request: dict[str, Any] = {"model": "vault-librarian", "messages": [{"role": "user", "content": question}]}
        headers = {"X-Conversation-Id": conversation}
        if stream:
            return await self._streamed(request, headers)
        started = time.perf_counter()
        body = await self._json("POST", "/v1/chat/completions", json=request, headers=headers)
        seconds = time.perf_counter() - started
        usage = body.get("usage") or {}
        return ChatReply(
            text=str(body["choices"][0]["message"]["content"] or ""),
            seconds=seconds,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
        )

    async def _streamed(self, request: dict[str, Any], headers: dict[str, str]) -> ChatReply:
        path = "/v1/chat/completions"
        request = {**request, "stream": True, "stream_options": {"include_usage": True}}
        parts: list[str] = []
        usage: dict[str, Any] = {}
        first_token: float | None = None
        started = time.perf_counter()
        with self._transport_errors("POST", path):
            async with self._http.stream("POST", path, json=request, headers=headers) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise _error_of("POST", path, response)
                async for line in response.aiter_lines():
                    chunk = _sse_data(line)
                    if chunk is None:
                        continue
                    if "error" in chunk:  # the service ends a failed stream with an OpenAI error body
                        raise UpstreamUnavailable("the librarian", f"POST {path} failed mid-stream: {_message(chunk)}")
                    usage = chunk.get("usage") or usage
                    for choice in chunk.get("choices") or ():
                        text = (choice.get("delta") or {}).get("content") or ""
                        if text and first_token is None:
                            first_token = time.perf_counter() - started
                        parts.append(text)
        return ChatReply(
            text="".join(parts),
            seconds=time.perf_counter() - started,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            first_token_seconds=first_token,
        )

    async def changed_paths(self, conversation: str) -> tuple[str, ...]:
        """Return the paths of applied changes logged for the conversation (the eval never approves: none)."""
        body = await self._json("GET", "/v1/changes", params={"limit": 1000})
        # The service prefixes the header's value with where it came from ("h:"), so compare the end.
        return tuple(
            str(change["path"]) for change in body["changes"] if str(change["conversation_id"]).endswith(conversation)
        )

    @contextmanager
    def _transport_errors(self, method: str, path: str) -> Iterator[None]:
        """Turn a timeout or a connection failure of a request to the librarian into UpstreamUnavailable."""
        try:
            yield
        except httpx.TimeoutException as exc:
            raise UpstreamUnavailable("the librarian", f"{method} {path} timed out") from exc
        except httpx.HTTPError as exc:
            raise UpstreamUnavailable("the librarian", f"{method} {self.base_url}{path} failed: {exc}") from exc

    async def _json(self, method: str, path: str, *, accept: tuple[int, ...] = (200,), **kwargs: Any) -> Any:
        with self._transport_errors(method, path):
            response = await self._http.request(method, path, **kwargs)
        if response.status_code not in accept:
            raise _error_of(method, path, response)
        try:
            return response.json()
        except ValueError as exc:
            raise UpstreamUnavailable("the librarian", f"{method} {path} answered with no JSON") from exc


def _sse_data(line: str) -> dict[str, Any] | None:
    """Return the JSON of one `data:` line of the stream; None for comments, blank lines and `[DONE]`."""
    if not line.startswith("data:"):
        return None
    payload = line.removeprefix("data:").strip()
    if payload == "[DONE]":
        return None
    try:
        chunk = json.loads(payload)
    except ValueError as exc:
        raise UpstreamUnavailable("the librarian", f"its stream sent a line that is not JSON: {payload[:120]}") from exc
    return chunk if isinstance(chunk, dict) else None


def _message(body: dict[str, Any]) -> str:
    error = body.get("error")
    return str(error.get("message", error)) if isinstance(error, dict) else str(error)


def _error_of(method: str, path: str, response: httpx.Response) -> AppError:
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text[:200]
    detail = f"{method} {path} answered {response.status_code}: {message}"
    if response.status_code == 401:
        return InvalidRequest(f"{detail} (pass the service's key with --api-key or API_KEY)")
    return UpstreamUnavailable("the librarian", detail) if response.status_code >= 500 else InvalidRequest(detail)
