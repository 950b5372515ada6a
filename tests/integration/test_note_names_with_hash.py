"""Notes whose file name holds '#' ("F# tips.md", from git) are found by their path, not split as Note#Heading."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.propose import WRITE_TOOLS, ProposalToolbox
from agent.propose.move import MOVE_TOOLS
from agent.tools import ToolRegistry
from core.edits import ProposedEdit
from core.errors import InvalidRequest, NotFound
from edits.proposals import SqliteProposalStore
from tests.edit_fakes import write_settings, write_tools_reader
from tests.integration.tool_calls import call
from tests.vault_state import write_notes

NOW = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
NOTES = {
    "Notes/F# tips.md": "---\nstatus: draft\n---\n# Pipes\n- [ ] learn the |> operator\nSee [[Other]].\n",
    "Notes/F.md": "# Plain F\nA note the split name would wrongly hit.\n",
    "C# basics.md": "# Types\nValue and reference types.\n",
    "Other.md": "# Other\n## Part\nThe part body.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", NOTES)


@pytest.fixture
def tools(vault: Path) -> ToolRegistry:
    return ToolRegistry(write_tools_reader(vault, NOW), max_chars=6_000)


@pytest.fixture
def toolbox(vault: Path, store: SqliteProposalStore) -> ProposalToolbox:
    reader = write_tools_reader(vault, NOW)
    return ProposalToolbox(
        reader, store, write_settings(), conversation_id="c1", clock=lambda: NOW, tools=(*WRITE_TOOLS, *MOVE_TOOLS)
    )


def propose(toolbox: ProposalToolbox, tool: str, **arguments: str) -> list[ProposedEdit]:
    """Return the proposals one call adds (the toolbox is one turn: earlier proposals count)."""
    known = len(toolbox.proposals)
    asyncio.run(toolbox.run(tool, json.dumps(arguments)))
    return toolbox.proposals[known:]


@pytest.mark.parametrize(
    ("note", "path"),
    [
        ("Notes/F# tips.md", "Notes/F# tips.md"),
        ("Notes/F# tips", "Notes/F# tips.md"),
        ("[[F# tips]]", "Notes/F# tips.md"),  # the citation the tools themselves give it
        ("C# basics.md", "C# basics.md"),
        ("C# basics", "C# basics.md"),
    ],
)
def test_read_note_takes_a_note_whose_name_holds_a_hash_by_its_path_or_name(
    tools: ToolRegistry, note: str, path: str
) -> None:
    found = call(tools, "read_note", note=note)
    assert found.text.startswith(f'<note path="{path}"')
    assert NOTES[path] in found.text


def test_note_hash_heading_links_still_read_one_section(tools: ToolRegistry) -> None:
    section = call(tools, "read_note", note="Other#Part")
    assert section.anchors == ("[[Other#Part]]",)
    assert "The part body." in section.text and "# Other\n" not in section.text
    with pytest.raises(NotFound, match="Notes/F.md has no heading 'tips'"):
        call(tools, "read_note", note="Notes/F#tips")


def test_links_properties_and_tasks_take_a_path_with_a_hash(tools: ToolRegistry) -> None:
    outgoing = call(tools, "links", command="outgoing", note="Notes/F# tips.md")
    assert "(Notes/F# tips.md) has 1 link" in outgoing.text and "Other.md" in outgoing.text
    properties = call(tools, "properties", command="of_note", note="Notes/F# tips.md")
    assert 'path="Notes/F# tips.md"' in properties.text and "draft" in properties.text
    tasks = call(tools, "tasks", command="in_note", note="Notes/F# tips.md")
    assert tasks.text.startswith("Notes/F# tips.md: 1 task(s), 1 open") and "|> operator" in tasks.text


def test_delete_proposes_the_note_named_by_the_path_not_the_note_before_the_hash(
    vault: Path, toolbox: ProposalToolbox
) -> None:
    (deleted,) = propose(toolbox, "delete_note", path="Notes/F# tips.md")
    assert (deleted.path, deleted.kind, deleted.new_text) == ("Notes/F# tips.md", "delete", None)
    assert (vault / "Notes/F# tips.md").read_text(encoding="utf-8") == NOTES["Notes/F# tips.md"]


def test_a_note_with_a_hash_moves_to_a_folder_keeping_its_name_but_is_not_renamed_to_one(
    toolbox: ProposalToolbox,
) -> None:
    (moved,) = propose(toolbox, "move_note", path="C# basics.md", new_path="Notes/")
    assert (moved.path, moved.new_path) == ("C# basics.md", "Notes/C# basics.md")
    (deleted,) = propose(toolbox, "delete_note", path="Notes/C# basics.md")  # there since this turn's move
    assert deleted.path == "Notes/C# basics.md"
    with pytest.raises(InvalidRequest, match="contains '#'"):
        propose(toolbox, "move_note", path="Other.md", new_path="Notes/Other #2")


def test_a_link_to_a_heading_stays_one_beside_a_note_named_like_the_link(tmp_path: Path) -> None:
    # Review finding: "[[Q#1]]" opened "Sub/Q#1.md" (name matching ignores folders), and our citation of heading B
    # of A, "[[A#B]]", opened "A#B.md".
    notes = {"Q.md": "# Q\n## 1\nFirst.\n", "Sub/Q#1.md": "Other note.\n", "A.md": "# A\n## B\nBee.\n", "A#B.md": "x\n"}
    root = write_notes(tmp_path / "vault", notes)
    tools = ToolRegistry(write_tools_reader(root, NOW), max_chars=6_000)

    assert call(tools, "read_note", note="[[Q#1]]").anchors == ("[[Q#1]]",)
    assert "First." in call(tools, "read_note", note="[[Q#1]]").text
    assert "Bee." in call(tools, "read_note", note="[[A#B]]").text
    assert call(tools, "read_note", note="A#B.md").text.startswith('<note path="A#B.md"')
    assert call(tools, "read_note", note="Sub/Q#1.md").text.startswith('<note path="Sub/Q#1.md"')
