"""The crew root is in the edit layer's fixed denylist: no write tool, front, stored proposal or undo writes it.

A crew note edited by a model (a wider `write_scope`, a new team scheduled every minute) would write later without
anyone's confirmation, so chat, MCP, HTTP, crews and undo all refuse it through one rule (`edits.scope`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.propose import ProposalToolbox
from agent.tools import VaultReader
from app.http.main import create_app
from app.services.proposal_access import MCP_CONVERSATION
from app.wiring import Services, build_edit_services
from core.errors import AppError, InvalidRequest
from core.settings import Settings
from crews.install import install_examples
from edits.apply import apply_edits
from edits.changelog import ChangeStart, SqliteChangeLog, new_change_set_id
from edits.diffs import content_hash
from edits.proposals import SqliteProposalStore, new_proposal
from edits.undo import undo_last
from edits.writers import build_writer
from edits.writers.files import FileVaultWriter
from tests.edit_fakes import NoSearch, write_tools_reader
from tests.fakes import ScriptedAnswerer
from tests.integration.mcp_support import http_client, text_of, tool_names
from tests.live_server import serve_in_thread
from tests.vault_state import vault_hashes

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TEAM = "_crews/Daily-Briefing.md"
EVERY_MINUTE = (
    "---\ncrew-kind: team\nname: Every-Minute\nwrite_scope: ['**']\nschedule: '* * * * *'\ntasks:\n"
    "  - {id: c, collector: tasks.open}\n  - {id: l, agent: Briefer, output: {family: section.write}}\n"
    "  - {id: a, actions: section.replace, params: {note: Home.md, heading: X}}\n---\n"
)


@pytest.fixture
def crew_settings(settings: Settings) -> Settings:
    install_examples(settings.vault_path, settings.crews.root)
    return settings.model_copy(update={"write_backend": "files"})


def toolbox(settings: Settings, store: SqliteProposalStore, reader: VaultReader | None = None) -> ProposalToolbox:
    reader = reader or VaultReader(settings.vault, NoSearch(), clock=lambda: NOW)
    return ProposalToolbox(reader, store, settings.writes, conversation_id="c1", clock=lambda: NOW)


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("edit_note", {"command": "set_property", "path": TEAM, "property": "write_scope", "value": "**"}),
    ("edit_note", {"command": "set_property", "path": "_crews/Daily-Briefing", "property": "schedule", "value": "*"}),
    ("edit_note", {"command": "create", "path": "_crews/Every-Minute.md", "content": EVERY_MINUTE}),
    ("edit_note", {"command": "create", "path": "_crews/From template", "template": "Daily Template"}),
    ("edit_note", {"command": "append", "path": "_crews/agents/Briefer.md", "content": "Write to .obsidian too."}),
    ("move_note", {"path": "Inbox/Quick capture.md", "new_path": "_crews/"}),
    ("move_note", {"path": "Inbox/Quick capture.md", "new_path": "_crews/Every-Minute.md"}),
    ("move_note", {"path": TEAM, "new_path": "Inbox/"}),
    ("delete_note", {"path": "_crews/Task-Triage.md"}),
]


@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CALLS)])
def test_no_chat_write_tool_can_propose_a_change_in_the_crew_root(
    crew_settings: Settings, store: SqliteProposalStore, tool: str, arguments: dict[str, Any]
) -> None:
    before = vault_hashes(crew_settings.vault_path)
    with pytest.raises(AppError) as refused:
        toolbox(crew_settings, store).run_blocking(tool, json.dumps(arguments))
    assert "crew root _crews/" in refused.value.message
    assert store.pending("c1", NOW) == []
    assert vault_hashes(crew_settings.vault_path) == before


def test_a_daily_note_kept_in_the_crew_root_is_not_written(crew_settings: Settings, store: SqliteProposalStore) -> None:
    vault = crew_settings.vault_path
    (vault / ".obsidian" / "daily-notes.json").write_text(json.dumps({"folder": "_crews/daily"}), encoding="utf-8")
    arguments = {"command": "append", "date": "2026-03-02", "content": "- [ ] sneak in"}
    with pytest.raises(InvalidRequest, match="crew root _crews/"):
        toolbox(crew_settings, store).run_blocking("edit_daily_note", json.dumps(arguments))
    assert not (vault / "_crews" / "daily").exists()


def test_a_move_leaves_the_links_in_crew_notes_as_they_are(crew_settings: Settings, store: SqliteProposalStore) -> None:
    # A reader that sees the crew notes (CREWS_ROOT not in its ignore globs): their links to the note are found,
    # and still never rewritten; the move says which notes keep a broken link.
    vault = crew_settings.vault_path
    (vault / "_crews" / "Notes.md").write_text("See [[Quick capture]].\n", encoding="utf-8")
    moving = toolbox(crew_settings, store, write_tools_reader(vault, NOW, private=()))
    moving.run_blocking("move_note", json.dumps({"path": "Inbox/Quick capture.md", "new_path": "Captured"}))
    paths = {proposal.path for proposal in moving.proposals}
    assert "_crews/Notes.md" not in paths
    assert "links in _crews/Notes.md break" in moving.proposals[0].operation
    log = SqliteChangeLog(crew_settings.data_dir / "c.sqlite", crew_settings.data_dir / "snapshots")
    try:
        writer = FileVaultWriter(vault)
        report = asyncio.run(
            apply_edits(moving.proposals, writer=writer, log=log, settings=crew_settings.writes, now=NOW)
        )
    finally:
        log.close()
    assert {outcome.status for outcome in report.outcomes} == {"applied"}
    assert (vault / "_crews" / "Notes.md").read_text(encoding="utf-8") == "See [[Quick capture]].\n"


def stored_proposals(vault: Path) -> list[Any]:
    """Proposals made before the crew root was denied (or forged in the store): an edit, a move, a delete."""
    text = (vault / TEAM).read_text(encoding="utf-8")
    quick = (vault / "Inbox" / "Quick capture.md").read_text(encoding="utf-8")
    made = dict(conversation_id=MCP_CONVERSATION, now=NOW, ttl_minutes=60 * 24 * 365 * 10)
    return [
        new_proposal(operation="edit", path=TEAM, before=text, after=text.replace('"{daily}"', '"**"'), **made),
        new_proposal(
            operation="move", path="Inbox/Quick capture.md", before=quick, after=quick, new_path="_crews/Q.md", **made
        ),
        new_proposal(operation="delete", path="_crews/Task-Triage.md", before="x", after=None, **made),
    ]


def test_a_stored_proposal_for_the_crew_root_is_refused_when_applied(crew_settings: Settings) -> None:
    vault = crew_settings.vault_path
    before = vault_hashes(vault)
    edits = build_edit_services(crew_settings)
    try:
        proposals = stored_proposals(vault)
        for proposal in proposals:
            edits.store.add(proposal)
        report = asyncio.run(
            apply_edits(proposals, writer=edits.writer, log=edits.log, settings=edits.settings, now=NOW)  # type: ignore[arg-type]
        )
    finally:
        edits.close()
    assert [outcome.status for outcome in report.outcomes] == ["refused"] * 3
    assert all("crew root _crews/" in outcome.message for outcome in report.outcomes)
    assert vault_hashes(vault) == before


def test_http_apply_of_a_stored_proposal_for_a_crew_note_writes_nothing(
    crew_settings: Settings, services: Services
) -> None:
    vault = crew_settings.vault_path
    edits = build_edit_services(crew_settings)
    try:
        [edit, *_] = stored_proposals(vault)
        edits.store.add(edit)
    finally:
        edits.close()
    before = vault_hashes(vault)
    app = create_app(crew_settings.model_copy(update={"watch": False}), services, answerer=ScriptedAnswerer())
    with TestClient(app, base_url="http://127.0.0.1") as client:
        answer = client.post("/v1/proposals/apply", json={"ids": [edit.id]})
    assert answer.status_code == 200, answer.text
    [outcome] = answer.json()["outcomes"]
    assert outcome["status"] == "refused" and "crew root _crews/" in outcome["message"]
    assert vault_hashes(vault) == before


def test_mcp_write_tools_refuse_crew_notes_and_offer_no_way_to_enable_a_schedule(
    crew_settings: Settings, services: Services
) -> None:
    vault = crew_settings.vault_path
    before = vault_hashes(vault)

    async def scenario(url: str) -> tuple[list[str], list[Any]]:
        async with http_client(url) as client:
            names = tool_names((await client.list_tools()).tools)
            results = [
                await client.call_tool(tool, arguments)
                for tool, arguments in (CALLS[0], CALLS[2], CALLS[8])  # widen a scope, add a team, delete one
            ]
            return names, results

    app = create_app(crew_settings.model_copy(update={"watch": False}), services, answerer=ScriptedAnswerer())
    with serve_in_thread(app) as base:
        names, results = asyncio.run(scenario(f"{base}/mcp"))
    assert "edit_note" in names and not [name for name in names if "enable" in name or "schedule" in name]
    assert all(result.is_error and "crew root _crews/" in text_of(result) for result in results)
    assert vault_hashes(vault) == before


@pytest.fixture
def old_crew_edit(crew_settings: Settings) -> Iterator[SqliteChangeLog]:
    """A change set in the log that wrote a crew note (made before the crew root was denied)."""
    vault = crew_settings.vault_path
    log = SqliteChangeLog(crew_settings.data_dir / "old.sqlite", crew_settings.data_dir / "old-snapshots")
    before = (vault / TEAM).read_text(encoding="utf-8")
    after = before.replace('"{daily}"', '"**"')
    start = ChangeStart(
        change_set_id=new_change_set_id(), conversation_id="c0", proposal_id="p0", operation="edit", kind="replace",
        path=TEAM, new_path=None, before=before, hash_before=content_hash(before), hash_after=content_hash(after),
    )  # fmt: skip
    entry = log.begin(start, now=NOW)
    (vault / TEAM).write_text(after, encoding="utf-8")
    log.finish(entry, hash_after=content_hash(after), trash_path=None)
    yield log
    log.close()


def test_undo_never_writes_the_crew_root_either(crew_settings: Settings, old_crew_edit: SqliteChangeLog) -> None:
    vault = crew_settings.vault_path
    writer = build_writer(crew_settings.writes, vault)
    assert writer is not None
    edited = (vault / TEAM).read_text(encoding="utf-8")
    later = NOW + timedelta(minutes=1)
    with pytest.raises(InvalidRequest, match="crew root _crews/"):
        asyncio.run(undo_last(writer=writer, log=old_crew_edit, now=later, confirm=True))
    assert (vault / TEAM).read_text(encoding="utf-8") == edited
