"""Context window detection through the real client: each server's own endpoint, and "unknown" when none answers.

The bodies are shaped as each server answers (llama.cpp's tools/server README, Ollama's docs/api.md and
api/types.go, LM Studio's REST API docs, vLLM's /v1/models), trimmed to the fields that matter.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from llm_client.endpoints.context import context_window
from tests.integration.llm_client_support import chat_model, llm_settings
from tests.scripted_llm import DEFAULT_MODEL, ScriptedLLMServer, free_port

LLAMA_CPP = {
    "GET /props": {
        "default_generation_settings": {"id": 0, "n_ctx": 8192, "params": {"n_predict": -1}},
        "total_slots": 1,
        "model_path": "qwen2.5-coder-0.5b.gguf",
        "build_info": "b1-0c1e570",
    }
}
LLAMA_CPP_MODELS_ONLY = {
    "GET /v1/models": {
        "object": "list",
        "data": [
            {
                "id": "qwen2.5-coder-0.5b",
                "object": "model",
                "owned_by": "llamacpp",
                "meta": {"n_vocab": 151936, "n_ctx": 4096, "n_ctx_train": 32768},
            }
        ],
    }
}
VLLM = {
    "GET /v1/models": {
        "object": "list",
        "data": [{"id": DEFAULT_MODEL, "object": "model", "owned_by": "vllm", "max_model_len": 32768}],
    }
}
OLLAMA_LOADED = {
    "GET /api/ps": {
        "models": [
            {"name": "nomic-embed-text:latest", "model": "nomic-embed-text:latest", "context_length": 2048},
            {"name": f"{DEFAULT_MODEL}:latest", "model": f"{DEFAULT_MODEL}:latest", "context_length": 8192},
        ]
    },
}


def ollama_show(parameters: str, version: str = "0.12.6") -> dict[str, Any]:
    return {
        "GET /api/ps": {"models": []},
        "POST /api/show": {
            "parameters": parameters,
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
            "details": {"family": "qwen2", "parameter_size": "494.03M"},
        },
        "GET /api/version": {"version": version},
    }


def lm_studio_v0(**entry: object) -> dict[str, Any]:
    model = {"id": DEFAULT_MODEL, "object": "model", "type": "llm", "arch": "qwen2", "max_context_length": 32768}
    return {"GET /api/v0/models": {"object": "list", "data": [model | entry]}}


LM_STUDIO_V1 = {
    "GET /api/v0/models": (404, {"error": "Unexpected endpoint or method. (GET /api/v0/models)"}),
    "GET /api/v1/models": {
        "models": [
            {
                "type": "llm",
                "key": DEFAULT_MODEL,
                "loaded_instances": [{"id": DEFAULT_MODEL, "config": {"context_length": 16384}}],
                "max_context_length": 32768,
            }
        ]
    },
}


async def detected(*base_urls: str, api_key: str | None = None) -> int | None:
    async with chat_model(llm_settings(*base_urls, api_key=api_key)) as model:
        return await context_window(model)


@pytest.mark.parametrize(
    ("routes", "expected"),
    [
        pytest.param(LLAMA_CPP, 8192, id="llama.cpp /props"),
        pytest.param(LLAMA_CPP_MODELS_ONLY, 4096, id="llama.cpp /v1/models meta"),
        pytest.param(VLLM, 32768, id="vLLM max_model_len"),
        pytest.param(OLLAMA_LOADED, 8192, id="Ollama /api/ps of the loaded model"),
        pytest.param(
            ollama_show('num_ctx                        16384\nstop   "<|im_end|>"'), 16384, id="Ollama num_ctx"
        ),
        pytest.param(ollama_show('stop "<|im_end|>"'), 4096, id="Ollama default"),
        pytest.param(ollama_show('stop "<|im_end|>"', version="0.6.5"), 2048, id="Ollama old default"),
        pytest.param(lm_studio_v0(state="loaded", loaded_context_length=8192), 8192, id="LM Studio loaded"),
        pytest.param(lm_studio_v0(state="not-loaded"), 4096, id="LM Studio not loaded"),
        pytest.param(LM_STUDIO_V1, 16384, id="LM Studio v1 API"),
        pytest.param({}, None, id="unknown"),
    ],
)
def test_context_window_is_read_where_each_server_reports_it(routes: dict[str, Any], expected: int | None) -> None:
    with ScriptedLLMServer(routes=routes) as llm:
        assert asyncio.run(detected(llm.base_url)) == expected


def test_the_native_endpoints_are_asked_beside_v1_with_the_api_key() -> None:
    with ScriptedLLMServer(api_key="sk-test-key-123456", routes=ollama_show("num_ctx 8192")) as llm:
        assert asyncio.run(detected(llm.base_url, api_key="sk-test-key-123456")) == 8192
    asked = [f"{r.method} {r.path}" for r in llm.requests]
    assert asked == [
        f"GET /props?model={DEFAULT_MODEL}",
        "GET /v1/models",
        "GET /api/ps",
        "POST /api/show",
    ]
    assert all(r.headers["authorization"] == "Bearer sk-test-key-123456" for r in llm.requests)
    assert llm.requests[-1].json == {"model": DEFAULT_MODEL}


def test_an_unreachable_endpoint_is_unknown_and_the_next_one_is_asked() -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    assert asyncio.run(detected(dead)) is None
    with ScriptedLLMServer(routes=VLLM) as llm:
        assert asyncio.run(detected(dead, llm.base_url)) == 32768


def test_a_model_without_a_way_to_ask_is_unknown() -> None:
    class PlainModel:
        model_name = "plain"

    assert asyncio.run(context_window(PlainModel())) is None


async def detected_twice(base_url: str) -> list[int | None]:
    async with chat_model(llm_settings(base_url)) as model:
        return [await context_window(model), await context_window(model)]


@pytest.mark.parametrize(
    ("routes", "is_warned"),
    [
        pytest.param(ollama_show('stop "<|im_end|>"'), True, id="Ollama default"),
        pytest.param(
            {"GET /api/ps": {"models": [{"name": DEFAULT_MODEL, "model": DEFAULT_MODEL, "context_length": 4096}]}},
            True,
            id="Ollama loaded at 4096",
        ),
        pytest.param(ollama_show("num_ctx 16384"), False, id="Ollama raised"),
        pytest.param(lm_studio_v0(state="not-loaded"), False, id="LM Studio"),
    ],
)
def test_ollama_at_its_small_default_is_warned_about_once_with_the_way_to_raise_it(
    routes: dict[str, Any], is_warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        ScriptedLLMServer(routes=routes) as llm,
        caplog.at_level(logging.WARNING, logger="llm_client.endpoints.model_catalog"),
    ):
        windows = asyncio.run(detected_twice(llm.base_url))

    assert windows[0] == windows[1]
    warnings = [r.getMessage() for r in caplog.records if "OLLAMA_CONTEXT_LENGTH" in r.getMessage()]
    assert len(warnings) == (1 if is_warned else 0)
    if is_warned:
        assert f"Ollama runs {DEFAULT_MODEL} with a 4096-token context" in warnings[0]
        assert "num_ctx" in warnings[0] and "silently drops the start" in warnings[0]
