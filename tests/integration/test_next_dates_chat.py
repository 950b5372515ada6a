"""Over chat, answers dating against today (rag/answer/next_dates.py).

What comes next dated only before today is withheld, as is how a day to come went told by its plan's figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.wiring import Services, build_services
from core.settings import Settings
from rag.answer.context import REFUSAL
from tests.fakes import HashingEmbedder
from tests.live_server import streamed_reply
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn
from tests.vault_state import write_notes

NOTES = {
    "Daily/2020-11-03.md": "# 2020-11-03\n\n## Plan\n\n- [ ] Rebook the dentist appointment 📅 2020-11-20\n",
    "Health/Dentist.md": "# Dentist\n\nDr. Weber, Hauptstraße 4. The dentist appointment is booked for 2099-01-12.\n",
    "Health/Half Marathon Plan.md": "# Half Marathon Plan\n\n## Goal\n\nRun the Leipzig Half Marathon on 11 April 2099 "
    "in under 1:49:00, an even 5:10 per kilometre.\n",
}


@pytest.fixture
def next_settings(tmp_path: Path) -> Settings:
    vault = write_notes(tmp_path / "vault", NOTES)
    return Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data")


@pytest.fixture
def next_services(next_settings: Settings) -> Iterator[Services]:
    built = build_services(next_settings, embedder=HashingEmbedder())
    built.reindexer.run_once()
    yield built
    built.close()


def reply_to(question: str, settings: Settings, services: Services, llm: ScriptedLLMServer) -> str:
    """Ask `question` over chat, streamed, and return the reply as the user saw it (the scripted model answers)."""
    return streamed_reply(question, settings, services, llm.base_url)


def test_the_next_appointment_dated_before_today_is_withheld(
    next_settings: Settings, next_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("The next dentist appointment is on 2020-11-20 [[2020-11-03#Plan]]."))

    reply = reply_to("When is my next dentist appointment?", next_settings, next_services, llm)

    assert reply.startswith(REFUSAL)
    assert "is on 2020-11-20" not in reply


def test_the_next_appointment_dated_after_today_is_shown(
    next_settings: Settings, next_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("The dentist appointment is booked for 2099-01-12 [[Dentist]]."))

    reply = reply_to("When is my next dentist appointment?", next_settings, next_services, llm)

    assert reply.startswith("The dentist appointment is booked for 2099-01-12")


def test_how_a_race_to_come_went_is_withheld_when_told_by_its_goal(
    next_settings: Settings, next_services: Services, llm: ScriptedLLMServer
) -> None:
    # the 0.5B on sample_vault: "1:49" for the finish time of a race its plan dates after today
    llm.add(Turn.text("1:49"))

    reply = reply_to("What was my finish time at the Leipzig Half Marathon 2099?", next_settings, next_services, llm)

    assert reply.startswith(REFUSAL)
    assert "Run the Leipzig Half Marathon on 11 April 2099 in under 1:49:00" in reply  # under "Closest in your notes:"


def test_the_goal_of_a_race_to_come_is_shown(
    next_settings: Settings, next_services: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Your goal was under 1:49:00 [[Half Marathon Plan#Goal]]."))

    reply = reply_to("What was my goal time for the Leipzig Half Marathon?", next_settings, next_services, llm)

    assert reply.startswith("Your goal was under 1:49:00")
