"""A numbered answer is held for its last part no later than its first text is due, over real HTTP.

The hold for a numbered answer's last part (agent/opening_hold.py) ends when the model has had the time it was
given to read its passages (ANSWER_FIRST_TOKEN_SECONDS) and PARTS_HOLD_SECONDS more: then the first part is judged
by its first sentence and, borne out, shown while the model writes on.
"""

from __future__ import annotations

import threading
from dataclasses import replace

import openai
import pytest

import agent.graph
from app.wiring import Services
from core.settings import Settings
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

pytestmark = pytest.mark.indexed

RETARD = "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?"
# A first part running on, as the 0.5B's "1. 42 cloves of 'Germidour' (a French softneck) planted on …" did over
# sample_vault for 240 characters before its second part began (stop 62: first text at 11.2 s).
FIRST_PART = (
    "1. Cold retard: the shaped loaf rests 14 hours in the fridge at 4 °C, covered, and is baked straight from it."
)
SECOND_PART = "2. 4 °C"


def first_text_before_the_second_part(
    llm: ScriptedLLMServer, settings: Settings, services: Services, *, first_token_seconds: float, wait: float
) -> tuple[str, str]:
    """Return (the text streamed before the model was let write its second part, the whole reply).

    The model goes on by itself after `wait` seconds: a first part held fails the test rather than hanging it.
    """
    services.reindexer.run_once()
    second_part_may_come = threading.Event()
    # Events: the role, the first part, its line break; the second part waits for the event.
    llm.add(replace(Turn.text([FIRST_PART, "\n", SECOND_PART]), hold=second_part_may_come, hold_after=3))
    timer = threading.Timer(wait, second_part_may_come.set)
    timer.start()
    app = agent_app(settings, services, llm.base_url, llm_tools="off", answer_first_token_seconds=first_token_seconds)
    before, pieces = "", []
    try:
        with serve_in_thread(app) as base_url:
            client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0, timeout=60)
            stream = client.chat.completions.create(
                model="vault-librarian", messages=[{"role": "user", "content": RETARD}], stream=True
            )
            for chunk in stream:
                text = chunk.choices[0].delta.content or "" if chunk.choices else ""
                pieces.append(text)
                if text and not second_part_may_come.is_set():
                    before += text
                    second_part_may_come.set()  # shown before the model went on: the hold ended in time
    finally:
        timer.cancel()
    return before, "".join(pieces)


def test_past_the_deadline_a_borne_out_first_part_is_shown_before_the_second_is_written(
    llm: ScriptedLLMServer, settings: Settings, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(agent.graph, "PARTS_HOLD_SECONDS", 0.0)  # the deadline passed as the model began

    before, reply = first_text_before_the_second_part(llm, settings, services, first_token_seconds=0.001, wait=30)

    assert before.startswith(FIRST_PART)
    assert reply.startswith(f"{FIRST_PART}\n{SECOND_PART}")


def test_before_the_deadline_the_first_part_waits_for_the_second(
    llm: ScriptedLLMServer, settings: Settings, services: Services
) -> None:
    # Seven seconds to read and two more: the first part alone is not shown, until the model is let go on.
    before, reply = first_text_before_the_second_part(llm, settings, services, first_token_seconds=7.0, wait=2)

    assert before == ""
    assert reply.startswith(f"{FIRST_PART}\n{SECOND_PART}")
