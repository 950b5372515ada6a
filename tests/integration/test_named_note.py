"""A request about one note as a whole reads that note alone, and its refusal becomes the note quoted."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.named_note import NamedNote, NamedNotes
from agent.tools.reader import VaultReader
from app.http.main import create_app
from app.wiring import Services, build_services
from core.settings import Settings
from rag.answer.note_requests import names_asked
from tests.code_list_vault import templates_vault
from tests.edit_fakes import NoSearch
from tests.fakes import HashingEmbedder
from tests.live_server import streamed_reply
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn

NOTES = {
    "Projects/ACME.md": (
        "---\naliases: [Acme Corp]\n---\n# ACME\n\nThe ACME launch plan, agreed with Priya.\n\n"
        "## Steps\n\n- [ ] Print the flyers\n- [ ] Book the hall for 12 March\n\n"
        "## Budget\n\nThe hall costs 400 euros; the flyers 60.\n"
    ),
    "Projects/Beacon.md": "# Beacon\n\nThe Beacon project ships a lighthouse app in May.\n",
    "Reading/The Machine Stops.md": "# The Machine Stops\n\nA story by E. M. Forster.\n",
    "Reading/Evergreen notes turn ideas into objects.md": "# Evergreen notes\n\nIdeas as objects.\n",
    "Reading/Evergreen notes are short.md": "# Short\n\nKeep them short.\n",
    "Lab/AI Models I Tested.md": (
        "# AI Models I Tested\n\n| Hardware | Spec |\n| --- | --- |\n| CPU | Pentium Gold |\n\n"
        + "".join(
            f"## {model}\n\n{model} ran at {speed} tokens per second on the Pentium.\n\n"
            for model, speed in (
                ("TinyLlama 1.1B", 9),
                ("Llama-8B Distilled", 1),
                ("Phi-2", 4),
                ("Gemma 2B", 3),
                ("Qwen 0.5B", 12),
                ("Mistral 7B", 1),
                ("SmolLM 360M", 20),
                ("StableLM 3B", 2),
            )
        )
    ),
    "Journal/2026-11-16.md": "# Monday\n\nTalked about ACME and Beacon with Priya over lunch.\n",
    "Templates/Daily.md": "# Daily\n\n## Log\n",
}


@pytest.fixture
def note_settings(tmp_path: Path) -> Settings:
    return templates_vault(tmp_path, NOTES)


@pytest.fixture
def note_services(note_settings: Settings) -> Iterator[Services]:
    built = build_services(note_settings, embedder=HashingEmbedder())
    built.reindexer.run_once()
    yield built
    built.close()


def named(settings: Settings, question: str) -> NamedNote | None:
    return NamedNotes(VaultReader(settings.vault, NoSearch())).named(question)


def reply_to(question: str, settings: Settings, services: Services, llm: ScriptedLLMServer) -> str:
    """Ask `question` over chat, streamed, and return the reply as the user saw it (the scripted model answers)."""
    return streamed_reply(question, settings, services, llm.base_url)


def test_the_note_named_by_title_alias_or_link_is_found(note_settings: Settings) -> None:
    acme = NamedNote("Projects/ACME.md", "[[ACME]]")

    assert named(note_settings, "Summarize the ACME note") == acme
    assert named(note_settings, "What is the ACME project about?") == acme  # "ACME project": no note; "ACME"
    assert named(note_settings, "What is Acme Corp about?") == acme  # an alias
    assert named(note_settings, "What's in [[ACME]]?") == acme
    assert named(note_settings, "What is the Machine Stops note about?") == NamedNote(
        "Reading/The Machine Stops.md", "[[The Machine Stops]]"
    )  # the request's "the" is the title's
    # A long title named by its start, when it begins one title only.
    assert named(note_settings, "Summarize the Evergreen notes turn ideas note") == NamedNote(
        "Reading/Evergreen notes turn ideas into objects.md", "[[Evergreen notes turn ideas into objects]]"
    )
    assert named(note_settings, "Summarize the Evergreen notes note") is None  # two titles begin so
    assert named(note_settings, "Summarize my notes on ACME") is None  # a topic: no note has that name
    assert named(note_settings, "Summarize the Daily note") is None  # a template is no note asked about
    assert named(note_settings, "How do I book the hall?") is None


def test_a_note_named_with_what_kind_of_thing_it_is_is_found_by_its_name() -> None:
    # obsidian-tasks-demo (stop 58): "What is the ACME project about?" was answered from the Important Project note.
    assert names_asked("What is the ACME project about?") == ["ACME project", "ACME"]
    assert names_asked("Summarize the Dune book") == ["Dune book", "Dune"]
    assert names_asked("Summarize the ACME note") == ["ACME"]
    assert names_asked("What is the project about?") == ["project"]  # no name but the kind


def test_the_model_reads_the_named_notes_passages_alone_in_the_notes_order(
    note_settings: Settings, note_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("The ACME launch plan: flyers and the hall, 460 euros in all [[ACME]]."))

    reply = reply_to("Summarize the ACME note", note_settings, note_services, llm)

    sent = str(llm.chat_requests[-1].messages[-1]["content"])
    sources = re.findall(r'<note source="\[\[([^\]]+)\]\]', sent)
    assert sources[:3] == ["ACME#ACME", "ACME#Steps", "ACME#Budget"]  # the note's opening first
    assert not any(source.startswith(("Beacon", "2026-11-16")) for source in sources)
    assert reply.startswith("The ACME launch plan")


@pytest.mark.parametrize(
    "model_reply",
    [
        "I couldn't find this in your notes.",  # the 0.5B's refusal, the note before it
        "The Beacon project ships a lighthouse app in May.",  # another note's words: withheld
        "The ACME note about is: Priya.",  # the question's words again, and one of the note's: no account of it
    ],
)
def test_a_refusal_of_the_named_note_or_an_answer_from_elsewhere_gets_the_note_quoted(
    note_settings: Settings, note_services: Services, llm: ScriptedLLMServer, model_reply: str
) -> None:
    llm.add(Turn.text(model_reply))

    reply = reply_to("What is the ACME note about?", note_settings, note_services, llm)

    assert reply.startswith("Here is what [[ACME]] says:\n\n1. [[ACME")
    assert "The ACME launch plan, agreed with Priya." in reply
    assert "couldn't find" not in reply and "Beacon" not in reply


def test_without_a_model_the_named_notes_passages_are_the_reply_whatever_the_relevance_floor(
    note_settings: Settings, note_services: Services
) -> None:
    app = create_app(note_settings.model_copy(update={"watch": False, "relevance_floor": 0.99}), note_services)
    with TestClient(app, base_url="http://127.0.0.1") as client:

        def ask(question: str) -> str:
            body = {"model": "vault-librarian", "messages": [{"role": "user", "content": question}]}
            return str(client.post("/v1/chat/completions", json=body).json()["choices"][0]["message"]["content"])

        summary = ask("Summarize the Beacon note")
        refused = ask("Summarize the Lighthouse note")  # no such note: said so

    assert "[[Beacon" in summary and "lighthouse app in May" in summary and "[[ACME" not in summary
    assert refused.startswith("No single note in the vault is called “Lighthouse”.")


def test_a_refusal_of_the_note_the_question_is_worded_as_gets_it_quoted_its_sections_first(
    note_settings: Settings, note_services: Services, llm: ScriptedLLMServer
) -> None:
    # vaultofknowledge: "Which AI models did I test?" found "AI Models I Tested" first, its sections (the models)
    # listed beside its passages, and the 0.5B refused.
    llm.add(Turn.text("I couldn't find this in your notes."))

    reply = reply_to("Which AI models did I test?", note_settings, note_services, llm)

    assert reply.startswith("Here is what [[AI Models I Tested]] says:\n\n1. [[AI Models I Tested]]")
    assert "Sections of this note: TinyLlama 1.1B; Llama-8B Distilled; Phi-2" in reply.split("2. ")[0]


def test_an_answer_to_a_question_worded_as_a_title_is_shown_as_written(
    note_settings: Settings, note_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(
        Turn.text("TinyLlama 1.1B ran at 9 tokens per second on the Pentium [[AI Models I Tested#TinyLlama 1.1B]].")
    )

    reply = reply_to("Which AI models did I test?", note_settings, note_services, llm)

    assert reply.startswith("TinyLlama 1.1B ran at 9 tokens per second on the Pentium")


def test_a_note_the_request_names_that_the_vault_lacks_is_said_so_with_the_closest(
    note_settings: Settings, note_services: Services, llm: ScriptedLLMServer
) -> None:
    # sample_vault: "Summarize the Old idea note" (a note of the trash, never indexed): the 0.5B summarised the Ideas
    # note instead. Without a model too.
    reply = reply_to("Summarize the Beakon note", note_settings, note_services, llm)

    assert reply.startswith("No single note in the vault is called “Beakon”. The closest: [[Beacon]]")
    assert llm.chat_requests == []
    assert named(note_settings, "Summarize my notes on Beakon") is None  # no note's name said: the search's
