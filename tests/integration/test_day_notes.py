"""The notes of the days a question names, found by name and searched beside its words (agent/day_notes.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.day_notes import DayNotes, NamedDays, days_label, is_about_days_alone, of_other_days, passages_for
from agent.tools.reader import VaultReader
from app.http.main import create_app
from app.wiring import Services, build_services
from core.settings import Settings
from rag.answer.citations import SEARCHED_HEADING
from rag.answer.context import REFUSAL
from tests.edit_fakes import NoSearch
from tests.fakes import HashingEmbedder
from tests.live_server import streamed_reply
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn
from tests.vault_state import write_notes

NOTES = {
    "Journal/2026-11-16.md": "# Monday\n\n## Log\n\n- Fixed the greenhouse door hinge with two new screws.\n",
    "Journal/2026-11-17.md": (
        "# Tuesday\n\n## Log\n\n- Repotted the lemon tree into a bigger terracotta pot.\n\n"
        "## Plan\n\n- Summarize the week of planning: week goals, week review of the week.\n"
    ),
    "Meetings/2026-11-16 Standup.md": "# Standup\n\nAgreed to ship the beta on Friday.\n",
    "Reviews/2026-W47 Weekly Review.md": "# Week 47\n\nA calm week; the beta shipped.\n",
    "Reviews/2026-11.md": "# November\n\nThe month the beta shipped and the lemon tree moved.\n",
    "Templates/2026-11-16 Example.md": "# Example\n\nA template's sample day.\n",
    "Garden.md": "# Garden\n\n## Greenhouse\n\nThe greenhouse door sticks in wet weather; fix the greenhouse door.\n",
    "Lemon.md": "# Lemon tree\n\nThe lemon tree wants a terracotta pot and a sunny window.\n",
}
WEDNESDAY = datetime(2026, 11, 18, 9, 0)


def write_vault(root: Path) -> Path:
    vault = write_notes(root, NOTES)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "daily-notes.json").write_text('{"folder": "Journal"}', encoding="utf-8")
    (vault / ".obsidian" / "templates.json").write_text('{"folder": "Templates"}', encoding="utf-8")
    return vault


@pytest.fixture
def day_settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, vault_path=write_vault(tmp_path / "vault"), data_dir=tmp_path / "data")


@pytest.fixture
def day_services(day_settings: Settings) -> Iterator[Services]:
    built = build_services(day_settings, embedder=HashingEmbedder())
    built.reindexer.run_once()
    yield built
    built.close()


def day_notes(settings: Settings, now: datetime = WEDNESDAY) -> DayNotes:
    return DayNotes(VaultReader(settings.vault, NoSearch(), clock=lambda: now))


def prompt_for(question: str, settings: Settings, services: Services, llm: ScriptedLLMServer) -> str:
    """Ask `question` over chat (the scripted model answers) and return the last message the model was sent."""
    reply_to(question, settings, services, llm)
    return str(llm.chat_requests[-1].messages[-1]["content"])


def reply_to(question: str, settings: Settings, services: Services, llm: ScriptedLLMServer) -> str:
    """Ask `question` over chat, streamed, and return the reply as the user saw it (the scripted model answers)."""
    return streamed_reply(question, settings, services, llm.base_url)


@contextmanager
def retrieval_only_under_a_floor_no_question_clears(
    settings: Settings, services: Services, journal: dict[str, str]
) -> Iterator[Callable[[str], str]]:
    """Index `journal` (notes by vault path) and yield a function asking a question of the service without a model."""
    write_notes(settings.vault.path, journal)
    services.reindexer.run_once()
    app = create_app(settings.model_copy(update={"watch": False, "relevance_floor": 0.99}), services)
    with TestClient(app, base_url="http://127.0.0.1") as client:

        def ask(question: str) -> str:
            body = {"model": "vault-librarian", "messages": [{"role": "user", "content": question}]}
            return str(client.post("/v1/chat/completions", json=body).json()["choices"][0]["message"]["content"])

        yield ask


@pytest.mark.parametrize(
    ("question", "paths"),
    [
        ("What did I do on 2026-11-16?", ("Journal/2026-11-16.md", "Meetings/2026-11-16 Standup.md")),
        ("What happened on 16 November 2026?", ("Journal/2026-11-16.md", "Meetings/2026-11-16 Standup.md")),
        ("What did I write yesterday?", ("Journal/2026-11-17.md",)),
        # The Monday gone by, as well as the coming one (which has no notes yet).
        ("What did I do on Monday?", ("Journal/2026-11-16.md", "Meetings/2026-11-16 Standup.md")),
        (
            "Summarize this week.",  # Monday to Sunday: its days' notes, and the week's own note
            (
                "Journal/2026-11-16.md",
                "Journal/2026-11-17.md",
                "Meetings/2026-11-16 Standup.md",
                "Reviews/2026-W47 Weekly Review.md",
            ),
        ),
        ("What did I do last week?", ()),  # 9-15 November: no notes
        # Two days listed, not the second alone nor the days between (15 November has none of the notes).
        ("What did I do on 14 and 17 November?", ("Journal/2026-11-17.md",)),
        (
            "What did I do on 16 and 17 November?",
            ("Journal/2026-11-16.md", "Journal/2026-11-17.md", "Meetings/2026-11-16 Standup.md"),
        ),
        ("How do I fix the greenhouse door?", ()),  # no day named
    ],
)
def test_the_notes_of_the_days_named_are_found_by_name(
    day_settings: Settings, question: str, paths: tuple[str, ...]
) -> None:
    assert day_notes(day_settings).paths_for(question) == paths  # the template's sample day is no day's note


def test_a_note_whose_title_writes_a_whole_date_out_is_that_days(day_settings: Settings) -> None:
    # vaultofknowledge names its daily notes "Entry of 12th Mar, 2025", a format no daily-notes setting gives.
    write_notes(
        day_settings.vault_path,
        {
            "Diary/Entry of 17th Nov, 2026.md": "# Entry\n\nWrote to the allotment committee.\n",
            "Diary/November 16, 2026 call.md": "# Call\n\nCalled the plumber.\n",
            "Diary/Meeting 17 November.md": "# Meeting\n\nNo year: no day's note.\n",
            "Diary/Entry of 31st Feb, 2026.md": "# No such day\n",
        },
    )
    assert day_notes(day_settings).paths_for("What did I write yesterday?") == (
        "Diary/Entry of 17th Nov, 2026.md",
        "Journal/2026-11-17.md",
    )
    assert "Diary/November 16, 2026 call.md" in day_notes(day_settings).paths_for("What did I do on Monday?")
    assert of_other_days("Entry of 17th Nov, 2026", ["2026-11-16"])
    assert not of_other_days("Entry of 17th Nov, 2026", ["2026-11-17"])


def test_the_last_daily_entry_is_the_latest_day_today_or_before_with_a_note(day_settings: Settings) -> None:
    # vaultofknowledge: "What did I write in my last daily entry?" names no word of any note; the floor refused it.
    write_notes(
        day_settings.vault_path, {"Journal/2026-11-20.md": "# Friday\n\nA day to come.\n", "Journal/2026-11-18.md": ""}
    )
    named = day_notes(day_settings).named("What did I write in my last daily entry?")

    # Not the 20th, to come, nor today's empty file.
    assert named.days == ("2026-11-17",) and named.paths == ("Journal/2026-11-17.md",)
    assert named.is_past and is_about_days_alone(named, "What did I write in my last daily entry?")
    assert day_notes(day_settings).paths_for("Summarize my latest journal entry") == ("Journal/2026-11-17.md",)
    assert day_notes(day_settings).paths_for("What was my last note about the greenhouse?") == ()  # no entry named


def test_the_days_are_named_to_the_model_as_a_day_a_span_or_a_list() -> None:
    assert days_label(["2026-11-16"]) == "2026-11-16"
    assert days_label(["2026-11-09", "2026-11-10", "2026-11-11"]) == "2026-11-09 to 2026-11-11"
    assert days_label(["2026-11-16", "2026-11-23"]) == "2026-11-16 and 2026-11-23"  # Monday: gone by and coming
    assert days_label([]) == ""


def test_a_week_day_named_alone_is_no_definite_day(day_settings: Settings) -> None:
    # "Friday's potluck" may be any Friday's: its notes are read, but an answer need not keep to that date.
    notes = day_notes(day_settings)

    assert not notes.named("What did I bring to Friday's potluck?").is_definite
    assert notes.named("What did I do last Friday?").is_definite
    assert notes.named("What did I do on Friday last week?").is_definite  # the week says which
    assert notes.named("What did I do on 2026-11-16?") == notes.named("What happened on 16 November 2026?")
    assert notes.named("What did I do on 2026-11-16?").days == ("2026-11-16",)


def test_the_days_named_are_kept_in_a_checkpoint_as_plain_json(day_settings: Settings) -> None:
    named = day_notes(day_settings).named("What did I bring to Friday's potluck?")

    record = named.as_record()

    assert json.loads(json.dumps(record)) == record
    assert NamedDays.from_record(record) == named
    assert NamedDays.from_record(None) == NamedDays() == NamedDays.from_record({})  # an older turn's checkpoint


def test_days_asked_of_the_past_are_told_apart_from_days_to_come(day_settings: Settings) -> None:
    notes = day_notes(day_settings)  # Wednesday 2026-11-18

    assert notes.named("What did I cook on 2026-11-16?").is_past
    assert not notes.named("What do I have to cook tomorrow?").is_past  # to do, and a day to come
    assert not notes.named("What was planned for 2026-11-20?").is_past  # past tense, a day to come


def test_a_month_all_of_whose_days_are_named_takes_its_monthly_note_first(
    day_settings: Settings, day_services: Services
) -> None:
    december = datetime(2026, 12, 5, 9, 0)
    journal = ("Journal/2026-11-16.md", "Journal/2026-11-17.md", "Meetings/2026-11-16 Standup.md")

    named = day_notes(day_settings, december).named("Summarize last month.")

    assert named.paths == (*journal, "Reviews/2026-11.md", "Reviews/2026-W47 Weekly Review.md")
    assert "Reviews/2026-11.md" not in day_notes(day_settings).paths_for("Summarize this week.")  # not all its days


def test_a_summary_of_a_month_reads_its_own_and_its_weeks_notes_first_among_many_daily_notes(
    day_settings: Settings, day_services: Services
) -> None:
    # Searched among thirty daily notes, "Summarize last month." found lines of their Plans, no weekly review.
    summary = "Summarize last month: what did I do, plan and log each day in the journal?"
    write_notes(
        day_settings.vault.path,
        {
            f"Journal/2026-11-{day:02d}.md": "# Plan\n\n- Summarize the month: plan, log and do it.\n"
            for day in range(1, 15)
        },
    )
    day_services.reindexer.run_once()
    named = day_notes(day_settings, datetime(2026, 12, 5, 9, 0)).named(summary)

    hits = passages_for(day_services.retriever, day_services.retriever.prepare(summary), named, k=6, alone=True)

    paths = [hit.chunk.path for hit in hits]
    assert paths[:2] == ["Reviews/2026-11.md", "Reviews/2026-W47 Weekly Review.md"]  # the month's, then the week's
    assert len(hits) == 6 and all(path.startswith("Journal/") for path in paths[2:])


def test_a_week_partly_named_takes_no_weekly_note(day_settings: Settings) -> None:
    # Asked on Sunday 2026-11-22 about "yesterday" only: the week's note is not that day's.
    sunday = datetime(2026, 11, 22, 9, 0)

    assert day_notes(day_settings, sunday).paths_for("What did I do yesterday?") == ()


def test_the_search_puts_the_days_notes_beside_what_its_words_find(day_services: Services) -> None:
    # The words of the question point at Garden.md and Lemon.md; the day's notes stand among the hits all the same.
    retriever = day_services.retriever
    question = "What did I do about the greenhouse door and the lemon tree on Monday?"
    among = ("Journal/2026-11-16.md", "Meetings/2026-11-16 Standup.md")

    plain = {hit.chunk.path for hit in retriever.search_for(retriever.prepare(question), k=3, passages=True)}
    named = [
        hit.chunk.path for hit in retriever.search_for(retriever.prepare(question), k=3, passages=True, among=among)
    ]

    alone = retriever.search_for(retriever.prepare(question), k=3, passages=True, among=among, only_among=True)

    assert "Meetings/2026-11-16 Standup.md" not in plain
    assert set(among) <= set(named)
    assert len(named) == 3
    assert {hit.chunk.path for hit in alone} == set(among)


def test_over_chat_the_model_reads_the_notes_of_the_day_asked_about(
    day_settings: Settings, day_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("You fixed the greenhouse door hinge [[2026-11-16#Log]]."))

    sent = prompt_for("What did I do on 2026-11-16?", day_settings, day_services, llm)

    assert "Fixed the greenhouse door hinge" in sent
    assert "Agreed to ship the beta on Friday." in sent
    # A question about the day alone reads the day's notes alone: another day's line is no answer to it.
    assert set(re.findall(r'<note source="\[\[([^#\]]+)', sent)) == {"2026-11-16", "2026-11-16 Standup"}
    # Their date stands only in their links: the 1.5B said they mention no event of the day until told.
    assert sent.endswith("(The notes above are your notes of 2026-11-16: say what they say, citing them.)")


def test_a_question_naming_a_day_casually_still_meets_the_relevance_floor(
    day_settings: Settings, day_services: Services
) -> None:
    # "What should I plant today?" is about planting: today's note is read beside, but does not cover it.
    journal = {f"Journal/{date.today().isoformat()}.md": "# Today\n\nBaked rye bread.\n"}
    with retrieval_only_under_a_floor_no_question_clears(day_settings, day_services, journal) as ask:
        reply = ask("Which quantum bolts fit today?")

    assert "Baked rye bread." not in reply and "[[" not in reply.split(SEARCHED_HEADING)[0]  # nearest listed only


def test_without_a_model_a_day_with_notes_is_answered_whatever_the_relevance_floor(
    day_settings: Settings, day_services: Services
) -> None:
    # A floor no question clears: the day's notes cover "What did I write yesterday?" all the same.
    yesterday = date.today() - timedelta(days=1)
    journal = {f"Journal/{yesterday.isoformat()}.md": "# Yesterday\n\nBaked rye bread.\n"}
    with retrieval_only_under_a_floor_no_question_clears(day_settings, day_services, journal) as ask:
        answered = ask("What did I write yesterday?")
        refused = ask("What did I write on 2019-01-01?")

    assert f"[[{yesterday.isoformat()}" in answered and "Baked rye bread." in answered
    # No note of that day, and the floor refuses the words: the nearest sections are listed, nothing quoted.
    assert refused.startswith(REFUSAL) and "[[" not in refused.split(SEARCHED_HEADING)[0]


def test_a_follow_up_is_searched_in_its_context_beside_the_days_notes(day_services: Services) -> None:
    retriever = day_services.retriever
    earlier = "What did I fix on the greenhouse door?"
    query = retriever.prepare("And what did I agree on at the standup?", earlier)
    among = ("Meetings/2026-11-16 Standup.md",)

    hits = retriever.search_for(query, k=3, passages=True, among=among)

    assert "Meetings/2026-11-16 Standup.md" in {hit.chunk.path for hit in hits}
    assert len(hits) == 3


def test_a_summary_of_the_days_reads_the_weeks_own_note_first(
    day_settings: Settings, day_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("A calm week; the beta shipped [[2026-W47 Weekly Review]]."))

    sent = prompt_for("Summarize the week of 2026-11-16.", day_settings, day_services, llm)

    sources = re.findall(r'<note source="\[\[([^#\]]+)', sent)
    assert sources[0] == "2026-W47 Weekly Review"
    assert {"2026-11-16", "2026-11-17", "2026-11-16 Standup"} <= set(sources)  # the days' notes after it


@pytest.mark.parametrize(
    "model_reply",
    [
        "I couldn't find this in your notes.",  # the 0.5B's, with only the day's notes before it
        "You repotted the lemon tree.",  # 2026-11-17's, which no passage of the day holds: withheld
    ],
)
def test_a_request_about_a_day_whose_notes_the_model_does_not_answer_from_gets_them_quoted(
    day_settings: Settings, day_services: Services, llm: ScriptedLLMServer, model_reply: str
) -> None:
    llm.add(Turn.text(model_reply))

    reply = reply_to("What did I do on 2026-11-16?", day_settings, day_services, llm)

    assert reply.startswith("Here is what your notes of 2026-11-16 say:\n\n1. [[2026-11-16")
    assert "Fixed the greenhouse door hinge with two new screws." in reply
    assert "Agreed to ship the beta on Friday." in reply
    assert "couldn't find" not in reply and "lemon" not in reply
    assert "Sources:" not in reply  # each quote stands under its own link


def test_a_request_about_days_listed_gets_each_days_notes_quoted(
    day_settings: Settings, day_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("I couldn't find this in your notes."))

    reply = reply_to("What did I do on 16 and 17 November?", day_settings, day_services, llm)

    assert reply.startswith("Here is what your notes of 2026-11-16 to 2026-11-17 say:")
    # One passage of each day's notes before a second of any: three quoted, and a note of each day among them.
    assert "Fixed the greenhouse door hinge" in reply and "Repotted the lemon tree" in reply
    assert len(re.findall(r"^\d\. \[\[", reply, flags=re.MULTILINE)) == 3
