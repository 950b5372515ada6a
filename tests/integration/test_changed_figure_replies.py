"""A figure the notes changed since, in a real reply: withheld, or cautioned with what it was changed to.

The reply is the 1.5B's over sample_vault (stops 59 and 60): "… the KMC X9, which has 114 links", where the note says
"114 links shortened to 110" (rag/answer/changed_figures.py).
"""

from __future__ import annotations

import openai
import pytest

from app.wiring import Services
from core.settings import Settings
from rag.answer.context import REFUSAL
from rag.answer.quoted_evidence import CLOSEST_HEADING
from tests.integration.openai_librarian import ask
from tests.live_server import agent_app, serve_in_thread
from tests.recorded_replies import recorded
from tests.scripted_llm import ScriptedLLMServer, Turn

pytestmark = pytest.mark.indexed

QUESTION = "Which chain did I fit on the commuter bike, and how many links does it have?"


def test_a_figure_the_notes_changed_since_is_withheld_and_the_change_quoted_first(
    openai_client: openai.OpenAI, llm: ScriptedLLMServer
) -> None:
    # The 1.5B over sample_vault (stops 59 and 60): the note says "114 links shortened to 110" (changed_figures.py);
    # both parts give 114.
    llm.add(Turn.text("1. The chain I fitted on the commuter bike is the KMC X9, which has 114 links.\n2. It has 114."))

    answer = ask(openai_client, [{"role": "user", "content": QUESTION}], stream=True)

    assert answer.startswith(f"{REFUSAL}\n\n{CLOSEST_HEADING}\n")
    first = answer.split(f"{CLOSEST_HEADING}\n")[1].splitlines()[0]
    assert "114 links shortened to 110" in first and first.endswith("[[Bike Repair Notes#Fix]]")


def test_a_figure_changed_since_is_cautioned_where_the_answer_is_shown(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    # The 1.5B's reply as it streamed it (stop 60), shown as without the answer check (or after an opening shown):
    # the caution names what the notes changed the figure to.
    services.reindexer.run_once()
    llm.add(recorded("s60-bike-chain-114-links.1-no-tools").turn())
    with serve_in_thread(agent_app(settings, services, llm.base_url, answer_check=False)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        answer = ask(client, [{"role": "user", "content": QUESTION}], stream=True)

    caution = "*(The notes give another figure for this: 110. Check the figures against the sources.)*"
    assert answer.startswith("1. The chain I fitted on the commuter bike is the KMC X9, which has 114 links.")
    assert f"\n\n{caution}\n\n" in answer
