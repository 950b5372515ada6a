"""Crew runs end to end on sample_vault with the scripted model: the examples, the run log, limits, abort, undo."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

from core.settings import Settings
from crews.collectors import COLLECTORS
from crews.logs.runlog import RUN_NOTE, STATE_FILE
from crews.runs.team_locks import CrewBusy
from crews.service import CrewService
from tests.crew_support import BRIEFING, crew_world, daily_note_of, schema_answer, schema_of
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def run_files(vault: Path) -> set[str]:
    return {path for path in vault_hashes(vault) if path.startswith("_crews/runs/") or path == "_crews/runs.base"}


def test_daily_briefing_writes_only_todays_note_and_its_run_log_and_undo_restores_the_rest(
    settings: Settings, vault: Path
) -> None:
    with crew_world(settings) as world:
        before = vault_hashes(vault)
        state = world.run("Daily-Briefing")
        after = vault_hashes(vault)

        assert state["status"] == "ok", state
        note = daily_note_of(vault)
        relative = note.relative_to(vault).as_posix()
        assert changed(before, after) - run_files(vault) == {relative}
        text = note.read_text(encoding="utf-8")
        assert text.count("## Briefing") == 1 and BRIEFING in text
        assert state["writes"] == 1 and state["files"] == [relative] and state["llm_calls"] == 1
        run_log = vault / "_crews/runs" / state["id"]
        assert json.loads((run_log / STATE_FILE).read_text(encoding="utf-8"))["status"] == "ok"
        assert 'status: "ok"' in (run_log / RUN_NOTE).read_text(encoding="utf-8")

        plan = asyncio.run(world.crews.undo(state["id"], confirm=True))

        assert plan.is_applied
        skip = (".trash/", "_crews/")
        restored = {path: digest for path, digest in vault_hashes(vault).items() if not path.startswith(skip)}
        assert restored == {path: digest for path, digest in before.items() if not path.startswith(skip)}


def test_daily_briefing_run_twice_replaces_its_section_and_never_duplicates_it(settings: Settings, vault: Path) -> None:
    briefings = iter(["- first briefing", "- second briefing"])

    def answer(body: dict[str, object]) -> Turn:
        return schema_answer(body, briefing=next(briefings))  # type: ignore[arg-type]

    with crew_world(settings, script=answer) as world:
        assert world.run("Daily-Briefing")["status"] == "ok"
        assert world.run("Daily-Briefing")["status"] == "ok"

    text = daily_note_of(vault).read_text(encoding="utf-8")
    assert text.count("## Briefing") == 1
    assert "- second briefing" in text and "- first briefing" not in text


def test_task_triage_sets_only_allowed_values_on_collected_task_notes(settings: Settings, vault: Path) -> None:
    with crew_world(settings) as world:
        before = vault_hashes(vault)
        state = world.run("Task-Triage")
        after = vault_hashes(vault)

    assert state["status"] == "ok", state
    written = changed(before, after) - run_files(vault)
    assert written and all(path.startswith("TaskNotes/") for path in written)
    assert written == set(state["files"])
    for path in written:
        text = (vault / path).read_text(encoding="utf-8")
        assert "priority:" in text


def test_a_dry_run_writes_nothing_but_its_log_and_keeps_the_diffs(settings: Settings, vault: Path) -> None:
    with crew_world(settings) as world:
        before = vault_hashes(vault)
        state = world.run("Daily-Briefing", dry_run=True)
        after = vault_hashes(vault)

    assert state["status"] == "ok" and state["dry_run"] and state["writes"] == 0
    assert changed(before, after) <= run_files(vault)
    assert [item["action"] for item in state["planned"]] == ["section.replace"]
    assert "+## Briefing" in state["planned"][0]["diff"]


def test_malformed_then_repaired_output_is_applied_after_one_repair(settings: Settings, vault: Path) -> None:
    replies = iter([Turn.text("Sure! Here is the briefing: - water the plants"), None])

    def answer(body: dict[str, object]) -> Turn:
        return next(replies) or schema_answer(body)  # type: ignore[arg-type]

    with crew_world(settings, script=answer) as world:
        state = world.run("Daily-Briefing")

    assert state["status"] == "ok" and state["llm_calls"] == 2
    why = "briefing-1.txt: it did not validate: the reply holds no JSON object"
    assert any(line.endswith(why) for line in state["tasks"][1]["lines"])  # what the CLI prints too
    assert why in (vault / "_crews/runs" / state["id"] / RUN_NOTE).read_text(encoding="utf-8")
    artifacts = list((vault / "_crews/runs" / state["id"] / "artifacts").iterdir())
    assert [path.read_text(encoding="utf-8") for path in artifacts] == [
        "Sure! Here is the briefing: - water the plants"
    ]


def test_malformed_twice_keeps_both_replies_and_fails_without_writing(settings: Settings, vault: Path) -> None:
    with crew_world(settings, script=[Turn.text("not json"), Turn.text("still { not json")]) as world:
        before = vault_hashes(vault)
        state = world.run("Daily-Briefing")
        after = vault_hashes(vault)

    assert state["status"] == "failed"
    assert [task["status"] for task in state["tasks"]] == ["ok", "failed", "skipped"]
    assert changed(before, after) <= run_files(vault)
    folder = vault / "_crews/runs" / state["id"] / "artifacts"
    assert sorted(path.read_text(encoding="utf-8") for path in folder.iterdir()) == ["not json", "still { not json"]


def test_daily_briefing_never_writes_the_contracts_shape_example_into_the_daily_note(
    settings: Settings, vault: Path
) -> None:
    # What Qwen2.5-Coder 1.5B did: its first reply ran past the cap, and its repair copied the shape example.
    cut_off = Turn.text(['{"markdown": "', *(["- renew the passport "] * 6100)])
    example = Turn.text('{"markdown": "<the section text: Markdown, no HTML, no heading, at most 3000 characters>"}')
    with crew_world(settings, script=[cut_off, example]) as world:
        before = vault_hashes(vault)
        state = world.run("Daily-Briefing")
        after = vault_hashes(vault)

    assert state["status"] == "failed" and state["writes"] == 0
    assert changed(before, after) <= run_files(vault)
    assert "copies the example of the reply's shape" in state["error"]
    lines = state["tasks"][1]["lines"]
    cut_at_chars = "briefing-1.txt: it did not validate: markdown has more than the 3000 characters allowed"
    assert any(cut_at_chars in line for line in lines)
    assert any("briefing-2.txt: it did not validate: markdown copies the example" in line for line in lines)
    run_note = (vault / "_crews/runs" / state["id"] / RUN_NOTE).read_text(encoding="utf-8")
    assert "it did not validate: markdown copies the example" in run_note


def test_the_llm_call_budget_stops_a_run_that_needs_a_repair(settings: Settings, vault: Path) -> None:
    crew = vault / "_crews"
    with crew_world(settings, script=[Turn.text("not json")]) as world:
        team = crew / "Daily-Briefing.md"
        team.write_text(team.read_text(encoding="utf-8").replace("max_llm_calls: 2", "max_llm_calls: 1"), "utf-8")
        state = world.run("Daily-Briefing")

    assert state["status"] == "failed" and state["llm_calls"] == 1
    assert "budget" in (state["error"] or "").lower() or "llm_calls" in (state["error"] or "")


def test_a_task_is_given_only_as_many_notes_as_max_writes_lets_it_write(settings: Settings, vault: Path) -> None:
    # It was given every note, and failed after the model call: "would write 4 notes but the run may write 2 more".
    with crew_world(settings) as world:
        team = vault / "_crews" / "Task-Triage.md"
        team.write_text(team.read_text(encoding="utf-8").replace("max_writes: 20", "max_writes: 2"), "utf-8")
        state = world.run("Task-Triage")
        (request,) = world.llm.chat_requests

    assert state["status"] == "ok" and state["writes"] == 2
    shown = schema_of(request.json)["properties"]["changes"]["items"]["properties"]["path"]["enum"]  # type: ignore[index]
    assert len(shown) == 2
    [capped] = [line for line in state["tasks"][1]["lines"] if line.startswith("gave the model")]
    assert capped.startswith("gave the model the first 2 of the ") and "may write 2 more note(s) (max_writes)" in capped


def test_a_task_that_may_write_nothing_fails_before_the_model_is_asked(settings: Settings, vault: Path) -> None:
    with crew_world(settings) as world:
        team = vault / "_crews" / "Daily-Briefing.md"
        team.write_text(team.read_text(encoding="utf-8").replace("max_writes: 1", "max_writes: 0"), "utf-8")
        state = world.run("Daily-Briefing")

        assert world.llm.chat_requests == []
    assert state["status"] == "failed" and state["llm_calls"] == 0
    assert state["error"] == (
        "task 'briefing' would write 1 note(s) but the run may write 0 more (max_writes); the model was not asked"
    )


def test_a_run_over_its_wall_clock_limit_is_aborted(settings: Settings, vault: Path) -> None:
    with crew_world(settings, script=[Turn.text(json.dumps({"markdown": "- late"}), delay=30)]) as world:
        team = vault / "_crews" / "Daily-Briefing.md"
        team.write_text(
            team.read_text(encoding="utf-8").replace("timeout_minutes: 10", "timeout_minutes: 0.02"), "utf-8"
        )
        state = world.run("Daily-Briefing")

    assert state["status"] == "aborted"
    assert "longer than" in state["error"]
    assert [task["status"] for task in state["tasks"]] == ["ok", "failed", "skipped"]  # not "skipped": it ran
    assert state["tasks"][1]["lines"][-1] == f"stopped: {state['error']}"


def test_abort_inside_the_model_stream_stops_the_run_and_writes_nothing(settings: Settings, vault: Path) -> None:
    slow = Turn.text([json.dumps({"markdown": "- a"})[:5]] * 200, delay_per_token=0.05)

    async def scenario(world: object) -> dict[str, object]:
        crews = world.crews  # type: ignore[attr-defined]
        started = await crews.start("Daily-Briefing", dry_run=False, trigger="api")
        while crews.control(started.id).last is None or crews.control(started.id).last.get("type") != "tokens":
            await asyncio.sleep(0.01)
        assert crews.abort(started.id).startswith("abort requested")
        final = await crews.wait(started.id)
        return final.to_json()

    with crew_world(settings, script=[slow]) as world:
        before = vault_hashes(vault)
        state = asyncio.run(scenario(world))
        after = vault_hashes(vault)
        late = world.crews.abort(state["id"])

    assert state["status"] == "aborted" and state["writes"] == 0
    assert changed(before, after) <= run_files(vault)
    assert "nothing was aborted" in late


def test_one_run_of_a_team_at_a_time(settings: Settings, vault: Path) -> None:
    slow = Turn.text(json.dumps({"markdown": "- slow"}), delay=2)

    async def scenario(world: object) -> str:
        crews = world.crews  # type: ignore[attr-defined]
        first = await crews.start("Daily-Briefing", dry_run=True, trigger="api")
        try:
            await crews.start("Daily-Briefing", dry_run=True, trigger="api")
        except CrewBusy as exc:
            message = exc.message
        else:
            message = ""
        await crews.wait(first.id)
        return message

    with crew_world(settings, script=[slow]) as world:
        message = asyncio.run(scenario(world))

    assert "still going" in message


def test_without_a_model_a_run_fails_clearly_and_writes_nothing(settings: Settings, vault: Path) -> None:
    with crew_world(settings) as world:
        deps = dataclasses.replace(world.crews.deps, chat_model=None)
        crews = CrewService(deps, locks_dir=settings.data_dir / "crews/locks", collectors=tuple(COLLECTORS))
        before = vault_hashes(vault)
        state = asyncio.run(crews.run("Daily-Briefing", dry_run=False, trigger="cli"))
        after = vault_hashes(vault)

    assert state.status == "failed"
    assert state.error is not None and state.error.startswith("no language model is configured or reachable")
    assert changed(before, after) <= run_files(vault)
