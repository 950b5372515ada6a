"""How many tokens the model behind an OpenAI-compatible endpoint takes: asked from the server where it says.

The OpenAI API has no field for it; each local server reports it its own way (checked against each one's docs and
sources, and llama.cpp against a running llama-server):

- llama.cpp (`llama-server`): `GET /props` -> `default_generation_settings.n_ctx`, the context of one slot (the
  `-c` size divided among `--parallel` slots), which is what one request gets. Newer builds also put `n_ctx` in
  `GET /v1/models` -> `data[].meta` (`n_ctx_train` beside it is the training length, not what is loaded).
- vLLM: `GET /v1/models` -> `data[].max_model_len` (`--max-model-len`).
- Ollama: `GET /api/ps` -> `models[].context_length` for a loaded model (Ollama 0.9.7+): the real one. Else
  `POST /api/show` -> a `num_ctx` line in `parameters` (set in the Modelfile), else the server default, capped by
  `model_info["<arch>.context_length"]`. The OpenAI endpoint cannot set num_ctx per request and Ollama cuts a
  longer prompt silently, so the default matters: 2048 before 0.6.7, 4096 since (larger only with more VRAM or
  OLLAMA_CONTEXT_LENGTH, which a loaded model shows in /api/ps).
- LM Studio: `GET /api/v0/models` -> `data[].loaded_context_length` of a loaded model (`max_context_length` is
  what the model supports); LM Studio 0.4+ also `GET /api/v1/models` -> `models[].loaded_instances[].config.
  context_length`. A model that is not loaded yet gets LM Studio's default load length (4096) on first use.

Probes run in that order and stop at the first answer; a server that answers none of them (OpenAI, a proxy) gives
None, "unknown", and the caller falls back to a configured or conservative size.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import httpx

OLLAMA_DEFAULT_CONTEXT = 4096  # Ollama 0.6.7 and later (tiered by VRAM from 0.15.5, never below 4096)
OLLAMA_OLD_DEFAULT_CONTEXT = 2048  # before 0.6.7
OLLAMA_NEW_DEFAULT_SINCE = (0, 6, 7)
LM_STUDIO_DEFAULT_CONTEXT = 4096  # what LM Studio loads a model with unless told otherwise
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


OLLAMA = "Ollama"


@dataclass(frozen=True, slots=True)
class DetectedContext:
    """The context window a server reports for a model, and which kind of server said it."""

    tokens: int
    server: str  # "llama.cpp", "OpenAI /models" (vLLM, newer llama.cpp), "Ollama", "LM Studio"


def small_context_hint(detected: DetectedContext, model: str) -> str | None:
    """Return a warning for a context that silently cuts prompts (Ollama at its small default), else None."""
    if detected.server != OLLAMA or detected.tokens > OLLAMA_DEFAULT_CONTEXT:
        return None
    return (
        f"Ollama runs {model} with a {detected.tokens}-token context (its small default) and silently drops the "
        "start of longer prompts; raise it on the Ollama server with OLLAMA_CONTEXT_LENGTH=16384 (environment) or "
        f"`PARAMETER num_ctx 16384` in a Modelfile. Until then prompts are fitted into {detected.tokens} tokens."
    )


class EndpointUnreachable(Exception):
    """The endpoint did not answer at all (refused, timed out): asking it more would only wait longer."""


@runtime_checkable
class ReportsContextWindow(Protocol):
    """A chat model that can tell its context window (OpenAICompatibleChatModel does)."""

    async def context_window(self) -> int | None:
        """Return the model's context window in tokens, or None when the endpoint does not say."""
        ...


@runtime_checkable
class CountsTokens(Protocol):
    """A chat model that can count tokens in its own tokenizer where its server offers it."""

    async def count_tokens(self, text: str) -> int | None:
        """Return the tokens of `text` for the model, or None when the endpoint cannot count them."""
        ...


async def count_prompt_tokens(http: httpx.AsyncClient, base: str, text: str, *, timeout: httpx.Timeout) -> int | None:
    """Return the tokens of `text` in the model's tokenizer, from llama.cpp's `POST /tokenize`; None elsewhere.

    Raises:
        EndpointUnreachable: the server did not answer at all.

    """
    probe = _Probe(http, base, timeout)
    tokens = _mapping(await probe.post(f"{probe.root}/tokenize", {"content": text})).get("tokens")
    return len(tokens) if isinstance(tokens, list) else None


async def context_window(chat_model: object) -> int | None:
    """Return the context window of `chat_model` in tokens, or None when it is unknown (no way to ask, or no answer)."""
    if isinstance(chat_model, ReportsContextWindow):
        return await chat_model.context_window()
    return None


async def detect_context_window(
    http: httpx.AsyncClient, base: str, model: str, *, timeout: httpx.Timeout
) -> DetectedContext | None:
    """Return what the server at `base` (an OpenAI base URL, e.g. http://host:8081/v1) says `model` gets, or None.

    Raises EndpointUnreachable when the server does not answer at all.
    """
    probe = _Probe(http, base, timeout)
    servers = (
        ("llama.cpp", _llama_cpp),
        ("OpenAI /models", _openai_models),
        (OLLAMA, _ollama),
        ("LM Studio", _lm_studio),
    )
    for server, ask in servers:
        if (tokens := await ask(probe, model)) is not None:
            return DetectedContext(tokens, server)
    return None


class _Probe:
    """GET/POST a path at the server; a reply that is not a JSON object (404, HTML, bad JSON) reads as None."""

    def __init__(self, http: httpx.AsyncClient, base: str, timeout: httpx.Timeout) -> None:
        self.http = http
        self.base = base.rstrip("/")
        self.root = self.base.removesuffix("/v1")  # the native APIs live beside /v1, not under it
        self.timeout = timeout

    async def get(self, path: str, params: Mapping[str, str] | None = None) -> Mapping[str, object] | None:
        return await self._send(lambda: self.http.get(path, params=params, timeout=self.timeout))

    async def post(self, path: str, body: Mapping[str, object]) -> Mapping[str, object] | None:
        return await self._send(lambda: self.http.post(path, json=dict(body), timeout=self.timeout))

    async def _send(self, send: Callable[[], Awaitable[httpx.Response]]) -> Mapping[str, object] | None:
        try:
            response = await send()
        except (httpx.ConnectError, httpx.TimeoutException) as exc:
            raise EndpointUnreachable(f"{type(exc).__name__}: {exc}") from exc
        except httpx.HTTPError:
            return None
        if not response.is_success:
            return None
        try:
            body = response.json()
        except ValueError:
            return None
        return body if isinstance(body, Mapping) else None


def _positive(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if value > 0 else None


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _entries(value: object) -> Iterable[Mapping[str, object]]:
    return [entry for entry in value if isinstance(entry, Mapping)] if isinstance(value, list) else []


def _entry_for(
    entries: Iterable[Mapping[str, object]], model: str, *keys: str, is_only_one_enough: bool = True
) -> Mapping[str, object] | None:
    """Return the entry naming `model` under one of `keys` (Ollama's "name:latest" matches "name").

    A server serving one model (llama.cpp, vLLM) answers whatever name is asked, so its only entry is the one.
    """
    listed = list(entries)
    wanted = {model, model.removesuffix(":latest"), f"{model}:latest"}
    for entry in listed:
        if any(entry.get(key) in wanted for key in keys):
            return entry
    return listed[0] if is_only_one_enough and len(listed) == 1 else None


async def _llama_cpp(probe: _Probe, model: str) -> int | None:
    # `model` picks the model in llama-server's router mode; a single-model server ignores it.
    props = _mapping(await probe.get(f"{probe.root}/props", params={"model": model}))
    return _positive(_mapping(props.get("default_generation_settings")).get("n_ctx"))


async def _openai_models(probe: _Probe, model: str) -> int | None:
    listing = await probe.get(f"{probe.base}/models")
    entry = _entry_for(_entries(_mapping(listing).get("data")), model, "id")
    if entry is None:
        return None
    return _positive(entry.get("max_model_len")) or _positive(_mapping(entry.get("meta")).get("n_ctx"))


async def _ollama(probe: _Probe, model: str) -> int | None:
    running = await probe.get(f"{probe.root}/api/ps")
    entry = _entry_for(_entries(_mapping(running).get("models")), model, "name", "model", is_only_one_enough=False)
    if entry is not None and (loaded := _positive(entry.get("context_length"))):
        return loaded
    shown = await probe.post(f"{probe.root}/api/show", {"model": model})
    if shown is None:
        return None
    trained = next(
        (_positive(v) for k, v in _mapping(shown.get("model_info")).items() if k.endswith(".context_length")), None
    )
    parameters = shown.get("parameters")
    match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    effective = int(match.group(1)) if match else await _ollama_default(probe)
    return min(effective, trained) if trained else effective


async def _ollama_default(probe: _Probe) -> int:
    version = _mapping(await probe.get(f"{probe.root}/api/version")).get("version")
    numbers = tuple(int(part) for part in re.findall(r"\d+", str(version))[:3]) if version else ()
    if numbers and numbers < OLLAMA_NEW_DEFAULT_SINCE:
        return OLLAMA_OLD_DEFAULT_CONTEXT
    return OLLAMA_DEFAULT_CONTEXT


async def _lm_studio(probe: _Probe, model: str) -> int | None:
    listing = await probe.get(f"{probe.root}/api/v0/models")
    entry = _entry_for(_entries(_mapping(listing).get("data")), model, "id", is_only_one_enough=False)
    if entry is not None and (entry.get("max_context_length") is not None or "state" in entry):
        if loaded := _positive(entry.get("loaded_context_length")):
            return loaded
        supported = _positive(entry.get("max_context_length"))
        return min(supported, LM_STUDIO_DEFAULT_CONTEXT) if supported else LM_STUDIO_DEFAULT_CONTEXT
    listing = await probe.get(f"{probe.root}/api/v1/models")
    entry = _entry_for(_entries(_mapping(listing).get("models")), model, "key", is_only_one_enough=False)
    if entry is None:
        return None
    for instance in _entries(entry.get("loaded_instances")):
        if loaded := _positive(_mapping(instance.get("config")).get("context_length")):
            return loaded
    supported = _positive(entry.get("max_context_length"))
    return min(supported, LM_STUDIO_DEFAULT_CONTEXT) if supported else None
