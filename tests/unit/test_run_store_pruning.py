"""A run store that keeps only its newest runs: dry runs without a model leave a preview log each, not a history."""

from __future__ import annotations

from pathlib import Path

from crews.run_state import RunState
from crews.runlog import RunStore


def run(number: int, status: str = "ok") -> RunState:
    # Run ids sort by start time.
    return RunState(
        id=f"2026-12-04T10-00-{number:02d}-x",
        crew="Daily-Briefing",
        team_path="t.md",
        trigger="cli",
        dry_run=True,
        started=f"2026-12-04T10:00:{number:02d}",
        status=status,  # type: ignore[arg-type]
    )


def test_only_the_newest_finished_runs_are_kept(tmp_path: Path) -> None:
    store = RunStore(tmp_path, keep=3)
    store.save(run(0, status="running"))  # still running (a process died): never removed here
    for number in range(1, 6):
        store.save(run(number))

    assert [state.id[17:19] for state in store.list()] == ["05", "04", "03", "00"]


def test_without_a_limit_every_run_is_kept(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    for number in range(5):
        store.save(run(number))

    assert len(store.list()) == 5
