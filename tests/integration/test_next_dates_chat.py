"""Over chat, an answer dating what comes next only before today is withheld (rag/answer/next_dates.py)."""

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
