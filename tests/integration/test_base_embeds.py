"""A base view a passage embeds reaches the model as the rows the embedding note shows (`this` is that note)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.tools import ToolRegistry
from agent.tools.bases.embeds import BaseEmbeds
from agent.tools.reader import VaultReader
from app.http.main import create_app
from app.wiring import Services, build_services
from core.domain import Chunk, SearchHit
from core.settings import Settings
from llm_client import OpenAICompatibleChatModel
from tests.edit_fakes import NoSearch
from tests.fakes import HashingEmbedder
from tests.integration.tool_calls import call
from tests.scripted_llm import ScriptedLLMServer, Turn
from tests.vault_state import write_notes

# As kepano's vault has them: a category base with a view filtered by the note that embeds it.
TRIPS_BASE = """\
filters:
  and:
    - note.categories.contains(link("Trips"))
    - '!file.name.contains("Template")'
properties:
  file.name:
    displayName: Trip
views:
  - type: table
    name: All trips
    order: [file.name, start, end, booking]
    sort:
      - property: start
        direction: DESC
  - type: table
    name: Location
    filters:
      and:
        - list(loc).contains(this)
    order: [file.name, start, end]
"""
TOKEN = "ghx7Qm2Lp9Zr4Tv8Wn3Ks6Yd1Fb5Hc0J"


def trip(start: str, end: str, *places: str, booking: str = "none") -> str:
    locations = "".join(f'\n  - "[[{place}]]"' for place in places)
    return f'---\ncategories:\n  - "[[Trips]]"\nstart: {start}\nend: {end}\nbooking: {booking}\nloc:{locations}\n---\n'


@pytest.fixture
def trips_vault(vault: Path) -> Path:
    write_notes(
        vault,
        {
            "Templates/Trip Template.md": trip("", "", "Nowhere"),
            "Trips/2023 Japan Trip.md": trip("2023-09-12", "2023-09-30", "Kyoto", "Japan"),
            "Trips/2025 Lisbon Weekend.md": trip("2025-03-07", "2025-03-09", "Lisbon", booking=f"API_TOKEN={TOKEN}"),
            "Places/Kyoto.md": '---\ncategories:\n  - "[[Places]]"\n---\n## Trips\n\n![[Trips.base#Location]]\n',
            "Places/Lisbon.md": "## Trips\n\n![[Trips.base#Location|Visits]]\n",
            "Categories/Trips.md": "![[Trips.base]]\n",
            "Categories/Broken.md": "![[Missing.base#Location]]\n",
        },
    )
    (vault / "Bases").mkdir()
    (vault / "Bases" / "Trips.base").write_text(TRIPS_BASE, encoding="utf-8")
    return vault


def hit(path: str, text: str) -> SearchHit:
    title = Path(path).stem
    return SearchHit(Chunk(path=path, title=title, heading_path=(), anchor=f"[[{title}]]", text=text), score=1.0)


def expanded_text(settings: Settings, path: str, text: str, *, max_rows: int = 20) -> str:
    expanded = BaseEmbeds(VaultReader(settings.vault, NoSearch()), max_rows=max_rows).expand([hit(path, text)])
    return expanded[0].chunk.text


def row_links(text: str) -> list[str]:
    """Return the first cell of each body row of the tables in `text`."""
    return [line.split(" | ")[0].removeprefix("| ") for line in text.splitlines() if line.startswith("| [[")]


def test_an_embedded_view_is_replaced_by_the_rows_the_embedding_note_shows(
    settings: Settings, trips_vault: Path
) -> None:
    text = expanded_text(settings, "Places/Kyoto.md", "Trips:\n![[Trips.base#Location]]")

    assert text.splitlines() == [
        "Trips:",
        "",  # each view a block of its own, as Obsidian shows it
        "| Trip | start | end |",
        "| --- | --- | --- |",
        "| [[2023 Japan Trip]] | 2023-09-12 | 2023-09-30 |",  # `this` is Kyoto: not the Lisbon weekend
    ]


def test_views_embedded_on_consecutive_lines_stay_two_tables(settings: Settings, trips_vault: Path) -> None:
    # kepano's Kyoto note: `![[Map.base#Location]]` right above `![[Places.base#Location]]`; written out with no
    # blank line between, the second view's header and rows read as rows of the first.
    text = expanded_text(settings, "Places/Kyoto.md", "![[Trips.base#Location]]\n![[Trips.base]]\nSee you there.")

    tables = text.split("\n\n")
    assert [table.splitlines()[0] for table in tables] == [
        "| Trip | start | end |",
        "| Trip | start | end | booking |",
        "See you there.",
    ]
    assert text.count("\n\n") == 2  # no more blank lines than that


def test_an_embed_without_a_view_shows_the_first_one_sorted_and_the_templates_left_out(
    settings: Settings, trips_vault: Path
) -> None:
    text = expanded_text(settings, "Categories/Trips.md", "![[Trips.base]]")

    assert row_links(text) == ["[[2025 Lisbon Weekend]]", "[[2023 Japan Trip]]"]  # start descending; no template
    assert "| Trip | start | end | booking |" in text  # the first view's columns


def test_a_long_view_is_cut_to_its_first_rows_and_says_there_are_more(settings: Settings, trips_vault: Path) -> None:
    text = expanded_text(settings, "Categories/Trips.md", "![[Trips.base]]", max_rows=1)

    assert row_links(text) == ["[[2025 Lisbon Weekend]]"] and "Japan" not in text
    assert text.endswith("\n(More rows of this view are not shown.)")


def test_an_embed_of_a_missing_base_or_view_stays_as_written(settings: Settings, trips_vault: Path) -> None:
    for written in ("![[Missing.base#Location]]", "![[Trips.base#No such view]]"):
        assert expanded_text(settings, "Categories/Broken.md", written) == written


def test_an_embed_in_code_is_shown_as_written(settings: Settings, trips_vault: Path) -> None:
    written = "Embed it with `![[Trips.base#Location]]`, or:\n\n```markdown\n![[Trips.base]]\n```\n"
    assert expanded_text(settings, "Places/Kyoto.md", written) == written


def test_a_view_with_no_rows_says_so_without_a_number(settings: Settings, trips_vault: Path) -> None:
    text = expanded_text(settings, "Places/Porto.md", "Never been.\n![[Trips.base#Location]]")

    assert text == "Never been.\n\n(The base view 'Location' shown here lists no notes.)"


def test_a_passage_of_views_listing_no_notes_is_left_out(settings: Settings, trips_vault: Path) -> None:
    # It holds nothing of the notes: asked "What's overdue?" over kepano's vault, the 0.5B answered with one.
    embeds = BaseEmbeds(VaultReader(settings.vault, NoSearch()))
    empty = hit("Places/Porto.md", "## Trips\n![[Trips.base#Location]]\n![[Trips.base#Location]]")
    kyoto = hit("Places/Kyoto.md", "![[Trips.base#Location]]")

    assert [h.chunk.path for h in embeds.expand([empty, kyoto])] == ["Places/Kyoto.md"]


def test_hits_without_an_embed_are_returned_as_they_are(settings: Settings, trips_vault: Path) -> None:
    plain = hit("Places/Kyoto.md", "Temples and a link to [[Trips]] and ![[photo.png]].")
    reader = VaultReader(settings.vault, NoSearch())

    assert BaseEmbeds(reader).expand([plain]) == [plain]


@pytest.fixture
def indexed(settings: Settings, trips_vault: Path) -> Iterator[Services]:
    services = build_services(settings, embedder=HashingEmbedder())
    services.reindexer.run_once()
    yield services
    services.close()


def test_the_model_reads_the_rows_redacted_and_a_row_it_cites_is_a_link(
    settings: Settings, indexed: Services, llm: ScriptedLLMServer
) -> None:
    llm.add(Turn.text("Two: Lisbon from 7 to 9 March 2025 [[2025 Lisbon Weekend]], and Japan."))
    configured = settings.model_copy(
        update={"relevance_floor": -1.0, "watch": False, "llm_base_url": (llm.base_url,), "llm_tools": "off"}
    )
    app = create_app(configured, indexed, chat_model=OpenAICompatibleChatModel(configured.llm))
    question = "Which trips are there, all trips?"
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": question}]}
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text

    prompt = llm.chat_requests[0].messages[-1]["content"]
    assert "| [[2025 Lisbon Weekend]] | 2025-03-07 | 2025-03-09 | API_TOKEN=[redacted secret] |" in prompt
    assert TOKEN not in prompt  # another note's property is masked as a hit's text is
    reply = str(response.json()["choices"][0]["message"]["content"])
    assert reply.startswith("Two: Lisbon from 7 to 9 March 2025 [[2025 Lisbon Weekend]], and Japan.")


def test_without_a_model_the_passages_shown_hold_the_rows_too(settings: Settings, indexed: Services) -> None:
    configured = settings.model_copy(update={"relevance_floor": -1.0, "watch": False})
    app = create_app(configured, indexed, chat_model=None)
    body = {"model": "vault-librarian", "messages": [{"role": "user", "content": "Which trips are there, all trips?"}]}
    with TestClient(app, base_url="http://127.0.0.1") as client:
        response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text

    reply = str(response.json()["choices"][0]["message"]["content"])
    assert "[[2025 Lisbon Weekend]] | 2025-03-07 | 2025-03-09" in reply


def test_the_read_tools_show_the_rows_where_the_note_embeds_the_view(settings: Settings, indexed: Services) -> None:
    # A model that reads or searches with tools (a structured caller in chat, an MCP client) sees what Obsidian shows.
    tools = ToolRegistry(VaultReader(settings.vault, indexed.retriever))

    read = call(tools, "read_note", note="Kyoto").text
    section = call(tools, "read_note", note="Lisbon", heading="Trips").text
    found = call(tools, "search_notes", query="Trips", k=10).text

    assert "| [[2023 Japan Trip]] | 2023-09-12 | 2023-09-30 |" in read and "Trips.base" not in read
    assert "| [[2025 Lisbon Weekend]] | 2025-03-07 | 2025-03-09 |" in section and "Japan" not in section
    assert "| [[2025 Lisbon Weekend]] | 2025-03-07 | 2025-03-09 | API_TOKEN=[redacted secret] |" in found
    assert TOKEN not in read + section + found


def test_the_bases_tool_computes_a_view_as_the_note_named_shows_it(settings: Settings, indexed: Services) -> None:
    tools = ToolRegistry(VaultReader(settings.vault, indexed.retriever))

    alone = call(tools, "bases", command="query", base="Trips", view="Location").text
    in_kyoto = call(tools, "bases", command="query", base="Trips", view="Location", note="Kyoto").text

    assert "0 row(s)" in alone and "pass it as `note`" in alone  # `this` is the base file: no trip lists it
    assert in_kyoto.startswith("Base Bases/Trips.base, view 'Location' (table), as [[Kyoto]] shows it: 1 row(s).")
    assert "| [[2023 Japan Trip]] | 2023-09-12 | 2023-09-30 |" in in_kyoto and "pass it as" not in in_kyoto
