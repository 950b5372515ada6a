"""The properties a question asks for reach the reply, with the bundled model's retrieval (property_records)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services
from tests.conftest import REAL_MODEL_GROUP
from tests.scripted_llm import ScriptedLLMServer, Turn

# Retrieval as users get it finds Garlic.md for these questions; the hashing test embedder does not reliably.
pytestmark = [pytest.mark.model, pytest.mark.xdist_group(REAL_MODEL_GROUP)]


def ask(client: TestClient, question: str) -> str:
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": question}]}
    response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200
    return str(response.json()["choices"][0]["message"]["content"])


def test_the_rows_asked_for_are_shown_with_their_note_and_no_others(real_model_index: Services) -> None:
    """Garlic.md keeps `planted:`, `variety:` and `cloves:` above its prose, which is all its chunks hold."""
    app = create_app(real_model_index.settings.model_copy(update={"watch": False}), real_model_index)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        asked = ask(client, "How many garlic cloves did I plant, of which variety, and on what date?")
        about = ask(client, "Why is the garlic planted pointy end up?")

    assert "[[Garlic]]" in asked
    assert "planted: 2026-11-08" in asked and "variety: Germidour" in asked and "cloves: 42" in asked
    # "planted" is asked here too, so only that row: no key holds "pointy", and the others are not shown.
    assert "cloves: 42" not in about and "variety: Germidour" not in about


def test_a_model_reads_the_rows_asked_for_as_a_note_of_their_own(real_model_index: Services) -> None:
    reply = "You planted 42 cloves of Germidour on 2026-11-08 [[Garlic]]."
    with ScriptedLLMServer(lambda _request: Turn.text(reply)) as llm:
        update = {"watch": False, "llm_base_url": (llm.base_url,), "llm_tools": "off"}
        app = create_app(real_model_index.settings.model_copy(update=update), real_model_index)
        with TestClient(app, base_url="http://127.0.0.1") as client:
            shown = ask(client, "How many garlic cloves did I plant, of which variety, and on what date?")
        prompt = llm.chat_requests[-1].messages[-1]["content"]

    assert '<note source="[[Garlic]]">\nGarlic\nplanted: 2026-11-08\nvariety: Germidour\ncloves: 42\n</note>' in prompt
    assert prompt.index('source="[[Garlic#Garlic]]"') < prompt.index('source="[[Garlic]]"')  # after its passages
    assert shown.startswith(reply)  # borne out by the record, its link a note the model read
