"""Text that is not valid Unicode, and very large messages, at the HTTP edge: never a 500, never a slow turn."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.datastructures import Headers

from app.http.main import create_app
from app.http.unicode_body import repair_json_body
from app.services.conversation import conversation_id
from app.wiring import Services, build_services
from core.chat import ChatMessage
from core.settings import Settings
from rag.embedding.embedders import FastembedEmbedder
from tests.fakes import ScriptedAnswerer
from tests.scripted_llm import ScriptedLLMServer, Turn

LOOPBACK_URL = "http://127.0.0.1"
# Written as JSON text: `\ud800` is a lone surrogate escape, valid JSON but no Unicode text.
LONE = r"a\ud800b"
REPLACED = "a\ufffdb"


def post_raw(client: TestClient, body: str | bytes, conversation: str | None = None) -> tuple[int, dict[str, object]]:
    headers = {"Content-Type": "application/json"}
    if conversation is not None:  # a named conversation: no id is hashed from the messages
        headers["X-Conversation-Id"] = conversation
    response = client.post("/v1/chat/completions", content=body, headers=headers)
    return response.status_code, response.json()


@pytest.fixture
def answerer() -> ScriptedAnswerer:
    return ScriptedAnswerer()


@pytest.fixture
def client(settings: Settings, services: Services, answerer: ScriptedAnswerer) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"watch": False}), services, answerer=answerer)
    with TestClient(app, base_url=LOOPBACK_URL, raise_server_exceptions=False) as test_client:
        yield test_client


def test_lone_surrogates_in_every_message_reach_the_answerer_replaced(
    client: TestClient, answerer: ScriptedAnswerer
) -> None:
    body = (
        f'{{"user": "{LONE}", "messages": ['
        f'{{"role": "system", "content": "{LONE}"}}, {{"role": "user", "content": "{LONE}"}}, '
        f'{{"role": "assistant", "content": "{LONE}"}}, '
        f'{{"role": "user", "content": [{{"type": "text", "text": "{LONE}"}}]}}]}}'
    )

    status, _ = post_raw(client, body)

    assert status == 200
    (turn,) = answerer.turns
    assert [message.content for message in turn.messages] == [REPLACED] * 4
    assert turn.conversation_id == f"u:{REPLACED}"


def test_the_conversation_id_of_a_lone_surrogate_is_the_hash_of_its_replacement(
    client: TestClient, answerer: ScriptedAnswerer
) -> None:
    # The first place that failed: hashing the system prompt and first user message into the conversation id.
    body = f'{{"messages": [{{"role": "system", "content": "{LONE}"}}, {{"role": "user", "content": "{LONE}"}}]}}'

    status, _ = post_raw(client, body)

    assert status == 200
    expected = (ChatMessage(role="system", content=REPLACED), ChatMessage(role="user", content=REPLACED))
    assert answerer.turns[0].conversation_id == conversation_id(Headers(), None, expected)


def test_a_surrogate_pair_and_a_literal_backslash_u_pass_unchanged(
    client: TestClient, answerer: ScriptedAnswerer
) -> None:
    text = "bread \U0001f35e and the text \\ud800 typed out"

    status, _ = post_raw(client, json.dumps({"messages": [{"role": "user", "content": text}]}))  # ensure_ascii

    assert status == 200
    assert answerer.turns[0].messages[0].content == text


def test_bytes_that_are_not_utf8_are_replaced_too(client: TestClient, answerer: ScriptedAnswerer) -> None:
    body = b'{"messages": [{"role": "user", "content": "caf\xe9 \xed\xa0\x80 ok"}]}'

    status, _ = post_raw(client, body)

    assert status == 200
    assert answerer.turns[0].messages[0].content == "caf\ufffd \ufffd\ufffd\ufffd ok"


def test_a_body_that_is_not_json_is_still_a_400(client: TestClient) -> None:
    status, body = post_raw(client, b'{"messages": [\xff')

    assert status == 400
    assert body["error"]["type"] == "invalid_request_error"  # type: ignore[index]


def test_the_repair_leaves_valid_bodies_untouched() -> None:
    valid = json.dumps({"messages": [{"role": "user", "content": "\U0001f35e caf\u00e9"}]}).encode()

    assert b"\\ud83c\\udf5e" in valid  # json.dumps escapes the emoji as a surrogate pair: valid, kept
    assert repair_json_body(valid) is None
    assert repair_json_body(b'{"a\\udc00": ["x\\ud800", 1]}') == '{"a\ufffd": ["x\ufffd", 1]}'.encode()


def tiny_vault(root: Path) -> Path:
    vault = root / "tiny-vault"
    vault.mkdir()
    (vault / "Sourdough.md").write_text(
        "# Sourdough\n\n## Final recipe\n\nThe autolyse rests 45 minutes before the levain goes in.\n", "utf-8"
    )
    (vault / "Garden.md").write_text("# Garden\n\nTomatoes go out after the last frost in May.\n", "utf-8")
    return vault


@pytest.fixture(scope="module")
def bundled_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, Services]]:
    root = tmp_path_factory.mktemp("bundled")
    settings = Settings(
        _env_file=None, vault_path=tiny_vault(root), data_dir=root / "data", watch=False, relevance_floor=-1.0
    )
    services = build_services(settings)  # the bundled fastembed model: its Rust tokenizer refuses surrogates
    services.reindexer.run_once()
    yield settings, services
    services.close()


@pytest.mark.model
def test_a_lone_surrogate_in_the_question_reaches_the_real_tokenizer_replaced(
    bundled_services: tuple[Settings, Services], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_PROBE_LOCAL_PORTS", "false")
    settings, services = bundled_services
    app = create_app(settings.model_copy(update={"llm_probe_local_ports": False}), services)
    with TestClient(app, base_url=LOOPBACK_URL, raise_server_exceptions=False) as client:
        question = f'{{"messages": [{{"role": "user", "content": "autolyse {LONE} levain"}}]}}'
        status, body = post_raw(client, question, conversation="tokenizer")

    assert status == 200
    assert "[[Sourdough#Final recipe]]" in body["choices"][0]["message"]["content"]  # type: ignore[index]


def test_system_and_assistant_messages_with_lone_surrogates_reach_the_llm_replaced(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    llm.add(Turn.text("The autolyse rests 45 minutes [[Sourdough#Final recipe]]."))
    configured = settings.model_copy(
        update={"llm_base_url": (llm.base_url,), "llm_model": "scripted-model", "relevance_floor": -1.0, "watch": False}
    )
    body = (
        f'{{"messages": [{{"role": "system", "content": "Answer briefly {LONE}"}}, '
        f'{{"role": "user", "content": "What about sourdough?"}}, '
        f'{{"role": "assistant", "content": "Earlier {LONE}"}}, '
        f'{{"role": "user", "content": "How long does the autolyse rest?"}}]}}'
    )
    with TestClient(create_app(configured, services), base_url=LOOPBACK_URL, raise_server_exceptions=False) as client:
        status, reply = post_raw(client, body, conversation="llm-client")

    assert status == 200, reply
    sent = llm.chat_requests[-1].messages
    # The client's system prompt rides with the question, after the stable system message.
    assert f"Answer briefly {REPLACED}" in sent[-1]["content"] and sent[-1]["role"] == "user"
    assert {"role": "assistant", "content": f"Earlier {REPLACED}"} in sent


@pytest.fixture(scope="module")
def bundled_embedder(tmp_path_factory: pytest.TempPathFactory) -> FastembedEmbedder:
    settings = Settings(
        _env_file=None,
        embed_threads=2,
        embed_batch_size=4,
        chunk_overlap_tokens=0,
        data_dir=tmp_path_factory.mktemp("m"),
    ).embedding
    return FastembedEmbedder(settings)


@pytest.mark.model
def test_a_large_query_is_embedded_from_its_first_max_query_chars(bundled_embedder: FastembedEmbedder) -> None:
    bound = bundled_embedder.max_query_chars
    start = ("How long does the sourdough autolyse rest before the final mix? " * (bound // 40))[:bound]

    cut = bundled_embedder.embed_query(start)
    with_tail = bundled_embedder.embed_query(start + " kubernetes pods and helm charts" * 30_000)  # ~1 MB

    assert bound >= 8 * bundled_embedder.max_tokens  # far more than the dense model's window can hold
    assert with_tail.sparse == cut.sparse  # BM25 saw the same words
    assert with_tail.dense == pytest.approx(cut.dense, abs=1e-6)
    assert bundled_embedder.embed_query("kubernetes pods").sparse != cut.sparse
