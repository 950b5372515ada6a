"""The settings of the language model: which endpoints, which keys, and how each call is made."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import NoDecode

from core.llm_endpoints import DEFAULT_DENIED_PORTS, EndpointKeys, Ports
from core.settings.index_fields import shown_default


class LlmFields(BaseModel):
    """The language model."""

    llm_base_url: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="One or more OpenAI-compatible base URLs ending in `/v1`, comma-separated; the first that answers "
        "wins, re-checked after a failure. List local servers before hosted ones.",
        json_schema_extra=shown_default("unset: look for LM Studio (1234) and Ollama (11434) once"),
    )
    llm_api_key: SecretStr | None = Field(
        None,
        description="Bearer key of the one endpoint: the `LLM_BASE_URL` one, or with it unset the local server "
        "probing finds. Refused when `LLM_BASE_URL` lists several: a key never goes to an endpoint it was not "
        "given for.",
    )
    llm_api_keys: EndpointKeys = Field(
        (),
        description="Each endpoint's own key, as `URL=key` pairs, comma-separated: `https://api.openai.com/v1=sk-...,"
        "http://localhost:1234/v1=lm-...`. Endpoints not named get no key. Every key is redacted from logs, errors, "
        "replies and run logs.",
    )
    llm_denied_ports: Ports = Field(
        DEFAULT_DENIED_PORTS,
        description="Ports an `LLM_BASE_URL` may not use (comma-separated; empty: none): other programs' single-user "
        "model servers listen on 8080. llama.cpp's `llama-server` does too: start it with `--port 8081`, or set "
        "`LLM_DENIED_PORTS=`.",
    )
    llm_model: str | None = Field(
        None, description="The model name.", json_schema_extra=shown_default("the first model the endpoint lists")
    )
    llm_connect_timeout_seconds: float = Field(5.0, gt=0, description="Connection timeout per model call.")
    llm_read_timeout_seconds: float = Field(
        120.0, gt=0, description="Read timeout per model call (small local models may need 900)."
    )
    llm_retries: int = Field(2, ge=0, description="Retries with backoff on connection errors before the first token.")
    llm_probe_local_ports: bool = Field(
        True, description="With no `LLM_BASE_URL`, look for LM Studio (1234) and Ollama (11434) at start."
    )
    llm_context_tokens: int | None = Field(
        None,
        gt=0,
        description="The model's context window, when its endpoint does not report it (llama.cpp, Ollama, LM Studio "
        "and vLLM are asked first). Prompts, history and crew material are fitted to it.",
        json_schema_extra=shown_default("asked from the endpoint, else 4096"),
    )
    llm_max_tokens: int = Field(
        2048,
        ge=64,
        description="The longest reply the chat model may write per call (sent as `max_tokens`, kept free in the "
        "context, at most a quarter of it): a small model that repeats itself stops there.",
    )
    llm_temperature: float | None = Field(
        0.2,
        ge=0,
        le=2,
        description="Sampling temperature sent with every model call (servers default to 0.8 or 1): low keeps "
        "answers and crew JSON to what the notes say. An endpoint that refuses it is asked again without it.",
    )
    llm_warm_up: bool = Field(
        True,
        description="At start (after the index run at start), ask the model once whether it makes structured tool "
        "calls, then send the prompt prefix every question begins with and stop at its first token: a local server "
        "then holds the prefix in its cache, and the reply times how fast the model reads.",
    )
    llm_tools: Literal["auto", "on", "off"] = Field(
        "auto",
        description="Offer tools to the chat model. `auto`: a model that has made a structured tool call (the warm-up "
        "asks for one) gets them, for questions and change requests; any other model answers questions in one "
        "completion, and its change requests go through a change contract (one JSON reply bound to the notes code "
        "found; docs/changing-notes.md). `on`: tools always. `off`: no tools; change requests by contract.",
    )
