"""Over chat, an answer in numbered parts with a wrong part: the parts borne out shown, the wrong one told so."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.wiring import Services
from core.settings import Settings
from rag.answer.context import REFUSAL
from tests.live_server import streamed_reply
from tests.scripted_llm import ScriptedLLMServer
from tests.scripted_llm_turns import Turn
from tests.vault_state import write_notes

# kepano-obsidian's way of keeping books: a record per book, a table per author
NOTES = {
    "References/Out of Control.md": '---\ncategories:\n  - "[[Books]]"\nauthor: "[[Kevin Kelly]]"\nisbn: 201483408\n'
    "year: 1992\n---\n\nA book on emergence, read for the meeting with Steph.\n",
    "References/Kevin Kelly.md": "# Kevin Kelly\n\n## Books\n\n| Name | Year |\n| --- | --- |\n"
    "| [[Out of Control]] | 1992 |\n",
}
QUESTION = "Which book by Kevin Kelly have I noted, and when was it published?"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """Return the two notes as the vault (conftest's `settings` and `services` build on it)."""
    return write_notes(tmp_path / "vault", NOTES)


def test_the_part_borne_out_is_shown_with_its_source_and_the_wrong_one_told_so(
    settings: Settings, services: Services, llm: ScriptedLLMServer
) -> None:
    # the 0.5B on kepano-obsidian (stops 58, 59): the ISBN for the year, which withheld the right book with it
    services.reindexer.run_once()
    llm.add(Turn.text("1. Out of Control\n2. 201483408"))

    reply = streamed_reply(QUESTION, settings, services, llm.base_url)

    assert reply.startswith(f"1. Out of Control\n2. {REFUSAL}")
    assert "201483408" not in reply.partition("Sources:")[0]
    # what bears out the part shown is quoted and listed, as under any answer
    assert '"[[Out of Control]] | 1992" [[Kevin Kelly#Books]]' in reply
    assert reply.endswith("Sources:\n- [[Kevin Kelly#Books]]")
