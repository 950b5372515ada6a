"""An answer's opening is shown only when the notes bear it out, over real HTTP against a scripted model.

The replies are those Qwen2.5-Coder 0.5B gave (llama.cpp, sample_vault, recorded with bench/recording_proxy.py) to
near misses: the plum cake answered with the sourdough's ingredients, a Kubernetes ingress with a manifest of its
own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import replace
from typing import Any

import openai
import pytest

from app.wiring import Services
from core.settings import Settings
from rag.answer.context import REFUSAL
from rag.answer.quoted_evidence import CLOSEST_HEADING, EVIDENCE_HEADING
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer, Turn

pytestmark = pytest.mark.indexed

PLUM = "What are the ingredients of my mom's plum cake?"
PLUM_REPLY = (
    "The ingredients of my mom's plum cake are wheat flour, whole wheat flour, water, levain (ripe, 100 % hydration), "
    "salt."
)
KUBERNETES = "How do I configure a Kubernetes ingress controller?"
MANIFEST = (
    "To configure a Kubernetes ingress controller, you can use the following YAML snippet:\n\n```yaml\n"
    "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: my-ingress\nspec:\n  rules:\n"
    "  - host: mydomain.com\n    http:\n      paths:\n      - path: /\n        backend:\n          service:\n"
    "            name: my-service\n            port:\n              number: 80\n```\n\n"
    "Replace `mydomain.com` with your actual domain and `my-service` with the name of your Kubernetes service."
)
RETARD = "How long does the shaped sourdough loaf rest in the fridge, and at what temperature?"
RETARD_REPLY = "The shaped loaf rests in the fridge for 14 hours at 4 °C, covered [[Sourdough#Final recipe]]."

Messages = list[dict[str, Any]]
Ask = Callable[[Messages], str]


@pytest.fixture
def serve(settings: Settings, services: Services, llm: ScriptedLLMServer) -> Iterator[Callable[..., Ask]]:
    """Return a function starting the service (settings as keywords); it returns how to ask, streamed."""
    services.reindexer.run_once()
    with ExitStack() as stack:

        def start(**update: Any) -> Ask:
            # As a model answering questions without tools (Qwen2.5-Coder 0.5B and 1.5B), unless told otherwise.
            app = agent_app(settings, services, llm.base_url, **({"llm_tools": "off"} | update))
            base = stack.enter_context(serve_in_thread(app))
            client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0, timeout=60)

            def ask(messages: Messages) -> str:
                pieces = client.chat.completions.create(model="vault-librarian", messages=messages, stream=True)  # type: ignore[arg-type]
                return "".join(chunk.choices[0].delta.content or "" for chunk in pieces if chunk.choices)

            return ask

        yield start


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def test_a_near_miss_answered_with_a_neighbouring_recipe_is_refused_with_what_the_notes_say(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text(PLUM_REPLY))

    reply = serve()([user(PLUM)])

    assert "Sourdough" in llm.chat_requests[0].messages[-1]["content"]  # it read the recipe it took them from
    assert reply.startswith(f'{REFUSAL}\n\n{CLOSEST_HEADING}\n- "Still to write down: [[Mom\'s Plum Cake]]" [[')
    assert "\n\nNotes searched:\n- [[" in reply
    assert "levain" not in reply


def test_a_near_miss_answered_with_a_neighbouring_notes_line_is_refused(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    # The 1.5B's reply (stop 57): the Kitchen MOC's line on the sourdough, given to the plum cake no note holds.
    llm.add(Turn.text("[[Mom's Plum Cake]] — the weekend loaf; [[Mom's Plum Cake|recipe only]]"))

    reply = serve()([user(PLUM)])

    assert "the weekend loaf" in llm.chat_requests[0].messages[-1]["content"]  # the line it was sent
    assert reply.startswith(f"{REFUSAL}\n\n{CLOSEST_HEADING}\n"), reply
    assert "Plum Cake — the weekend loaf" not in reply


def test_an_answer_from_the_models_own_knowledge_is_stopped_before_any_of_it_shows(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    # The server stops after the opening's tokens until told to go on: the reply can only end if the service
    # stopped reading the model there.
    never = threading.Event()
    llm.add(replace(Turn.text(MANIFEST), hold=never, hold_after=30))

    reply = serve()([user(KUBERNETES)])

    assert reply.startswith(REFUSAL) and "apiVersion" not in reply and "```" not in reply


def test_an_answer_the_notes_bear_out_streams_as_written_with_its_evidence(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text(RETARD_REPLY))

    reply = serve()([user(RETARD)])

    assert reply.startswith(f"{RETARD_REPLY}\n\n{EVIDENCE_HEADING}\n")
    assert '14 hours in the fridge at 4 °C**, covered." [[Sourdough#Final recipe]]' in reply


def test_a_reasoning_models_thinking_is_neither_shown_nor_judged_as_its_answer(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    # As Qwen3 or DeepSeek-R1 reply from a server that does not split their thinking into `reasoning_content`;
    # the scripted server streams it a few characters a chunk, so the tags are split across deltas.
    thinking = (
        "<think>\nOkay, the user asks about the loaf in the fridge. Let me recall what I know about proofing "
        "bread in general, maybe 8 to 12 hours at 3 °C.\n</think>\n\n"
    )
    llm.add(Turn.text(thinking + RETARD_REPLY))

    reply = serve()([user(RETARD)])

    assert reply.startswith(f"{RETARD_REPLY}\n\n{EVIDENCE_HEADING}\n")
    assert "think" not in reply and "Okay" not in reply


MISREAD = "The shaped sourdough loaf rests in the fridge for 5 hours at 24 °C."  # the 0.5B's: the bulk row's figures


def test_a_figure_misread_from_the_row_beside_is_withheld(serve: Callable[..., Ask], llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text(MISREAD))

    reply = serve()([user(RETARD)])

    assert reply.startswith(f"{REFUSAL}\n\n{CLOSEST_HEADING}\n") and "5 hours at 24" not in reply.split("\n")[0]
    assert "14 hours in the fridge at 4 °C" in reply  # what the notes say about the fridge, under the refusal


def test_with_the_check_off_a_figure_misread_from_the_row_beside_is_cautioned(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text(MISREAD))

    reply = serve(answer_check=False)([user(RETARD)])

    assert reply.startswith(f"{MISREAD}\n\n*(The notes give another figure for this: 14 hours, 4 °C. Check the")


def test_the_models_own_refusal_is_shown_as_it_wrote_it(serve: Callable[..., Ask], llm: ScriptedLLMServer) -> None:
    llm.add(Turn.text("The notes don't mention a plum cake recipe."))

    reply = serve()([user(PLUM)])

    assert reply.startswith("The notes don't mention a plum cake recipe.")


def test_with_the_check_off_the_answer_shows_and_what_the_notes_say_follows_it(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text(PLUM_REPLY))

    reply = serve(answer_check=False)([user(PLUM)])

    assert reply.startswith(PLUM_REPLY)
    assert f'{CLOSEST_HEADING}\n- "Still to write down: [[Mom\'s Plum Cake]]"' in reply


def test_an_answer_repeating_the_conversation_is_borne_out_by_it(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    # What the user said earlier is no note, but an answer repeating it is not made up.
    said = "My mom's plum cake takes 500 g of Zwetschgen, 250 g of flour and 125 g of butter."
    llm.add(Turn.text("You said it takes 500 g of Zwetschgen, 250 g of flour and 125 g of butter."))
    messages = [user(said), {"role": "assistant", "content": "Noted."}, user(PLUM)]

    reply = serve()(messages)

    assert reply.startswith("You said it takes 500 g of Zwetschgen")


def test_a_message_bringing_its_own_text_is_answered_as_written(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    pasted = "Summarise this for my plum cake note: " + "Zwetschgenkuchen is a yeast dough sheet cake. " * 12
    llm.add(Turn.text("A yeast dough sheet cake, Zwetschgenkuchen, is what the text describes."))

    reply = serve()([user(pasted)])

    assert reply.startswith("A yeast dough sheet cake, Zwetschgenkuchen")


def test_with_tools_offered_a_direct_answer_the_notes_do_not_bear_out_is_refused(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    # A model making structured tool calls is offered them on questions; answering at once, it is checked as any.
    llm.add(Turn.text(PLUM_REPLY))

    reply = serve(llm_tools="on")([user(PLUM)])

    assert llm.chat_requests[0].json.get("tools")  # tools were offered to that reply
    assert reply.startswith(REFUSAL) and "levain" not in reply


def test_with_tools_offered_what_the_model_writes_before_a_call_is_no_answer_and_the_call_is_made(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    # Past the opening's length, and borne out by nothing: judged as an answer, it would have been withheld and
    # the model stopped before its call.
    preamble = "To answer that properly I need to open the map of content where family dishes would be filed by you. "
    llm.add(
        Turn.tool_call("read_note", {"note": "Kitchen MOC"}, content=preamble),
        Turn.text("Your kitchen map lists the plum cake as still to write down [[Kitchen MOC#Recipes]]."),
    )

    reply = serve(llm_tools="on")([user(PLUM)])

    assert len(llm.chat_requests) == 2 and llm.chat_requests[1].messages[-1]["role"] == "tool"
    assert reply.startswith("Your kitchen map lists the plum cake as still to write down")
    assert preamble.strip() not in reply and REFUSAL not in reply


OVERSTORY = "What stayed with me from The Overstory?"
OVERSTORY_REPLY = (
    "Patricia Westerford, the botanist who discovers that trees signal to each other through the air and through "
    "fungal networks, and the scale of time [[The Overstory#What stayed with me]]."
)


def test_a_follow_up_about_another_book_answered_with_the_first_books_reply_again_is_withheld(
    serve: Callable[..., Ask], llm: ScriptedLLMServer
) -> None:
    # The 1.5B answered "And what about Shortcut?" with what it had said of Linear, over vaultofknowledge. Worded as
    # the title of its best passage's note, the question gets that note quoted in place of the reply withheld.
    llm.add(Turn.text("From Teaming with Microbes: " + OVERSTORY_REPLY.removesuffix(".")))
    messages = [
        user(OVERSTORY),
        {"role": "assistant", "content": OVERSTORY_REPLY},
        user("And what stayed with me from Teaming with Microbes?"),
    ]

    reply = serve()(messages)

    assert "Teaming with Microbes" in llm.chat_requests[0].messages[-1]["content"]  # its own note was read
    assert reply.startswith("Here is what [[Teaming with Microbes]] says:") and "Westerford" not in reply


def test_a_follow_up_answered_from_its_own_note_is_shown(serve: Callable[..., Ask], llm: ScriptedLLMServer) -> None:
    answer = (
        "I stopped digging the beds in autumn and mulched them instead, with wood chips around the currants "
        "[[Teaming with Microbes#What I changed on Plot 47]]."
    )
    llm.add(Turn.text(answer))
    messages = [
        user(OVERSTORY),
        {"role": "assistant", "content": OVERSTORY_REPLY},
        user("And what did I change after reading Teaming with Microbes?"),
    ]

    reply = serve()(messages)

    assert reply.startswith(answer.split(" [[")[0])
