"""Benchmark what a crew run costs without the model: collect, validate, apply, log; each as a ratio to bare work.

Usage: python -m bench.crew_overhead [--vault PATH ...] [--writes 50] [--repeat 5]

Default vaults: ../shared/vaults/obsidian-tasks-demo and ../shared/vaults/vaultofknowledge, each copied to a temp
folder first. Figures are medians of `--repeat` runs, measured in one process so noise hits both sides alike:
- collection (tasknotes.query over the whole vault, with and without content; tasks.open) vs reading every note's
  bytes;
- stage 1 (binding a frontmatter.set reply of `--writes` changes) and stage 2 (guard checks of those writes);
- applying `--writes` frontmatter writes through the shared edit path (lock, staleness hash, write-ahead snapshot,
  change log, atomic write, read-back) vs bare atomic writes of the same texts;
- writing the run log (state.json + run.md).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from core.settings import Settings
from crews.collectors import CollectContext, collect
from crews.contract.outputs import bind
from crews.definitions import ActionsTask, OutputSpec, TeamSpec
from crews.install import base_text
from crews.logs.run_state import RunState
from crews.logs.runlog import RunStore
from crews.writes.actions import ActionContext, plan_writes
from crews.writes.apply_run import apply_planned
from crews.writes.guard import check_writes
from edits.changelog import SqliteChangeLog, new_change_set_id
from edits.lock import EditLock
from edits.writers.files import FileVaultWriter, write_atomically
from rag.notes.vault import scan_vault

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_VAULTS = (ROOT.parent / "shared/vaults/obsidian-tasks-demo", ROOT.parent / "shared/vaults/vaultofknowledge")


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, action="append", dest="vaults")
    parser.add_argument("--writes", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    return parser.parse_args()


def median_ms(work: Callable[[], object], repeat: int) -> float:
    """Return the median wall time of `work` in milliseconds."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def bare_read(root: Path) -> int:
    """Read every note's bytes, the floor any collection stands on."""
    return sum(len(path.read_bytes()) for path in root.rglob("*.md") if ".obsidian" not in path.parts)


def bench_vault(source: Path, writes: int, repeat: int) -> None:
    """Print the figures of one vault."""
    with tempfile.TemporaryDirectory(prefix="bench-crews-") as scratch:
        vault = Path(scratch) / "vault"
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".git"))
        settings = Settings(_env_file=None, vault_path=vault, data_dir=Path(scratch) / "data", write_backend="files")
        now = datetime.now().astimezone()
        context = CollectContext(vault=settings.vault, today=now.date(), now=now)
        notes = len(scan_vault(settings.vault).notes)
        bare = median_ms(lambda: bare_read(vault), repeat)
        rows = [("read every note (bare)", bare)]
        for label, name, params in (
            ("tasknotes.query, whole vault, properties only", "tasknotes.query", {"folder": "", "limit": 500}),
            (
                "tasknotes.query, whole vault, with content",
                "tasknotes.query",
                {"folder": "", "limit": 500, "include_content": True},
            ),
            ("tasks.open, whole vault", "tasks.open", {"limit": 500, "include_undated": True}),
        ):
            rows.append((label, median_ms(lambda n=name, p=params: collect(n, p, context), repeat)))
        print(f"\n{source.name}: {notes} notes\n\n| step | median | ratio to bare read |\n|---|---|---|")
        for label, ms in rows:
            print(f"| {label} | {ms:.1f} ms | {ms / bare:.1f}x |")
        bench_writes(settings, context, now, writes, repeat)


def bench_writes(settings: Settings, context: CollectContext, now: datetime, writes: int, repeat: int) -> None:
    """Bind, guard and apply `writes` frontmatter changes; compare applying with bare atomic writes."""
    material = collect("tasknotes.query", {"folder": "", "limit": writes}, context)
    spec = OutputSpec(family="frontmatter.set", allowed_keys=("crew-bench",))
    reply = {"changes": [{"path": item.path, "set": {"crew-bench": "checked"}} for item in material.items]}
    bound = bind(reply, spec, material)
    task = ActionsTask(id="apply", actions="frontmatter.set")
    team = TeamSpec.model_validate(
        {
            "name": "Bench",
            "write_scope": ["**"],
            "max_writes": writes,
            "tasks": [
                {"id": "c", "collector": "tasknotes.query"},
                {"id": "l", "agent": "A", "output": spec.model_dump()},
                {"id": "apply", "actions": "frontmatter.set"},
            ],
        }
    )
    actions = ActionContext.for_run(settings.vault, settings.writes, settings.crews, now=now)
    planned, _ = plan_writes(task, bound, material, context=actions)
    writer = FileVaultWriter(settings.vault_path)
    stage1 = median_ms(lambda: bind(reply, spec, material), repeat)
    stage2 = median_ms(lambda: asyncio.run(check_writes(planned, team=team, context=actions, writer=writer)), repeat)
    root = settings.vault_path
    originals = {write.path: (root / write.path).read_bytes() for write in planned}

    def restore() -> None:
        for path, data in originals.items():
            (root / path).write_bytes(data)

    def bare_writes() -> None:
        for write in planned:
            write_atomically(root / write.path, write.new_text)

    log = SqliteChangeLog(settings.data_dir / "changes.sqlite", settings.data_dir / "snapshots")
    lock = EditLock(settings.data_dir / "edits.lock")

    def applied() -> None:
        report = asyncio.run(
            apply_planned(
                planned,
                run_id="bench",
                crew="Bench",
                change_set_id=new_change_set_id(),
                writer=writer,
                log=log,
                lock=lock,
                settings=settings.writes,
                now=now,
                max_writes=writes,
            )
        )
        assert sum(outcome.status == "applied" for outcome in report.outcomes) == len(planned)

    bare = timed_with_restore(bare_writes, restore, repeat)
    edit_path = timed_with_restore(applied, restore, repeat)
    store = RunStore(settings.data_dir / "runs", base_text=base_text())
    state = RunState(
        id="bench", crew="Bench", team_path="_crews/Bench.md", trigger="bench", dry_run=False, started=now.isoformat()
    )
    logged = median_ms(lambda: store.save(state), repeat)
    log.close()
    print(f"| stage 1: bind {len(planned)} changes | {stage1:.1f} ms | |")
    print(f"| stage 2: guard {len(planned)} writes (reads each note) | {stage2:.1f} ms | |")
    print(f"| {len(planned)} bare atomic writes | {bare:.1f} ms | 1.0x |")
    through = "writes through the edit path (lock, hash, snapshot, log, read-back)"
    print(f"| {len(planned)} {through} | {edit_path:.1f} ms | {edit_path / bare:.1f}x |")
    print(f"| run log (state.json + run.md) | {logged:.1f} ms | |")


def timed_with_restore(work: Callable[[], object], restore: Callable[[], None], repeat: int) -> float:
    """Return the median of `work`, putting the notes back between runs (outside the timing)."""
    samples = []
    for _ in range(repeat):
        restore()
        started = time.perf_counter()
        work()
        samples.append((time.perf_counter() - started) * 1000)
    restore()
    return statistics.median(samples)


def main() -> None:
    """Benchmark each vault."""
    args = parse_args()
    for vault in args.vaults or DEFAULT_VAULTS:
        bench_vault(vault, args.writes, args.repeat)


if __name__ == "__main__":
    main()
