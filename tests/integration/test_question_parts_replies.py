"""A question asking two things, through the API with a scripted model (rag/answer/question_parts.py): the model is
told its parts one by one, and a part it copies before its answer is not shown (agent/echo_trim.PartEchoTrim).
"""

from __future__ import annotations

import openai
import pytest

from rag.answer.quoted_evidence import EVIDENCE_HEADING
from tests.integration.openai_librarian import ask
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

QUESTION = "On which port does the librarian API listen on kestrel, and what sits in front of it?"


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_the_parts_are_listed_for_the_model_and_not_shown_when_it_copies_them(
    openai_client: openai.OpenAI, llm: ScriptedLLMServer, stream: bool
) -> None:
    # The 0.5B's way with the parts listed (stop 55), with the right second answer.
    llm.add(
        Turn.text(
            "1. On which port does the librarian API listen on kestrel? 8765\n"
            "2. What sits in front of it? Caddy [[Deployment Notes#Ports]]"
        )
    )

    reply = ask(openai_client, [{"role": "user", "content": QUESTION}], stream=stream)

    listed = "1. On which port does the librarian API listen on kestrel?\n2. What sits in front of it?"
    sent = llm.chat_requests[0].messages[-1]["content"]
    assert sent.endswith(f"Question: {QUESTION}\nAnswer both parts:\n{listed}")
    assert reply.startswith(f"1. 8765\n2. Caddy [[Deployment Notes#Ports]]\n\n{EVIDENCE_HEADING}\n"), reply


def test_a_question_of_one_part_is_sent_as_asked(openai_client: openai.OpenAI, llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text("8765 [[Deployment Notes#Ports]]"))
    question = "On which port does the librarian API listen on kestrel?"

    ask(openai_client, [{"role": "user", "content": question}], stream=True)

    assert llm.chat_requests[0].messages[-1]["content"].endswith(f"Question: {question}")


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_part_answered_with_the_questions_own_word_does_not_withhold_the_other(
    openai_client: openai.OpenAI, llm: ScriptedLLMServer, stream: bool
) -> None:
    # Recorded from the 0.5B on sample_vault (stop 56): the model chosen right, then "nomic" for why not nomic.
    llm.add(Turn.text("1. BAAI/bge-small-en-v1.5\n2. nomic"))
    question = "Which embedding model did I choose for the librarian, and why not nomic?"

    reply = ask(openai_client, [{"role": "user", "content": question}], stream=stream)

    assert reply.startswith(f"1. BAAI/bge-small-en-v1.5\n2. nomic\n\n{EVIDENCE_HEADING}\n"), reply
    assert "3.6 times as long to index" in reply  # the note's reason, quoted under it
