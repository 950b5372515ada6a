"""A yes-or-no part naming its subject by a pronoun, judged by what the question's other part asks about.

The reply is the 0.5B's over sample_vault (stop 61): "1. … October 14:00 / 2. Did it help? Yes, it helped." to "When
did I stop having coffee in the day to sleep better, and did it help?". "Did it help?" alone shares no word with the
sleep note, and the note's "no coffee after lunch" had read as a denial of "stop having coffee".
"""

from __future__ import annotations

import openai
import pytest

from rag.answer.context import REFUSAL
from tests.integration.openai_librarian import ask
from tests.recorded_replies import recorded
from tests.scripted_llm import ScriptedLLMServer, Turn

pytestmark = pytest.mark.indexed

QUESTION = "When did I stop having coffee in the day to sleep better, and did it help?"


def test_a_yes_to_a_part_referring_back_is_borne_out_by_the_notes_on_its_subject(
    openai_client: openai.OpenAI, llm: ScriptedLLMServer
) -> None:
    llm.add(recorded("s61-caffeine-cutoff-helped.1-no-tools").turn())

    answer = ask(openai_client, [{"role": "user", "content": QUESTION}], stream=True)

    assert not answer.startswith(REFUSAL)
    assert "14:00" in answer.split("\n")[0] and "Yes, it helped." in answer
    assert "[[Sleep#What I changed in October]]" in answer  # the sentence bearing it out, quoted


def test_a_no_to_it_is_still_denied_by_the_notes(openai_client: openai.OpenAI, llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text("1. At 14:00.\n2. No, it did not help."))

    answer = ask(openai_client, [{"role": "user", "content": QUESTION}], stream=True)

    assert answer.startswith("1. At 14:00.\n2. Not according to your notes.")
