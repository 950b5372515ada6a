"""The sections of the note a question is about reach the model beside its passages, over chat."""

from __future__ import annotations

import re
from pathlib import Path

import openai
import pytest

from app.wiring import Services
from core.settings import Settings
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn
from tests.vault_state import write_notes

NOTES = {
    "AI Models I Tested.md": (
        "| Hardware | Model |\n| --- | --- |\n| CPU | Pentium Gold, AI models tested on it |\n\n"
        "## TinyLlama 1.1B\n\n- Size: 637 MB\n\n"
        "## Llama-8B Fine-Tuned with DeepSeek-R1\n\n- Size: 4.9 GB\n"
    ),
    "Garden.md": "# Garden\n\nGarlic in bed 3.\n",
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    vault = write_notes(tmp_path / "vault", NOTES)
    # Two passages: the table and the garden, as a vault of many notes leaves the other sections out.
    return Settings(
        _env_file=None, vault_path=vault, data_dir=tmp_path / "data", relevance_floor=-1.0, top_k=2, neighbour_chunks=0
    )


def test_a_question_worded_as_a_notes_title_gets_its_sections_listed_for_the_model(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    llm.add(Turn.text("I tested TinyLlama 1.1B and Llama-8B Fine-Tuned with DeepSeek-R1 [[AI Models I Tested]]."))
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        reply = client.chat.completions.create(
            model="vault-librarian",
            messages=[{"role": "user", "content": "Which AI models did I test?"}],
        )

    prompt = llm.chat_requests[0].messages[-1]["content"]
    # One element of its own, the note its source, after the note's passages (with tools offered, a path and lines).
    outline = re.search(
        r'<note source="\[\[AI Models I Tested\]\]"[^>]*>\n(Sections of this note: [^\n]*)\n</note>', prompt
    )
    assert outline is not None
    assert outline[1] == "Sections of this note: TinyLlama 1.1B; Llama-8B Fine-Tuned with DeepSeek-R1"
    assert (reply.choices[0].message.content or "").startswith("I tested TinyLlama 1.1B and Llama-8B")
