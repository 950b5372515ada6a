"""Over the chat endpoint: the chunk after a hit reaches the model, redacted, and is cited as its own section."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services, build_services
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.fakes import HashingEmbedder
from tests.scripted_llm import ScriptedLLMServer, Turn

TOKEN = "ghx7Qm2Lp9Zr4Tv8Wn3Ks6Yd1Fb5Hc0J"
# The question matches "Visits"; what it needs, the gate code, is in the next section, which shares no word with it.
BOILER_NOTE = f"""# Heating

## Visits
The engineer comes for the annual boiler service every October; the boiler service visit takes an hour.

## Access
Gate code 4711, then the cellar door on the left.
API_TOKEN={TOKEN}
"""
QUESTION = "When does the engineer come for the annual boiler service visit?"


@pytest.fixture
def indexed(settings: Settings, vault: Path) -> Iterator[Services]:
    (vault / "Heating.md").write_text(BOILER_NOTE, encoding="utf-8")
    services = build_services(settings, embedder=HashingEmbedder())
    services.reindexer.run_once()
    yield services
    services.close()


def ask(settings: Settings, services: Services, llm: ScriptedLLMServer) -> str:
    configured = settings.model_copy(
        update={"relevance_floor": -1.0, "watch": False, "llm_base_url": (llm.base_url,), "llm_tools": "off"}
    )
    app = create_app(configured, services, chat_model=OpenAICompatibleChatModel(configured.llm))
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": QUESTION}]}
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    return str(response.json()["choices"][0]["message"]["content"])


def test_the_section_after_a_hit_is_read_redacted_and_its_citation_is_kept(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    hits = indexed.retriever.search(QUESTION, k=settings.top_k)
    assert "[[Heating#Visits]]" in [hit.chunk.anchor for hit in hits]
    assert "[[Heating#Access]]" not in [hit.chunk.anchor for hit in hits]  # found only as a neighbour
    llm.add(Turn.text("Every October [[Heating#Visits]]; gate code 4711 [[Heating#Access]]."))

    with_room = {"answer_passage_chars": 20_000, "answer_neighbour_chunks": 2}
    reply = ask(settings.model_copy(update=with_room), indexed, llm)

    prompt = llm.chat_requests[0].messages[-1]["content"]
    assert "Gate code 4711" in prompt and "API_TOKEN=[redacted secret]" in prompt and TOKEN not in prompt
    assert "[[Heating#Access]]" in reply  # the neighbour's section is cited as the passage gave it


def test_with_no_room_left_the_model_reads_only_what_the_search_found(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Every October [[Heating#Visits]]."))

    ask(settings.model_copy(update={"answer_passage_chars": 200, "answer_neighbour_chunks": 2}), indexed, llm)

    assert "Gate code" not in llm.chat_requests[0].messages[-1]["content"]


def test_by_default_the_model_reads_only_what_the_search_found(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Every October [[Heating#Visits]]."))

    ask(settings.model_copy(update={"answer_passage_chars": 20_000}), indexed, llm)

    assert "Gate code" not in llm.chat_requests[0].messages[-1]["content"]
