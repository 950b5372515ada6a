"""Pruning a run store: only the newest runs of a crew stay, but never one still going or the run just written."""

from __future__ import annotations

from pathlib import Path

from crews.logs.run_retention import has_undoable_writes, prune_run_logs
from crews.logs.run_state import RunState
from crews.logs.runlog import RunStore


def run(number: int, status: str = "ok", *, crew: str = "Daily-Briefing", writes: int = 0) -> RunState:
    # Run ids sort by start time.
    return RunState(
        id=f"2026-12-04T10-00-{number:02d}-x",
        crew=crew,
        team_path="t.md",
        trigger="cli",
        dry_run=False,
        started=f"2026-12-04T10:00:{number:02d}",
        status=status,  # type: ignore[arg-type]
        writes=writes,
        change_set_id="c0ffee" if writes else None,
    )


def never_undoable(state: RunState) -> bool:
    return False


def test_only_the_newest_finished_runs_are_kept(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.save(run(0, status="running"))  # still running (a process died): never removed here
    for number in range(1, 6):
        store.save(run(number))

    report = prune_run_logs(store, crew="daily-briefing", keep=3, current=run(5).id, is_undoable=never_undoable)

    assert [state.id[17:19] for state in store.list()] == ["05", "04", "03", "00"]
    assert sorted(report.removed) == [run(1).id, run(2).id] and report.failed == ()


def test_the_run_just_written_is_kept_even_when_the_clock_went_back(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    for number in range(4):
        store.save(run(number))

    prune_run_logs(store, crew="Daily-Briefing", keep=2, current=run(0).id, is_undoable=never_undoable)

    assert [state.id[17:19] for state in store.list()] == ["03", "02", "00"]


def test_without_a_limit_every_run_is_kept(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    for number in range(5):
        store.save(run(number))

    prune_run_logs(store, crew="Daily-Briefing", keep=0, current=run(4).id, is_undoable=never_undoable)

    assert len(store.list()) == 5


def test_a_run_with_writes_counts_as_undoable_until_something_says_otherwise() -> None:
    assert has_undoable_writes(run(1, writes=2), None)
    assert not has_undoable_writes(run(1), None)
    undone = run(1, writes=2)
    undone.undone = "2026-12-04T11:00:00"
    assert not has_undoable_writes(undone, None)
