"""The notes linking to a note, its links, the notes of a tag and the tags in use, listed by code, over chat too."""

from __future__ import annotations

import os
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
from tests.scripted_llm import ScriptedLLMServer, Turn
from tests.vault_state import write_notes

NOTES = {
    "Books.md": "# Books\n\nMy reading list.\n\n## Read\n\nSee [[#Read]] and [[Authors]].\n",
    "Dune.md": (
        "---\ncategories: ['[[Books]]']\ntags: [to-read, scifi]\nrating: 9\nauthor: '[[Frank Herbert]]'\n"
        "Status: Reading\n---\n# Dune\n\nBy Frank Herbert.\n"
    ),
    "Solaris.md": (
        "---\ntags: [scifi/classic]\nrating: 7\nstatus: done\n---\n# Solaris\n\nSee [[Books#Read]] and ![[Books]] "
        "again: [[Books]].\n"
    ),
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


def test_the_notes_changed_on_the_days_asked_come_latest_first_by_modification_time(settings: Settings) -> None:
    vault = settings.vault_path
    for name, day in [("Dune.md", 5), ("Solaris.md", 4), ("Books.md", 1)]:
        at = datetime(2026, 12, day, 10, 30).timestamp()
        os.utime(vault / name, (at, at))
    for name in ("Journal/2026-11-05.md", "Lonely.md"):
        at = datetime(2026, 11, 20, 9, 0).timestamp()
        os.utime(vault / name, (at, at))

    assert lines(settings, "Which notes did I change this week?") == [  # 2026-11-30 to 2026-12-06
        "3 notes changed from 2026-11-30 to 2026-12-06, latest first (by the files' modification times):",
        "- [[Dune]] (2026-12-05 10:30)",
        "- [[Solaris]] (2026-12-04 10:30)",
        "- [[Books]] (2026-12-01 10:30)",
    ]
    assert lines(settings, "What did I edit yesterday?") == [
        "1 note changed on 2026-12-05, latest first (by the files' modification times):",
        "- [[Dune]] (2026-12-05 10:30)",
    ]
    assert lines(settings, "What did I change on 2026-11-25?") == [
        "No note was changed on 2026-11-25 (by the files' modification times). The last one before: [[2026-11-05]]"
        " (2026-11-20 09:00)."
    ]
    assert lines(settings, "Which notes did I change in the Journal folder this month?") == [
        "No note in the folder Journal was changed from 2026-12-01 to 2026-12-31 (by the files' modification times). "
        "The last one before: [[2026-11-05]] (2026-11-20 09:00)."
    ]
    assert lines(settings, "Which notes did I change in the Journal folder?") == [
        "The note in the folder Journal changed last, latest first (by the files' modification times):",
        "- [[2026-11-05]] (2026-11-20 09:00)",
    ]
    assert lines(settings, "What notes were edited in the Jornal folder?") == [
        "The vault has no folder called “Jornal”. The closest: Journal."
    ]
    recent = lines(settings, "Show my recently modified notes")
    assert (
        recent is not None
        and recent[0].startswith("The 5 notes changed last")
        and recent[1] == "- [[Dune]] (2026-12-05 10:30)"
    )


def test_the_notes_of_a_folder_and_of_the_vault_are_counted(settings: Settings) -> None:
    assert lines(settings, "Which notes are in the Journal folder?") == [
        "1 note in the folder Journal (sub-folders included):",
        "- [[2026-11-05]]",
    ]
    assert lines(settings, "What's in the Jornal folder?") == [
        "The vault has no folder called “Jornal”. The closest: Journal."
    ]
    # Summed up: each note with its opening line, its properties, heading, embeds and comments passed over (a comment
    # is hidden in reading view, never quoted), a link as its words
    # (kepano-obsidian: the 0.5B refused "Summarize the Clippings folder").
    write_notes(
        settings.vault_path,
        {
            "Journal/2026-11-06.md": (
                "---\nmood: 4\n---\n# Friday\n\n![[cover.png]]\n<!-- owe Ana 20 euros -->\n"
                "- Lent [[Dune|the book]] to Ana.\n"
            )
        },
    )
    assert lines(settings, "Summarize the Journal folder") == [
        "2 notes in the folder Journal (sub-folders included), each with its opening line:",
        "- [[2026-11-05]]: Finished Dune. #journal #scifi",
        "- [[2026-11-06]]: Lent the book to Ana.",
    ]
    assert lines(settings, "How many notes do I have?") == [
        "6 notes in the vault, and 1 other file (images, PDFs, bases …), by top-level folder:",
        "- at the top of the vault: 4",
        "- Journal: 2",
    ]


def test_the_notes_whose_property_holds_the_value_asked_are_listed(settings: Settings) -> None:
    assert lines(settings, "Which notes have status reading?") == ["1 note has status: reading:", "- [[Dune]]"]
    assert lines(settings, "Which notes have the author Frank Herbert?") == [
        "1 note has author: Frank Herbert:",  # the link's target
        "- [[Dune]]",
    ]
    assert lines(settings, "Which notes have a rating of 8 or higher?") == [
        "1 note has rating 8 or higher:",
        "- [[Dune]]: 9",
    ]
    assert lines(settings, "Which notes have a rating?") == [
        "2 notes have rating:",
        "- [[Dune]]: 9",
        "- [[Solaris]]: 7",
    ]
    assert lines(settings, "Which notes have status abandoned?") == [
        "No note has status: abandoned. Its values: Reading (1), done (1)."
    ]
    assert lines(settings, "Which notes have links to Books?") is None  # no property "links": for the search


def test_the_notes_of_a_kind_are_those_linking_its_note_tagged_or_filed_so(settings: Settings) -> None:
    # Dune by its categories property ([[Books]]), Books/Children of Time by its folder; Alien by its folder,
    # Stalker by its tag (singular).
    write_notes(
        settings.vault_path,
        {
            "Movies/Alien.md": "---\nrating: 8\n---\n# Alien\n",
            "Stalker.md": "---\ntags: [movie]\nrating: 9\n---\n# Stalker\n",
            "Books/Children of Time.md": "---\nrating: 8\n---\n# Children of Time\n",
        },
    )
    assert lines(settings, "Which books did I rate 8 or higher?") == [
        "2 of the books (2 in all) have rating 8 or higher:",  # Books.md itself is none of them
        "- [[Children of Time]]: 8",
        "- [[Dune]]: 9",
    ]
    assert lines(settings, "Which movies have a rating of 9?") == [
        "1 of the movies (2 in all) has rating: 9:",
        "- [[Stalker]]",
    ]
    assert lines(settings, "Which movies have a rating above 9?") == [
        "None of the movies (2 in all) has rating above 9. Its values: 8 (1), 9 (1)."
    ]
    assert lines(settings, "Which podcasts have a rating?") is None  # no note of that kind: for the search
    # The notes of a kind themselves (kepano-obsidian: the 0.5B answered "Which books do I have?" with "Kevin Kelly, Out
    # of Control, Blade Runner"); the kind's own note is none of them, and a kind no note is filed as is the model's.
    assert lines(settings, "Which books do I have?") == [
        "2 notes filed as books (by a category, a tag or a folder):",
        "- [[Children of Time]]",
        "- [[Dune]]",
    ]
    assert lines(settings, "List my movies") == [
        "2 notes filed as movies (by a category, a tag or a folder):",
        "- [[Alien]]",
        "- [[Stalker]]",
    ]
    assert lines(settings, "What are my podcasts?") is None
    # The open ones: a status no closed one, shown (sample_vault: the 0.5B answered "What are my open projects?" with
    # "[Home](MOCs/Home.md) is the top-level map.").
    write_notes(
        settings.vault_path,
        {
            "Projects/Garden.md": "---\nstatus: active\n---\n# Garden\n",
            "Projects/Shed.md": "---\nstatus: Done\n---\n# Shed\n",
            "Projects/Boat.md": "---\nstate: paused\n---\n# Boat\n",
            "Projects/Plan.md": "# Plan\n",
        },
    )
    assert lines(settings, "What are my open projects?") == [
        "2 notes filed as projects (by a category, a tag or a folder) whose status is not a closed one (done, abandoned"
        " …); 1 has no status:",
        "- [[Boat]] (paused)",
        "- [[Garden]] (active)",
    ]
    # The best or the worst by number, not a value "highest" no note has (kepano-obsidian: "None of the books has
    # rating: highest").
    assert lines(settings, "Which books did I rate highest?") == [
        "1 of the books (2 in all) has the highest rating (9):",
        "- [[Dune]]",
    ]
    assert lines(settings, "Which movies did I rate lowest?") == [
        "1 of the movies (2 in all) has the lowest rating (8):",
        "- [[Alien]]",
    ]
    # Those in hand now: a status saying so (the verb asked, "in progress" …), and a task marked in progress in a
    # note of the kind (sample_vault: the 0.5B answered "What books am I reading right now?" with the year's
    # favourite, not the book marked "[/]" in the reading list). Nothing marked so is for the search.
    write_notes(
        settings.vault_path,
        {
            "Reading list.md": (
                "---\ntags: [books]\n---\n# Reading list\n\n## Up next\n\n- [/] *The Dispossessed* — page 120\n"
                "- [ ] *Klara and the Sun*\n- [x] *Solaris*\n"
            ),
            "Projects/Kiln.md": "---\nstatus: In_Progress\n---\n# Kiln\n",
        },
    )
    assert lines(settings, "What books am I reading right now?") == [
        "In hand now among the notes filed as books (by a category, a tag or a folder): a status saying so, or a task"
        " marked in progress ([/]):",
        "- [[Dune]] (Reading)",  # its `Status: Reading`
        "- [[Reading list#Up next]]: [/] *The Dispossessed* — page 120",
    ]
    assert lines(settings, "Which projects am I working on?") == [
        "In hand now among the notes filed as projects (by a category, a tag or a folder): a status saying so, or a"
        " task marked in progress ([/]):",
        "- [[Garden]] (active)",
        "- [[Kiln]] (In_Progress)",
    ]
    assert lines(settings, "What movies am I watching at the moment?") is None
    # The ones liked, by their rating (kepano-obsidian: the 0.5B answered "What board games do I like?" with Catan and
    # a video game); none rated is for the search (the notes may say it in words).
    assert lines(settings, "Which books do I like most?") == [
        "2 notes filed as books (by a category, a tag or a folder) with a rating, the highest first; 1 has none:",
        "- [[Dune]] (rating 9)",
        "- [[Children of Time]] (rating 8)",
    ]
    assert lines(settings, "What projects do I like?") is None
    # A template filed as a book is no book (kepano-obsidian's Book Template counted among "the books (3 in all)"),
    # and a kind may be named in two words when rated too.
    write_notes(
        settings.vault_path,
        {
            ".obsidian/templates.json": '{"folder": "Templates"}',
            "Templates/Book.md": "---\ncategories: ['[[Books]]']\nrating: 10\n---\n# {{title}}\n",
            "Games/Catan.md": "---\ncategories: ['[[Board games]]']\nrating: 7\n---\n# Catan\n",
            # related to the kind, not of it (kepano-obsidian's category note Podcasts)
            "Categories/Card games.md": "---\nrelated: '[[Board games]]'\nrating: 9\n---\n# Card games\n",
        },
    )
    assert lines(settings, "Which books did I rate highest?") == [
        "1 of the books (3 in all) has the highest rating (9):",
        "- [[Dune]]",
    ]
    assert lines(settings, "Which board games did I rate 7 or higher?") == [
        "1 of the board games (1 in all) has rating 7 or higher:",
        "- [[Catan]]: 7",
    ]
    # A rating no number is ("nan"), a status that is a yes or no, a closed status however written
    write_notes(
        settings.vault_path,
        {
            "Projects/Odd.md": "---\nstatus: true\nrating: .nan\n---\n# Odd\n",
            "Projects/Quit.md": "---\nstatus: Won't-Do\n---\n# Quit\n",
        },
    )
    assert lines(settings, "What projects do I like?") is None
    assert lines(settings, "What are my open projects?") == [
        "3 notes filed as projects (by a category, a tag or a folder) whose status is not a closed one (done, abandoned"
        " …); 2 have no status:",  # Plan, and Odd's `true`
        "- [[Boat]] (paused)",
        "- [[Garden]] (active)",
        "- [[Kiln]] (In_Progress)",
    ]  # not Quit's "Won't-Do"


def test_a_name_no_note_has_is_left_to_the_model(settings: Settings) -> None:
    assert lines(settings, "Which notes link to Nowhere Land?") is None


def test_one_notes_tags_and_properties_are_listed_and_a_note_not_in_the_vault_is_said_so(settings: Settings) -> None:
    write_notes(settings.vault_path, {"Dune.md": NOTES["Dune.md"] + "\nA classic. #favourite\n"})
    assert lines(settings, "What tags does the Dune note have?") == [
        "[[Dune]] has 3 tags: #to-read, #scifi, #favourite."  # its properties' and its text's
    ]
    assert lines(settings, "What are the tags of [[Lonely]]?") == ["[[Lonely]] has no tags."]
    assert lines(settings, "What properties does Dune have?") == [
        "[[Dune]] has 5 properties:",
        "- categories: [[Books]]",
        "- tags: to-read, scifi",
        "- rating: 9",
        "- author: [[Frank Herbert]]",
        "- Status: Reading",
    ]
    assert lines(settings, "Show me the frontmatter of Books") == ["[[Books]] has no properties."]
    # Sent to the 0.5B over kepano-obsidian (no Dune there), this got the tags of the Journal Template.
    assert lines(settings, "What tags does the Dune Messiah note have?") == [
        "No single note in the vault is called “Dune Messiah”. The closest: [[Dune]]."
    ]
    assert lines(settings, "What tags does Foundation have?") == ["No single note in the vault is called “Foundation”."]


def test_the_notes_created_in_a_period_are_listed_by_their_creation_property(settings: Settings) -> None:
    write_notes(
        settings.vault_path,
        {
            "Alien.md": "---\ncreated: 2023-09-12\n---\n# Alien\n",
            "Stalker.md": "---\nDate Created: 2023-03-01T10:15\n---\n# Stalker\n",  # any case, a date and time
            "Kyoto.md": "---\ncreated: '[[2026-12-01]]'\n---\n# Kyoto\n",  # a link to the day's note
            "Templates/Movie.md": "---\ncreated: '{{date}}'\n---\n# {{title}}\n",  # a template: not counted
        },
    )
    assert lines(settings, "Which notes did I create in 2023?") == [
        "2 notes created from 2023-01-01 to 2023-12-31, latest first (by their `created` property; 5 notes have none):",
        "- [[Alien]] (2023-09-12)",
        "- [[Stalker]] (2023-03-01)",
    ]
    assert lines(settings, "What notes were created this week?") == [
        "1 note created from 2026-11-30 to 2026-12-06, latest first (by their `created` property; 5 notes have none):",
        "- [[Kyoto]] (2026-12-01)",
    ]
    assert lines(settings, "Which notes did I add in June?") == [
        "No note was created from 2026-06-01 to 2026-06-30 (by their `created` property; 5 notes have none). The last "
        "one before: [[Alien]] (2023-09-12)."
    ]
    assert lines(settings, "Which notes were created in the Journal folder?") == [
        "No note in the folder Journal has a date it was created on (by their `created` property; 5 notes have none)."
    ]
    assert lines(settings, "When did I create the Stalker note?") == [
        "[[Stalker]] was created on 2023-03-01 (its `Date Created` property)."
    ]
    at = datetime(2026, 12, 5, 10, 30).timestamp()
    os.utime(settings.vault_path / "Dune.md", (at, at))
    assert lines(settings, "When was [[Dune]] created?") == [
        "[[Dune]] keeps no creation date (no `created` property, and a file's creation time is not kept on every "
        "system); it was last changed 2026-12-05 10:30."
    ]
    assert lines(settings, "When did I create Foundation?") == ["No single note in the vault is called “Foundation”."]
    assert lines(settings, "Which notes did I create recently?") == [
        "The 3 notes created last, latest first (by their `created` property; 5 notes have none):",
        "- [[Kyoto]] (2026-12-01)",
        "- [[Alien]] (2023-09-12)",
        "- [[Stalker]] (2023-03-01)",
    ]


def test_without_a_creation_property_the_notes_changed_in_the_period_are_offered(settings: Settings) -> None:
    at = datetime(2026, 12, 5, 10, 30).timestamp()
    os.utime(settings.vault_path / "Dune.md", (at, at))
    found = lines(settings, "Which notes did I create yesterday?")
    assert found == [
        "Your notes keep no creation date (no note has a `created` property, and a file's creation time is not kept on "
        "every system). 1 note changed on 2026-12-05, latest first (by the files' modification times):",
        "- [[Dune]] (2026-12-05 10:30)",
    ]


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


def test_an_item_of_a_list_named_by_its_place_is_what_the_next_questions_ask_about(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    # "What tags does the second one have?" reads as "What tags does [[Solaris]] have?", also two replies after the
    # list; "Summarize the first one" reaches the model naming the note.
    services.reindexer.run_once()
    llm.add(Turn.text("Dune is a book by Frank Herbert [[Dune]]."))
    conversation = [{"role": "user", "content": "Which notes have a rating?"}]
    with serve_in_thread(agent_app(settings, services, llm.base_url)) as base_url:
        client = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
        for message in ("Summarize the first one", "What tags does the second one have?"):
            reply = client.chat.completions.create(model="vault-librarian", messages=conversation)  # type: ignore[arg-type]
            conversation += [
                {"role": "assistant", "content": reply.choices[0].message.content or ""},
                {"role": "user", "content": message},
            ]
        last = client.chat.completions.create(model="vault-librarian", messages=conversation)  # type: ignore[arg-type]

    assert conversation[1]["content"] == "2 notes have rating:\n- [[Dune]]: 9\n- [[Solaris]]: 7"
    assert len(llm.chat_requests) == 1
    asked = llm.chat_requests[0].messages[-1]["content"]
    assert asked.endswith("Question: Summarize [[Dune]]") or "Question: Summarize [[Dune]]\n" in asked
    assert conversation[3]["content"].startswith("Dune is a book by Frank Herbert [[Dune]].")
    assert last.choices[0].message.content == "[[Solaris]] has 1 tag: #scifi/classic."


def test_without_a_model_an_item_of_a_list_named_by_its_place_is_that_note(
    settings: Settings, services: Services
) -> None:
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"watch": False}), services)  # no model configured
    conversation = [
        {"role": "user", "content": "Which notes have a rating?"},
        {"role": "assistant", "content": "2 notes have rating:\n- [[Dune]]: 9\n- [[Solaris]]: 7"},
        {"role": "user", "content": "What tags does the second one have?"},
    ]
    with TestClient(app, base_url="http://127.0.0.1") as plain:
        response = plain.post("/v1/chat/completions", json={"model": "vault-librarian", "messages": conversation})

    assert response.json()["choices"][0]["message"]["content"] == "[[Solaris]] has 1 tag: #scifi/classic."
