"""Questions asking only yes or no, through the API with a scripted model (agent/prompts.YES_NO_ADVICE,
rag/answer/yes_no.py): told to reply yes or no first, a "Yes" the notes deny is withheld, a "No" shown over the
sentence saying so, a bare "No" no sentence bears out withheld.
"""

from __future__ import annotations

import openai
import pytest

from agent.prompts import YES_NO_ADVICE
from rag.answer.context import REFUSAL
from rag.answer.quoted_evidence import CLOSEST_HEADING, EVIDENCE_HEADING
from rag.answer.yes_no import NOT_SO
from tests.integration.openai_librarian import ask
from tests.scripted_llm import ScriptedLLMServer, Turn

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed


def test_a_yes_the_notes_deny_is_replaced_by_the_sentences_denying_it(
    openai_client: openai.OpenAI, llm: ScriptedLLMServer
) -> None:
    # Told nothing, the 1.5B refused yes-or-no questions whose notes say no; told to reply yes or no first, it
    # answered some of them "Yes" against the note.
    llm.add(Turn.text("Yes, foam rolling the IT band helped the knee [[Knee Rehab#What helps, what doesn't]]."))
    question = "Did foam rolling the IT band help my knee?"

    reply = ask(openai_client, [{"role": "user", "content": question}], stream=True)

    assert llm.chat_requests[0].messages[-1]["content"].endswith(f"Question: {question}\n{YES_NO_ADVICE}")
    assert reply == (
        f"{NOT_SO}\n\n{EVIDENCE_HEADING}\n"
        '- "Doesn\'t help: foam rolling the IT band (hurt, no change), knee sleeves." '
        "[[Knee Rehab#What helps, what doesn't]]"
    )


def test_a_yes_withheld_for_want_of_evidence_is_still_refused(
    openai_client: openai.OpenAI, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Yes, the Kubernetes ingress controller routes it."))
    question = "Is 150 °C a good temperature for the chili oil?"

    reply = ask(openai_client, [{"role": "user", "content": question}], stream=True)

    assert reply.startswith(f"{REFUSAL}\n\n{CLOSEST_HEADING}\n")


def test_a_no_is_shown_over_the_sentence_saying_so(openai_client: openai.OpenAI, llm: ScriptedLLMServer) -> None:
    # The 0.5B's bare "No" to "Does Plume support images for free?" was shown over a sentence on free licences.
    llm.add(Turn.text("No."), Turn.text("No."))

    question = "Did the Postgres 13 dump load into Postgres 16 directly?"
    reply = ask(openai_client, [{"role": "user", "content": question}], stream=True)
    unsaid = ask(
        openai_client, [{"role": "user", "content": "Is 150 °C a good temperature for the chili oil?"}], stream=False
    )

    assert reply.startswith(f'No.\n\n{EVIDENCE_HEADING}\n- "Paperless needed its database exported'), reply
    assert unsaid.startswith(REFUSAL)  # "At 150 °C the flakes burned": no sentence says "not"


def test_a_yes_to_whether_a_task_note_was_done_is_denied_by_its_status(
    openai_client: openai.OpenAI, llm: ScriptedLLMServer
) -> None:
    # The 1.5B, over sample_vault's "Renew passport" task note (`status: open`), stop 54.
    llm.add(Turn.text("Yes\nThe passport runs out before the Lisbon trip [[Renew passport]]."))

    reply = ask(openai_client, [{"role": "user", "content": "Did I renew my passport?"}], stream=True)

    # The note's open task says so as well (rag/answer/undone_notes.open_tasks_asked), quoted after its status.
    task = '"[ ] Get new biometric passport photos taken 📅 2020-03-01 ⏫" [[Renew passport]]'
    assert reply == f'{NOT_SO}\n\n{EVIDENCE_HEADING}\n- "status: open" [[Renew passport]]\n- {task}'
    assert "status: open" in llm.chat_requests[0].messages[-1]["content"]  # the model read the row too
