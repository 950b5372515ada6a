"""A follow-up pointing back reads the notes the answer before it came from (`Query.answered_from`).

"Which one was the fastest?" after the models tested were listed from "AI Models I Tested" (vaultofknowledge, the
1.5B): its own word found "the fastest" of other notes, and the model named a processor of another note.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient

from app.http.main import create_app
from app.wiring import Services, build_services
from core.settings import Settings
from rag.answer.context import REFUSAL
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn
from tests.vault_state import write_notes

MODELS = "# Models Tested\n\n## Speeds\n\nTinyLlama ran at 12 tokens a second, Phi-2 at 5 tokens a second.\n"
NOTES = {
    "Models Tested.md": MODELS,
    "Running.md": "# Running\n\nThe fastest one was the 10k in May: which one was the fastest? The May one.\n",
    "Cars.md": "# Cars\n\nThe fastest one I drove was the rental; the fastest one by far.\n",
    "DevOps.md": "# DevOps\n\nNot the fastest one for large features, but the fastest one to ship.\n",
}
EARLIER = "What models did I test?"
FOLLOW_UP = "Which one was the fastest?"
SPEEDS = "TinyLlama ran at 12 tokens a second"
# Follow-ups are told by the words BM25 weighs, which the bundled model's stopwords decide.
pytestmark = pytest.mark.model


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, vault_path=write_notes(tmp_path / "vault", NOTES), data_dir=tmp_path / "data")


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    built = build_services(settings)
    built.reindexer.run_once()
    yield built
    built.close()


def prompt_after(earlier_reply: str, settings: Settings, services: Services, llm: ScriptedLLMServer) -> str:
    """Ask the follow-up after `earlier_reply`, as a chat app sends a conversation back; return what the model read."""
    llm.add(Turn.text("TinyLlama was the fastest, at 12 tokens a second [[Models Tested#Speeds]]."))
    messages = [
        {"role": "user", "content": EARLIER},
        {"role": "assistant", "content": earlier_reply},
        {"role": "user", "content": FOLLOW_UP},
    ]
    app = agent_app(settings, services, llm.base_url, top_k=2, neighbour_chunks=0)
    with serve_in_thread(app) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        client.chat.completions.create(model="vault-librarian", messages=messages)  # type: ignore[arg-type]
    return str(llm.chat_requests[-1].messages[-1]["content"])


def test_a_follow_up_pointing_back_reads_the_notes_the_answer_before_came_from(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    earlier_reply = "You tested TinyLlama and Phi-2.\n\nSources:\n- [[Models Tested#Speeds]]"

    assert SPEEDS in prompt_after(earlier_reply, settings, services, llm)


def test_after_a_refusal_no_note_is_read_for_it(settings: Settings, services: Services, llm: ScriptedLLMServer) -> None:
    # A refusal answered from no note; its "Notes searched:" did not hold what was asked.
    earlier_reply = f"{REFUSAL}\n\nNotes searched:\n- [[Models Tested#Speeds]]"

    assert SPEEDS not in prompt_after(earlier_reply, settings, services, llm)


def test_a_question_picking_an_item_may_weigh_one_word_more_and_be_searched_after_the_one_before(
    services: Services,
) -> None:
    # "Which one gave the most per plant?" has four weighed words, "one" among them: searched alone, it found last
    # year's garden review first.
    retriever = services.retriever

    assert retriever.prepare("Which one ran the most tokens a second?", EARLIER).in_context  # four weighed words
    assert retriever.prepare("Which model ran the most tokens a second?", EARLIER).in_context is None
    assert retriever.prepare("Which one ran the most tokens per second on my laptop?", EARLIER).in_context is None
    assert retriever.prepare("Which one ran the most tokens a second?", "").in_context is None


def test_without_a_model_a_follow_up_pointing_back_gets_the_notes_the_answer_before_came_from(
    settings: Settings, services: Services
) -> None:
    update = {"relevance_floor": -1.0, "watch": False, "top_k": 2, "neighbour_chunks": 0}
    messages = [
        {"role": "user", "content": EARLIER},
        {"role": "assistant", "content": "1. [[Models Tested#Speeds]] (Models Tested.md, line 5)\n   > …"},
        {"role": "user", "content": FOLLOW_UP},
    ]
    with TestClient(create_app(settings.model_copy(update=update), services), base_url="http://127.0.0.1") as client:
        response = client.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": messages})
        unrelated = [messages[0], {"role": "assistant", "content": REFUSAL}, messages[2]]
        refused = client.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": unrelated})

    assert SPEEDS in response.json()["choices"][0]["message"]["content"]
    assert SPEEDS not in refused.json()["choices"][0]["message"]["content"]  # a refusal answered from no note
