"""The agent's read tools over sample_vault's structure: links, tags, properties, tasks, daily notes, templates."""

from __future__ import annotations

import json
import shutil

import pytest

from agent.tools import ToolRegistry
from app.wiring import Services
from core.errors import NotFound
from tests.integration.tool_calls import call, indexed_registry

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed


@pytest.fixture
def tools(services: Services) -> ToolRegistry:
    return indexed_registry(services)


def test_backlinks_name_the_linking_notes_at_the_heading_holding_the_link(tools: ToolRegistry) -> None:
    found = call(tools, "links", command="backlinks", note="Garlic")
    assert found.text.startswith("4 note(s) link to [[Garlic]] (Areas/Garden/Garlic.md):")
    assert "- MOCs/Garden MOC.md: [[Garden MOC#In the ground right now]] embeds it" in found.text
    assert "[[2026-11-08#Plan]]" in found.anchors and "[[Garden MOC#In the ground right now]]" in found.anchors


def test_outgoing_links_show_where_each_link_leads(tools: ToolRegistry) -> None:
    found = call(tools, "links", command="outgoing", note="Kitchen MOC")
    assert "[[Sourdough#Final recipe]] -> Areas/Cooking/Sourdough.md [[Sourdough]]" in found.text
    assert "[[Mom's Plum Cake]] -> unresolved (no such note)" in found.text
    assert "[[Kitchen MOC]]" in found.anchors and "[[Sourdough]]" in found.anchors


def test_orphans_and_unresolved_links_cover_the_whole_vault(tools: ToolRegistry) -> None:
    orphans = call(tools, "links", command="orphans")
    assert "- Inbox/Quick capture.md [[Quick capture]]" in orphans.text
    assert "Garlic" not in orphans.text and ".trash" not in orphans.text
    unresolved = call(tools, "links", command="unresolved")
    assert "- [[Mom's Plum Cake]] written in: [[Kitchen MOC]]" in unresolved.text
    assert "[[Qdrant Snapshot Strategy]] written in: [[2026-11-12 Architecture Review]]" in unresolved.text


def test_links_reflect_notes_saved_after_the_last_index_run(tools: ToolRegistry, services: Services) -> None:
    (services.settings.vault_path / "Inbox" / "Planting day.md").write_text(
        "# Planting day\n\nMulch the [[Garlic]] with straw.\n", encoding="utf-8"
    )
    found = call(tools, "links", command="backlinks", note="Garlic")
    assert "- Inbox/Planting day.md: [[Planting day#Planting day]] links to it (line 3)" in found.text
    assert "- Inbox/Planting day.md [[Planting day]]" in call(tools, "links", command="orphans").text


def test_tags_are_counted_and_nested_tags_match_their_parent(tools: ToolRegistry) -> None:
    counts = call(tools, "tags", command="list_with_counts")
    assert "- #area/garden: 12" in counts.text and "- #project/librarian: 15" in counts.text
    garden = call(tools, "tags", command="notes_with_tag", tag="#area/garden")
    assert garden.text.startswith("12 note(s) tagged #area/garden")
    assert "[[Garlic]]" in garden.anchors and "[[Garden MOC]]" in garden.anchors
    area = call(tools, "tags", command="notes_with_tag", tag="AREA")
    assert area.text.startswith("25 note(s) tagged #AREA (sub-tags included):")  # garden 12 + cooking 8 + health 5


def test_properties_of_a_note_values_across_the_vault_and_names(tools: ToolRegistry) -> None:
    of_note = call(tools, "properties", command="of_note", note="Vault Librarian")
    assert '<properties path="Projects/Librarian/Vault Librarian.md" source="[[Vault Librarian]]">' in of_note.text
    assert "- status: active" in of_note.text and "- aliases: Librarian, VL" in of_note.text
    status = call(tools, "properties", command="values_of_property", name="Status")
    assert "- in-progress (3): [[Deployment Notes]], [[Evaluation Plan]], [[File the tax return]]" in status.text
    assert "- paused (1): [[Balcony Irrigation]]" in status.text
    assert "[[Balcony Irrigation]]" in status.anchors
    names = call(tools, "properties", command="list")
    assert "- status: 24 note(s)" in names.text  # 16 notes, and the 8 task notes of TaskNotes/
    missing = call(tools, "properties", command="values_of_property", name="colour")
    assert "No note has the property 'colour'" in missing.text


def test_open_tasks_exclude_done_cancelled_and_template_placeholders(tools: ToolRegistry) -> None:
    found = call(tools, "tasks", command="open")
    assert "- [ ] Draft the [[Incremental Indexing]] note (line 16)" in found.text
    assert "- [/] Caddy route with basic auth" in found.text
    assert "- [x]" not in found.text and "- [-]" not in found.text
    assert "Templates/" not in found.text
    assert "[[2026-11-05#Plan]]" in found.anchors and "[[Deployment Notes#Open tasks]]" in found.anchors
    in_daily_folder = call(tools, "tasks", command="open", folder="Daily")
    assert all(line.startswith('<tasks path="Daily/') for line in in_daily_folder.text.splitlines() if "<tasks" in line)
    done = call(tools, "tasks", command="done", folder="Daily")
    assert "- [x] Decide the embedding model → [[Embedding Model Choice]]" in done.text and "- [ ]" not in done.text


def test_task_notes_are_listed_with_the_tasks_of_their_state(tools: ToolRegistry) -> None:
    # TaskNotes/ keeps one note per task (the TaskNotes plugin's way), its state in its properties.
    found = call(tools, "tasks", command="open", folder="TaskNotes")
    assert '<tasks kind="task notes">' in found.text
    assert "- [open] Renew passport (due 2020-03-15, priority high) [[Renew passport]]" in found.text
    assert "- [in-progress] File the tax return (due 2099-07-31) [[File the tax return]]" in found.text
    assert "Cancel the streaming subscription" not in found.text and "[[Renew passport]]" in found.anchors
    done = call(tools, "tasks", command="done", folder="TaskNotes")
    cancelled = "- [done] Cancel the streaming subscription (done 2026-11-01) [[Cancel the streaming subscription]]"
    assert cancelled in done.text
    own = call(tools, "tasks", command="in_note", note="Renew passport")
    assert own.text.startswith("TaskNotes/Renew passport.md: 2 task(s), 2 open. The note is a task itself (open).")
    assert "- [open] Renew passport (due 2020-03-15, priority high) [[Renew passport]]" in own.text
    assert "- [ ] Get new biometric passport photos taken" in own.text


def test_tasks_of_a_note_and_of_a_daily_note(tools: ToolRegistry) -> None:
    daily = call(tools, "tasks", command="in_daily", date="2026-11-05")
    assert daily.text.startswith("Daily/2026-11-05.md: 4 task(s), 1 open.")
    assert daily.anchors == ("[[2026-11-05#Plan]]",)
    assert call(tools, "tasks", command="in_daily").text == daily.text  # the clock says 2026-11-05
    in_note = call(tools, "tasks", command="in_note", note="Home Server Migration")
    assert "- [-] Set up Proxmox instead of plain Debian" in in_note.text
    with pytest.raises(NotFound, match="no daily note for 2026-11-14"):
        call(tools, "tasks", command="in_daily", date="2026-11-14")


def test_daily_note_path_and_text_follow_the_daily_notes_settings(tools: ToolRegistry) -> None:
    today = call(tools, "daily_note", command="path")
    assert today.text == "The daily note for 2026-11-05 (Thursday) is Daily/2026-11-05.md [[2026-11-05]]; it exists."
    missing = call(tools, "daily_note", command="path", date="2026-11-14")
    assert (
        missing.text == "The daily note for 2026-11-14 (Saturday) would be Daily/2026-11-14.md; it does not exist yet."
    )
    assert missing.anchors == ()
    yesterday = call(tools, "daily_note", command="read", date="yesterday")
    assert yesterday.text.startswith('<note path="Daily/2026-11-04.md" source="[[2026-11-04]]" date="2026-11-04">')
    assert yesterday.anchors == ("[[2026-11-04]]",)


def test_daily_note_paths_use_the_configured_moment_format(tools: ToolRegistry, services: Services) -> None:
    config = services.settings.vault_path / ".obsidian" / "daily-notes.json"
    config.write_text(json.dumps({"folder": "Journal/", "format": "YYYY/MM-MMM/YYYY-MM-DD dddd [log]"}))
    found = call(tools, "daily_note", command="path", date="2026-11-05")
    assert "would be Journal/2026/11-Nov/2026-11-05 Thursday log.md" in found.text
    config.unlink()  # no plugin settings: Obsidian's defaults, the vault root and YYYY-MM-DD
    assert "would be 2026-11-05.md" in call(tools, "daily_note", command="path").text


def test_daily_notes_the_periodic_notes_plugin_handles_go_where_its_settings_say(
    tools: ToolRegistry, services: Services
) -> None:
    obsidian = services.settings.vault_path / ".obsidian"
    plugin = obsidian / "plugins" / "periodic-notes"
    plugin.mkdir(parents=True)
    daily = {"enabled": True, "folder": "Journal/Daily", "format": "YYYY-MM-DD dddd", "template": ""}
    (plugin / "data.json").write_text(json.dumps({"daily": daily, "weekly": {"enabled": False}}))
    path = "would be Daily/2026-11-14.md"  # the core plugin's settings (Daily/) while Periodic Notes is off
    assert path in call(tools, "daily_note", command="path", date="2026-11-14").text

    (obsidian / "community-plugins.json").write_text(json.dumps(["obsidian-tasks-plugin", "periodic-notes"]))
    found = call(tools, "daily_note", command="path", date="2026-11-14")
    assert "would be Journal/Daily/2026-11-14 Saturday.md" in found.text

    (plugin / "data.json").write_text(json.dumps({"daily": {**daily, "enabled": False}}))  # its daily notes off
    assert path in call(tools, "daily_note", command="path", date="2026-11-14").text


def test_templates_are_listed_and_read_verbatim(tools: ToolRegistry, services: Services) -> None:
    listed = call(tools, "templates", command="list")
    assert listed.text.splitlines() == [
        "3 template(s) in 'Templates':",
        "- Daily Template (Templates/Daily Template.md)",
        "- Meeting Template (Templates/Meeting Template.md)",
        "- Weekly Review Template (Templates/Weekly Review Template.md)",
    ]
    meeting = call(tools, "templates", command="read", name="meeting template")
    assert meeting.anchors == ("[[Meeting Template]]",) and "# {{title}}" in meeting.text
    (services.settings.vault_path / ".obsidian" / "templates.json").unlink()
    assert "3 template(s) in 'Templates'" in call(tools, "templates", command="list").text  # the usual folder
    shutil.rmtree(services.settings.vault_path / "Templates")
    with pytest.raises(NotFound, match="no templates folder is configured"):
        call(tools, "templates", command="list")
