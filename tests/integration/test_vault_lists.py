"""The notes linking to a note, its links, the notes of a tag and the tags in use, listed by code, over chat too."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import openai
import pytest
from fastapi.testclient import TestClient

from agent.tools.code_lists import CodeLists
from agent.tools.reader import VaultReader
from app.http.main import create_app
from app.wiring import Services
from core.settings import Settings
from tests.edit_fakes import NoSearch
from tests.live_server import agent_app, serve_in_thread
from tests.scripted_llm import ScriptedLLMServer
from tests.vault_state import write_notes

NOTES = {
    "Books.md": "# Books\n\nMy reading list.\n\n## Read\n\nSee [[#Read]] and [[Authors]].\n",
    "Dune.md": "---\ncategories: ['[[Books]]']\ntags: [to-read, scifi]\n---\n# Dune\n\nBy Frank Herbert.\n",
    "Solaris.md": "---\ntags: [scifi/classic]\n---\n# Solaris\n\nSee [[Books#Read]] and ![[Books]] again: [[Books]].\n",
    "Journal/2026-11-05.md": "# Thursday\n\nFinished [[Dune]]. #journal #scifi\n",
    "Lonely.md": "# Lonely\n\nNo links, no tags.\n",
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    vault = write_notes(tmp_path / "vault", NOTES)
    (vault / "cover.png").write_bytes(b"png")
    (vault / "Lonely.md").write_text("# Lonely\n\nA picture: ![[cover.png]]\n", encoding="utf-8")
    return Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")


def lines(settings: Settings, question: str) -> list[str] | None:
    reader = VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2026, 12, 6, 9, 0))
    found = CodeLists(reader).reply_for(question)
    return None if found is None else found.text.splitlines()


def test_the_notes_linking_to_a_note_are_listed_once_each_by_property_text_or_embed(settings: Settings) -> None:
    assert lines(settings, "Which notes link to Books?") == [
        "2 notes link to [[Books]]:",  # not Books itself ([[#Read]])
        "- [[Dune]]",  # by its categories property, as Obsidian counts it
        "- [[Solaris]]",  # three links, listed once
    ]
    assert lines(settings, "What links to [[Dune]]?") == ["1 note links to [[Dune]]:", "- [[2026-11-05]]"]
    assert lines(settings, "Which notes link to Solaris?") == ["No note links to [[Solaris]]."]


def test_the_links_of_a_note_are_listed_with_missing_notes_and_files_said_so(settings: Settings) -> None:
    assert lines(settings, "What does Books link to?") == [
        "[[Books]] links to 1 note and file(s):",
        "- [[Authors]] (no such note yet)",
    ]
    assert lines(settings, "List the links in Lonely") == [
        "[[Lonely]] links to 1 note and file(s):",
        "- cover.png (a file)",
    ]


def test_the_notes_of_a_tag_hold_its_sub_tags_and_a_tag_no_note_has_gets_the_closest(settings: Settings) -> None:
    assert lines(settings, "Which notes are tagged scifi?") == [
        "3 notes tagged #scifi (sub-tags included):",  # by path
        "- [[Dune]]",
        "- [[2026-11-05]]",
        "- [[Solaris]]",  # #scifi/classic
    ]
    assert lines(settings, "How many notes have the tag #to-reed?") == [
        "No note is tagged #to-reed. The closest tags: #to-read."
    ]


def test_the_tags_in_use_are_counted_by_note_most_used_first(settings: Settings) -> None:
    assert lines(settings, "What tags do I use most?") == [
        "4 tags, most used first (notes carrying each):",
        "- #scifi: 2",
        "- #journal: 1",
        "- #scifi/classic: 1",
        "- #to-read: 1",
    ]


def test_a_name_no_note_has_is_left_to_the_model(settings: Settings) -> None:
    assert lines(settings, "Which notes link to Nowhere Land?") is None


def test_over_chat_with_a_model_or_without_the_backlinks_are_listed_without_asking_it(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    services.reindexer.run_once()
    question = [{"role": "user", "content": "Which notes link to Books?"}]
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        reply = client.chat.completions.create(model="vault-librarian", messages=question)  # type: ignore[arg-type]
    app = create_app(settings.model_copy(update={"watch": False}), services)  # no model configured
    with TestClient(app, base_url="http://127.0.0.1") as plain:
        response = plain.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": question})

    assert llm.chat_requests == []
    expected = "2 notes link to [[Books]]:\n- [[Dune]]\n- [[Solaris]]"
    assert reply.choices[0].message.content == expected
    assert response.json()["choices"][0]["message"]["content"].startswith(expected)
