"""Run-log retention: after a run, its crew's oldest finished logs past CREW_RUN_LOGS_KEEP are removed, safely.

Real runs of the example crews on a copy of sample_vault with the scripted model, so the logs are the ones the run
log code writes; the clock ticks a second per reading, so run ids (which sort by start time) never tie.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import logging
import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from crews.collectors import COLLECTORS
from crews.logs.run_state import RunState
from crews.logs.runlog import RUN_NOTE, STATE_FILE
from crews.runs.runner import start_state
from crews.service import CrewService
from edits.undo import undo_last
from tests.crew_support import CrewWorld, crew_world, schema_answer
from tests.scripted_llm_turns import Turn
from tests.vault_state import vault_hashes

BRIEFING = "Daily-Briefing"
TRIAGE = "Task-Triage"


def ticking_clock() -> Callable[[], datetime]:
    """Return a clock that starts this morning at 8 and moves on a second at every reading."""
    start = datetime.now().astimezone().replace(hour=8, minute=0, second=0, microsecond=0)
    seconds = itertools.count()
    return lambda: start + timedelta(seconds=next(seconds))


def ticking(world: CrewWorld, clock: Callable[[], datetime] | None = None, **deps: Any) -> CrewService:
    """Return the world's crew service on a ticking clock (and any other dependencies replaced)."""
    replaced = dataclasses.replace(world.crews.deps, clock=clock or ticking_clock(), **deps)
    return CrewService(replaced, locks_dir=world.settings.data_dir / "crews/locks", collectors=tuple(COLLECTORS))


def run(crews: CrewService, name: str, *, dry_run: bool = True) -> RunState:
    return asyncio.run(crews.run(name, dry_run=dry_run, trigger="cli"))


def logs_of(folder: Path, crew: str) -> list[str]:
    """Return the run folders of `crew` under `folder`, oldest first (as their state.json names the crew)."""
    if not folder.is_dir():
        return []
    found = []
    for entry in sorted(folder.iterdir()):
        state = entry / STATE_FILE
        if state.is_file() and json.loads(state.read_text(encoding="utf-8"))["crew"] == crew:
            found.append(entry.name)
    return found


def runs_dir(vault: Path) -> Path:
    return vault / "_crews" / "runs"


def test_a_run_keeps_only_the_newest_logs_of_its_crew(settings: Settings, vault: Path) -> None:
    with crew_world(settings, crew_run_logs_keep=3) as world:
        crews = ticking(world)
        ids = [run(crews, BRIEFING).id for _ in range(5)]

    assert logs_of(runs_dir(vault), BRIEFING) == ids[-3:]
    for run_id in ids[-3:]:
        assert (runs_dir(vault) / run_id / RUN_NOTE).is_file()
    assert (vault / "_crews" / "runs.base").is_file()


def test_a_failed_run_prunes_too(settings: Settings, vault: Path) -> None:
    with crew_world(settings, crew_run_logs_keep=2) as world:
        clock = ticking_clock()
        ids = [run(ticking(world, clock), BRIEFING).id for _ in range(3)]
        # A run without a model fails at its preflight; it still ends, so its crew's logs are pruned.
        failed = run(ticking(world, clock, chat_model=None), BRIEFING, dry_run=False)

    assert failed.status == "failed"
    assert logs_of(runs_dir(vault), BRIEFING) == [ids[-1], failed.id]


def test_the_logs_of_other_crews_are_left_alone(settings: Settings, vault: Path) -> None:
    with crew_world(settings, crew_run_logs_keep=2) as world:
        crews = ticking(world)
        triage = [run(crews, TRIAGE).id for _ in range(3)]
        briefing = [run(crews, BRIEFING).id for _ in range(4)]

    assert logs_of(runs_dir(vault), BRIEFING) == briefing[-2:]
    # Task-Triage's third run pruned its first; the Daily-Briefing runs after it touched none of them.
    assert logs_of(runs_dir(vault), TRIAGE) == triage[-2:]


def test_zero_keeps_every_log(settings: Settings, vault: Path) -> None:
    with crew_world(settings, crew_run_logs_keep=0) as world:
        crews = ticking(world)
        ids = [run(crews, BRIEFING).id for _ in range(4)]

    assert logs_of(runs_dir(vault), BRIEFING) == ids


def test_the_default_keeps_a_hundred_runs_per_crew() -> None:
    assert Settings(_env_file=None).crews.run_logs_keep == 100


def test_the_setting_is_read_from_the_environment_and_refuses_negatives(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREW_RUN_LOGS_KEEP", "7")
    assert Settings(_env_file=None).crews.run_logs_keep == 7

    monkeypatch.setenv("CREW_RUN_LOGS_KEEP", "-1")
    with pytest.raises(ValueError, match="crew_run_logs_keep"):
        Settings(_env_file=None)


def test_a_run_still_going_is_kept(settings: Settings, vault: Path) -> None:
    with crew_world(settings, crew_run_logs_keep=1) as world:
        crews = ticking(world)
        team, _catalog = crews.team(BRIEFING)
        # What a process that died mid-run leaves behind, until the next start marks it interrupted.
        going = start_state(team, crews.deps, trigger="schedule", dry_run=False)
        crews.deps.store.save(going)
        ids = [run(crews, BRIEFING).id for _ in range(3)]

    assert logs_of(runs_dir(vault), BRIEFING) == [going.id, ids[-1]]
    assert json.loads((runs_dir(vault) / going.id / STATE_FILE).read_text(encoding="utf-8"))["status"] == "running"


def test_runs_whose_writes_can_be_undone_are_kept_until_undone(settings: Settings, vault: Path) -> None:
    briefings = (f"- briefing {number}" for number in itertools.count())

    def answer(body: dict[str, Any]) -> Turn:  # a new briefing each run, so each run writes
        return schema_answer(body, briefing=next(briefings))

    with crew_world(settings, script=answer, crew_run_logs_keep=1) as world:
        crews = ticking(world)
        written = [run(crews, BRIEFING, dry_run=False) for _ in range(3)]
        assert all(state.writes == 1 for state in written)
        # `crew undo RUN` finds a run's change set through its state.json: these three must stay.
        dry = run(crews, BRIEFING).id
        assert logs_of(runs_dir(vault), BRIEFING) == [*(state.id for state in written), dry]

        undone = asyncio.run(crews.undo(written[-1].id, confirm=True))
        assert undone.is_applied
        later = run(crews, BRIEFING).id
        assert logs_of(runs_dir(vault), BRIEFING) == [written[0].id, written[1].id, later]

        # `librarian undo` (the last change set) records the undo only in the change log, not in the run's state.
        plan = asyncio.run(
            undo_last(writer=world.edits.writer, log=world.edits.log, now=datetime.now(UTC), confirm=True)
        )
        assert plan.change_set_id == written[1].change_set_id and plan.is_applied
        last = run(crews, BRIEFING).id

    assert logs_of(runs_dir(vault), BRIEFING) == [written[0].id, last]


def test_folders_that_are_no_run_log_of_ours_are_left_alone(settings: Settings, vault: Path, tmp_path: Path) -> None:
    with crew_world(settings, crew_run_logs_keep=1) as world:
        crews = ticking(world)
        first, second, third = (run(crews, BRIEFING).id for _ in range(3))
        assert logs_of(runs_dir(vault), BRIEFING) == [third]
        runs = runs_dir(vault)
        # Copies of a real run log: one the user added a note to, one with a state.json naming another run, one
        # linked in from outside the vault; and a folder of the user's own (not a run at all).
        annotated = runs / f"{first[:-4]}aaaa"
        shutil.copytree(runs / third, annotated)
        _rename_run(annotated)
        (annotated / "my notes.md").write_text("why this run matters\n", encoding="utf-8")
        misnamed = runs / f"{first[:-4]}bbbb"
        shutil.copytree(runs / third, misnamed)
        outside = tmp_path / "elsewhere" / f"{first[:-4]}cccc"
        shutil.copytree(runs / third, outside)
        _rename_run(outside)
        (runs / outside.name).symlink_to(outside, target_is_directory=True)
        (runs / "Archive").mkdir()
        (runs / "Archive" / STATE_FILE).write_text('{"crew": "Daily-Briefing"}\n', encoding="utf-8")
        (vault / "_crews" / "Notes on crews.md").write_text("mine\n", encoding="utf-8")
        before = vault_hashes(vault)
        before_outside = vault_hashes(outside)

        newest = run(crews, BRIEFING).id

    after = vault_hashes(vault)
    gone = {path for path in before if path not in after}
    assert gone and all(path.startswith(f"_crews/runs/{third}/") for path in gone)
    assert not (runs / third).exists() and (runs / newest / STATE_FILE).is_file()
    assert vault_hashes(outside) == before_outside
    for kept in (annotated.name, misnamed.name, outside.name, "Archive"):
        assert (runs / kept).exists(), kept
    assert (vault / "_crews" / "Notes on crews.md").read_text(encoding="utf-8") == "mine\n"


def test_a_removal_that_fails_only_warns(settings: Settings, vault: Path, caplog: pytest.LogCaptureFixture) -> None:
    with crew_world(settings, crew_run_logs_keep=1) as world:
        crews = ticking(world)
        first = run(crews, BRIEFING).id
        with read_only(runs_dir(vault) / first), caplog.at_level(logging.INFO):
            second = run(crews, BRIEFING)

    assert second.status == "ok"
    assert (runs_dir(vault) / first / STATE_FILE).is_file() and (runs_dir(vault) / second.id / RUN_NOTE).is_file()
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert any(first in record.getMessage() for record in warnings), caplog.text


def test_the_number_pruned_is_logged(settings: Settings, vault: Path, caplog: pytest.LogCaptureFixture) -> None:
    with crew_world(settings, crew_run_logs_keep=1) as world:
        crews = ticking(world)
        run(crews, BRIEFING)
        run(crews, BRIEFING)
        with caplog.at_level(logging.INFO):
            run(crews, BRIEFING)

    infos = [record.getMessage() for record in caplog.records if record.levelno == logging.INFO]
    assert any("Daily-Briefing" in message and "removed 1 old run log" in message for message in infos), infos


def test_dry_runs_without_a_model_keep_their_newest_logs_under_data_dir(settings: Settings, vault: Path) -> None:
    with crew_world(settings, crew_run_logs_keep=2) as world:
        crews = ticking(world, chat_model=None)
        ids = [run(crews, BRIEFING).id for _ in range(4)]
        other = run(crews, TRIAGE).id

    folder = settings.data_dir / "crews" / "collect-only-runs"
    assert logs_of(folder, BRIEFING) == ids[-2:]
    assert logs_of(folder, TRIAGE) == [other]
    assert logs_of(runs_dir(vault), BRIEFING) == []


def _rename_run(folder: Path) -> None:
    """Make a copied run log name the folder it is in (as the run log code would have written it)."""
    state = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    state["id"] = folder.name
    (folder / STATE_FILE).write_text(json.dumps(state), encoding="utf-8")


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make `folder`'s entries impossible to remove: no write permission, or (as root, who ignores it) immutable."""
    if os.geteuid() != 0:
        mode = stat.S_IMODE(folder.stat().st_mode)
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("running as root on a file system without immutable folders: nothing can be made read-only")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)
