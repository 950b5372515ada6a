"""A Summarize crew (frontmatter.set of a free-text `summary`) end to end: properties stay one line, and the run log
quotes the model's text so that Obsidian's Tasks plugin finds no task in it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from core.settings import Settings
from crews.logs.runlog import RUN_NOTE
from tests.crew_support import crew_world, schema_of
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes

SUMMARIZE = """---
crew-kind: team
name: Summarize
write_scope: ["TaskNotes/**"]
max_writes: 20
max_llm_calls: 2
tasks:
  - id: notes
    collector: tasknotes.query
    params: {folder: TaskNotes, include_content: true, limit: 3}
  - id: summarize
    agent: Triage
    instruction: Summarize each note in one line.
    output: {family: frontmatter.set, allowed_keys: [summary]}
  - id: apply
    actions: frontmatter.set
---
"""
COPIED_NOTE = "Checklist\n- [ ] #task Buy new batteries 📅 2026-12-01\n# Hallway"
TASK_LINE = re.compile(r"^[\s>]*([-*+]|\d+[.)])\s+\[.\]", re.MULTILINE)
TAG = re.compile(r"(?<![\\\w#])#task\b")


def summaries(summary: str) -> Any:
    def answer(body: dict[str, Any]) -> Turn:
        paths = (schema_of(body) or {})["properties"]["changes"]["items"]["properties"]["path"]["enum"]
        return Turn.text(json.dumps({"changes": [{"path": path, "set": {"summary": summary}} for path in paths]}))

    return answer


def test_a_summary_holding_copied_note_lines_is_rejected_and_quoted_inertly(settings: Settings, vault: Path) -> None:
    with crew_world(settings, script=summaries(COPIED_NOTE)) as world:
        (vault / "_crews/Summarize.md").write_text(SUMMARIZE, encoding="utf-8")
        before = vault_hashes(vault)
        state = world.run("Summarize")
        after = vault_hashes(vault)

    assert state["status"] == "failed" and state["writes"] == 0
    assert {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)} <= {
        path for path in after if path.startswith("_crews/runs")
    }
    rejected = [line for line in state["tasks"][1]["lines"] if line.startswith("rejected")]
    assert len(rejected) == 3
    assert all("a property value is one line of text, this one has 3 lines" in line for line in rejected)
    run_note = (vault / "_crews/runs" / state["id"] / RUN_NOTE).read_text(encoding="utf-8")
    assert not TASK_LINE.search(run_note) and not TAG.search(run_note)


def test_a_one_line_summary_is_planned_and_its_dry_run_log_holds_no_live_tag(settings: Settings, vault: Path) -> None:
    with crew_world(settings, script=summaries("Hallway detector chirps #task [[Home]]")) as world:
        (vault / "_crews/Summarize.md").write_text(SUMMARIZE, encoding="utf-8")
        state = world.run("Summarize", dry_run=True)

    assert state["status"] == "ok" and len(state["planned"]) == 3
    run_note = (vault / "_crews/runs" / state["id"] / RUN_NOTE).read_text(encoding="utf-8")
    outside_fences = re.sub(r"^(`{3,})diff\n.*?^\1$", "", run_note, flags=re.MULTILINE | re.DOTALL)
    assert "set summary: Hallway detector chirps \\#task \\[\\[Home\\]\\]" in outside_fences
    assert not TAG.search(outside_fences)
