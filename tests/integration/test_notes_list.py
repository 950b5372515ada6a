"""A request for the notes about a topic is answered with the notes the search finds about it, no model asked."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.scripted_llm import ScriptedLLMServer

QUESTION = "Which notes are about garlic?"


def ask(app: object, question: str) -> str:
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": question}]}
    with TestClient(app, base_url="http://127.0.0.1") as client:  # type: ignore[arg-type]
        response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    return str(response.json()["choices"][0]["message"]["content"])


def listed_notes(reply: str) -> list[str]:
    return [line.removeprefix("- ").split(" (")[0] for line in reply.splitlines() if line.startswith("- [[")]


def test_over_chat_the_notes_about_the_topic_are_listed_without_asking_the_model(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    configured = settings.model_copy(update={"watch": False, "llm_base_url": (llm.base_url,), "llm_tools": "off"})
    app = create_app(configured, services, chat_model=OpenAICompatibleChatModel(configured.llm))

    reply = ask(app, QUESTION)

    assert llm.chat_requests == []
    assert reply.splitlines()[0].endswith("about garlic, the best match first:")
    notes = listed_notes(reply)
    assert "[[Garlic]]" in notes  # in the search's order (the tests' embedder hashes words)
    assert "[[Sourdough]]" not in notes  # found by the search, about bread
    texts = {path.stem: path.read_text(encoding="utf-8").casefold() for path in settings.vault_path.rglob("*.md")}
    assert all("garlic" in texts[note.strip("[]").rsplit("/", 1)[-1]] for note in notes)  # each one about it
    # A question about the notes' content still goes to the model.
    assert ask(app, "What do my notes say about garlic?") is not None and len(llm.chat_requests) == 1


def test_without_a_model_the_notes_are_listed_too(settings: Settings, services: Services) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"watch": False}), services, chat_model=None)

    reply = ask(app, "List my notes on garlic.")

    assert "[[Garlic]]" in listed_notes(reply)
