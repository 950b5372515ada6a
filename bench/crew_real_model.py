"""Run the example crews against a real OpenAI-compatible model, as a user would, and count how often they succeed.

Usage: python -m bench.crew_real_model --llm http://127.0.0.1:8081/v1 [--vault PATH] [--runs 10] [--crew NAME ...]

Needs a model (`../shared/tools/local-llm/start.sh 8081 0.5b` starts Qwen2.5-Coder 0.5B offline); never a test.
Each round, on a private copy of the vault with the examples installed: `librarian crew run NAME`, then checks
that only the files the crew may write (and its run logs) changed, then `librarian undo --yes` and checks that the
vault is back byte for byte. The table counts runs that ended ok, the replies valid on the first try (no repair),
the writes, and the undo check; the run ids let you read each run.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def parse_args() -> argparse.Namespace:
    """Parse command-line arguments."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8081/v1")
    parser.add_argument("--vault", type=Path, default=ROOT.parent / "shared/vaults/obsidian-tasks-demo")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--crew", action="append", dest="crews")
    return parser.parse_args()


def hashes(root: Path) -> dict[str, str]:
    """Return the SHA-256 of every file under `root`."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def librarian(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run a `librarian` command."""
    command = [sys.executable, "-m", "app.cli", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800, check=False)


def one_round(source: Path, crew: str, llm: str) -> dict[str, object]:
    """Run `crew` once on a fresh copy of the vault; return what happened."""
    with tempfile.TemporaryDirectory(prefix="crew-real-") as scratch:
        vault = Path(scratch) / "vault"
        shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".git"))
        env = {
            **os.environ,
            "VAULT_PATH": str(vault),
            "DATA_DIR": str(Path(scratch) / "data"),
            "LLM_BASE_URL": llm,
            "WRITE_BACKEND": "files",
            "HF_HUB_OFFLINE": "1",
        }
        librarian(env, "crew", "install-examples")
        before = hashes(vault)
        started = time.perf_counter()
        ran = librarian(env, "crew", "run", crew, "--json")
        seconds = time.perf_counter() - started
        state = json.loads(ran.stdout) if ran.stdout.strip().startswith("{") else {"status": "error", "id": "?"}
        after = hashes(vault)
        changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
        outside = sorted(p for p in changed if not p.startswith("_crews/") and p not in state.get("files", []))
        librarian(env, "undo", "--yes")
        restored = hashes(vault)
        kept = {p: d for p, d in restored.items() if not p.startswith(("_crews/", ".trash/"))}
        original = {p: d for p, d in before.items() if not p.startswith(("_crews/", ".trash/"))}
        artifacts = sorted((vault / "_crews/runs" / str(state.get("id"))).glob("artifacts/*"))
        return {
            "crew": crew,
            "status": state.get("status"),
            "error": state.get("error"),
            "writes": state.get("writes", 0),
            "calls": state.get("llm_calls", 0),
            "first_try": state.get("llm_calls", 0) == 1 and not artifacts,
            "only_allowed_changed": not outside,
            "undo_restores": kept == original,
            "seconds": round(seconds, 1),
            "id": state.get("id"),
        }


def main() -> None:
    """Run each crew `--runs` times and print one row per round and a summary."""
    args = parse_args()
    crews = args.crews or ["Daily-Briefing", "Task-Triage"]
    print(f"vault {args.vault}, model at {args.llm}, {args.runs} round(s) per crew\n")
    print("| crew | round | status | writes | calls | valid first try | only allowed files | undo restores | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    summary: dict[str, list[dict[str, object]]] = {}
    for crew in crews:
        for number in range(1, args.runs + 1):
            row = one_round(args.vault, crew, args.llm)
            summary.setdefault(crew, []).append(row)
            checks = " | ".join(
                "yes" if row[key] else "NO" for key in ("first_try", "only_allowed_changed", "undo_restores")
            )
            cells = [crew, number, row["status"], row["writes"], row["calls"], checks, row["seconds"]]
            print("| " + " | ".join(str(cell) for cell in cells) + " |", flush=True)
            if row["status"] != "ok":
                print(f"|   | | {row['error']} | | | | | | |", flush=True)
    print()
    for crew, rows in summary.items():
        ok = sum(row["status"] == "ok" for row in rows)
        first = sum(bool(row["first_try"]) for row in rows)
        wrote = sum(bool(row["writes"]) for row in rows)
        safe = sum(bool(row["only_allowed_changed"]) and bool(row["undo_restores"]) for row in rows)
        print(f"{crew}: {ok}/{len(rows)} ok, {first}/{len(rows)} valid on the first try, {wrote} wrote, {safe} safe")


if __name__ == "__main__":
    main()
