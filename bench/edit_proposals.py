"""Benchmark safe edits on a real vault: proposing (cold and warm), renaming a much-linked note, applying, undoing.

Usage: python -m bench.edit_proposals [--vault /work/shared/vaults/vaultofknowledge] [--edits 100]

Runs on a temporary copy of the vault (the original is never touched). Applying is compared with a bare atomic
file write (temp file, fsync, rename) measured in the same run, so the ratio is what the safety costs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from agent.propose import ProposalToolbox
from agent.tools.reader import VaultReader
from core.settings import Settings
from edits.apply import apply_edits
from edits.changelog import SqliteChangeLog
from edits.proposals import SqliteProposalStore
from edits.undo import undo_last
from edits.writers.files import FileVaultWriter
from tests.edit_fakes import NoSearch

DEFAULT_VAULT = Path("/work/shared/vaults/vaultofknowledge")


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--edits", type=int, default=100)
    return parser.parse_args()


def percentile(values: list[float], fraction: float) -> float:
    """Return the value at `fraction` of the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def bare_atomic_write(path: Path, text: str) -> None:
    """Write like the file writer does, without any of the checks: the baseline for the ratio."""
    temp = path.with_name(f".{path.name}.bench")
    with open(temp, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)


def main() -> None:
    """Print proposal, rename, apply and undo figures for one vault."""
    args = parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(args.vault, vault, symlinks=True)
        settings = Settings(_env_file=None, vault_path=vault, data_dir=Path(tmp) / "data")
        store = SqliteProposalStore(Path(tmp) / "data" / "proposals.sqlite")
        log = SqliteChangeLog(Path(tmp) / "data" / "changes.sqlite", Path(tmp) / "data" / "snapshots")
        reader = VaultReader(settings.vault, NoSearch())
        now = datetime.now(UTC)

        def toolbox(turn: str) -> ProposalToolbox:
            return ProposalToolbox(reader, store, settings.writes, conversation_id=turn, clock=lambda: now)

        snapshot = reader.snapshot()
        notes = sorted(snapshot.notes)
        # Notes named by their title, as users do: each proposal resolves the name against the parsed vault.
        stems = [Path(path).stem for path in notes]
        in_folders = [path for path in notes if "/" in path]  # a root note would be found by its path alone
        named = [Path(p).stem for p in in_folders if stems.count(Path(p).stem) == 1 and "[" not in p][: args.edits + 1]
        reader = VaultReader(settings.vault, NoSearch())  # a fresh reader: the first proposal pays for the parse
        started = time.perf_counter()
        toolbox("cold").run_blocking("edit_note", json.dumps({"command": "append", "path": named[0], "content": "x"}))
        cold_ms = (time.perf_counter() - started) * 1000

        warm: list[float] = []
        proposals = []
        for number, name in enumerate(named[1:]):
            box = toolbox(f"warm{number}")
            started = time.perf_counter()
            box.run_blocking("edit_note", json.dumps({"command": "append", "path": name, "content": "- bench line"}))
            warm.append((time.perf_counter() - started) * 1000)
            proposals.extend(box.proposals)

        linked = max(snapshot.incoming, key=lambda path: len(snapshot.incoming[path]))
        box = toolbox("move")
        started = time.perf_counter()
        try:
            box.run_blocking("move_note", json.dumps({"path": linked, "new_path": "Renamed by bench"}))
            move_text = f"{len(box.proposals) - 1} link updates"
        except Exception as exc:  # the per-turn limit may refuse a very linked note: report it, it is a figure too
            move_text = f"refused: {exc}"
        move_ms = (time.perf_counter() - started) * 1000

        writer = FileVaultWriter(vault)
        applied: list[float] = []
        bare: list[float] = []
        for proposal in proposals:
            started = time.perf_counter()
            report = asyncio.run(apply_edits([proposal], writer=writer, log=log, settings=settings.writes, now=now))
            applied.append((time.perf_counter() - started) * 1000)
            assert report.written, report.outcomes
            started = time.perf_counter()
            bare_atomic_write(vault / proposal.path, (proposal.new_text or "") + "\n")
            bare.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        asyncio.run(undo_last(writer=writer, log=log, now=now, confirm=True))
        undo_ms = (time.perf_counter() - started) * 1000
        store.close()
        log.close()

    print(f"vault: {args.vault.name}, {len(notes)} notes")
    print(f"first proposal by note name (parses the vault): {cold_ms:.0f} ms")
    p50, p95 = statistics.median(warm), percentile(warm, 0.95)
    print(f"edit_note append by note name, warm (vault unchanged since): p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    print(
        f"move_note of the most linked note ({len(snapshot.incoming[linked])} backlinks): {move_ms:.0f} ms, {move_text}"
    )
    ratio = statistics.median(applied) / statistics.median(bare)
    print(
        f"apply one edit: p50 {statistics.median(applied):.2f} ms, p95 {percentile(applied, 0.95):.2f} ms; "
        f"bare atomic write p50 {statistics.median(bare):.2f} ms; ratio {ratio:.1f}x"
    )
    print(f"undo of one edit: {undo_ms:.1f} ms")


if __name__ == "__main__":
    main()
