"""Run logs in the vault: `run.md` (readable in Obsidian, Bases-friendly frontmatter) and `state.json` per run.

They live under the crew root's `runs/` folder (or under DATA_DIR when the vault is read-only), one folder per
run, beside a `runs.base` that lists them. They are logs, not notes the crews edit: written directly (atomically),
never through the edit layer, never part of a change set, never undone; old ones are removed after each run
(`crews.logs.run_retention`, CREW_RUN_LOGS_KEEP). Everything written passes redaction.
The crew root is in the edit layer's fixed denylist (`edits.scope.check_not_denied`), which every model-proposed
write goes through; this code-written path, with paths built here from run ids, is the one way into it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from crews.logs.run_state import RunState, TaskState
from crews.teams.catalog import RUNS_FOLDER
from edits.writers.files import write_atomically
from llm_client.secrets.redaction import redact

STATE_FILE = "state.json"
RUN_NOTE = "run.md"
ARTIFACTS = "artifacts"
BASE_FILE = "runs.base"
# Characters that start Markdown or Obsidian syntax anywhere in a line (emphasis, links, embeds, tags, HTML,
# comments, highlights, math, block ids, tables) and Dataview's `::`; `\\` first so an escape stays literal.
_MARKUP = re.compile(r"[\\`*_\[\]<>#|%=$~^&]|:(?=:)|(?<=:):")
_LIST_MARKER = re.compile(r"^(?:[-+]|\d+[.)])(?=\s|$)")  # "- x" after the log's own "- " would nest a list
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
_BACKTICKS = re.compile(r"`+")
# SHA-256 of runs.base files shipped before, unchanged by their user: replaced by the current one. The first
# filtered on `file.name == "run"`, which never matches (file.name has the extension), so it listed no run; the
# second had no "undone" column.
OUTDATED_BASES = frozenset(
    {
        "adbd9f1fb6cb1fe729f9cddc9644bc87c28a51e46661675197e07139f18a88b0",
        "b86c6dc69e30e1b7fe1fdf2b3ed560a70847dfd35720b8b39cd9892355de4319",
    }
)


class RunStore:
    """Save, list and read runs under `folder` (`<vault>/<crew root>/runs`, or DATA_DIR's when read-only)."""

    def __init__(self, folder: Path, *, secrets: Iterable[str] = (), base_text: str | None = None) -> None:
        self.folder = folder
        self._secrets = tuple(secrets)
        self._base_text = base_text  # written beside the runs when missing, so Obsidian lists them
        self._is_base_checked = False

    def redact(self, text: str) -> str:
        """Return `text` without the configured secrets or anything that looks like a credential."""
        return redact(text, self._secrets)

    def save(self, state: RunState) -> None:
        """Write the run's state.json and run.md (each atomically)."""
        folder = self.folder / state.id
        data = json.loads(self.redact(json.dumps(state.to_json(), ensure_ascii=False)))
        write_atomically(folder / STATE_FILE, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        # Rendered from the redacted state: run.md escapes Markdown, which would hide a secret from redaction.
        write_atomically(folder / RUN_NOTE, self.redact(render_run_note(RunState.from_json(data))))
        self._ensure_base()

    def save_artifact(self, run_id: str, name: str, text: str) -> str:
        """Keep a raw model reply that failed validation; return its path relative to the runs folder."""
        safe = "".join(char if char.isalnum() or char in "-_." else "_" for char in name)[:80]
        target = self.folder / run_id / ARTIFACTS / safe
        write_atomically(target, self.redact(text))
        return target.relative_to(self.folder).as_posix()

    def load(self, run_id: str) -> RunState | None:
        """Return the saved state of a run, or None when there is no such run (or its state is unreadable)."""
        if "/" in run_id or run_id.startswith("."):
            return None
        try:
            return RunState.from_json(json.loads((self.folder / run_id / STATE_FILE).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError, KeyError):
            return None

    def list(self, *, limit: int = 50, crew: str | None = None) -> list[RunState]:
        """Return saved runs, newest first (run ids sort by start time)."""
        if not self.folder.is_dir():
            return []
        runs = []
        for entry in sorted(self.folder.iterdir(), key=lambda p: p.name, reverse=True):
            if entry.is_dir() and not entry.name.startswith("."):
                state = self.load(entry.name)
                if state is not None and (crew is None or state.crew.casefold() == crew.casefold()):
                    runs.append(state)
                    if len(runs) >= limit:
                        break
        return runs

    def _ensure_base(self) -> None:
        if self._base_text is None or self._is_base_checked:
            return
        target = self.folder.parent / BASE_FILE
        if not target.exists() or is_outdated_base(target):
            write_atomically(target, self._base_text)
        self._is_base_checked = True


def is_outdated_base(path: Path) -> bool:
    """Return True when `path` is a runs.base shipped before and never edited (so it may be replaced)."""
    if path.is_symlink():
        return False
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() in OUTDATED_BASES
    except OSError:
        return False


def runs_folder(vault_root: Path, crew_root: str) -> Path:
    """Return where the run logs of a vault's crews go."""
    return vault_root / crew_root / RUNS_FOLDER


def render_run_note(state: RunState) -> str:
    """Return run.md: frontmatter for Bases (crew, status, times, writes, calls, tokens) and a section per task.

    Whatever it quotes (task lines, errors, summaries: the model's words and the notes') is made inert, so the log
    adds no task to a Tasks query, no heading, tag, link or embed; a dry run's diffs are fenced so no line of a
    note closes the fence.
    """
    front = {
        "crew-kind": "run",
        "crew": state.crew,
        "run": state.id,
        "status": state.status,
        "trigger": state.trigger,
        "dry_run": state.dry_run,
        "started": state.started,
        "finished": state.finished or "",
        "writes": state.writes,
        "llm_calls": state.llm_calls,
        "tokens": state.tokens,
        "change_set": state.change_set_id or "",
        "undone": state.undone or "",
        "error": state.error or "",
    }
    lines = ["---", *(f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in front.items()), "---", ""]
    lines.append(f"# {inert(state.crew)}: run of {state.started}" + (" (dry run)" if state.dry_run else ""))
    lines.append("")
    lines.append(_headline(state))
    for task in state.tasks:
        lines.extend(["", *_task_section(task)])
    if state.files:
        lines.extend(["", "## Files written", "", *(f"- [[{path}]]" for path in state.files)])
    if state.planned:
        lines.extend(["", "## Planned changes (dry run)", ""])
        for item in state.planned:
            lines.extend([f"### {inert(item['action'])} {inert(item['path'])}", "", inert(item["summary"]), ""])
            lines.extend([*fenced(item["diff"].rstrip("\n"), "diff"), ""])
    if state.change_set_id and state.writes and not state.undone:
        lines.extend(["", f"Undo this run: `librarian crew undo {state.id}`."])
    return "\n".join(lines).rstrip("\n") + "\n"


def inert(text: str) -> str:
    """Return `text` on one line with Markdown's and Obsidian's syntax escaped, to quote it in a run log.

    A copied `- [ ] #task` or `# heading` on a line of its own would be a real task (Tasks queries list it) or
    heading: line breaks become ⏎. Backslash escapes keep the characters readable but not live: no tag, link,
    embed, HTML, comment, highlight, math or Dataview field (`key:: value`).
    """
    text = _MARKUP.sub(r"\\\g<0>", text.strip())
    text = _LIST_MARKER.sub(lambda marker: marker[0][:-1] + "\\" + marker[0][-1], text)
    return _LINE_BREAKS.sub(" ⏎ ", text)


def fenced(text: str, info: str = "") -> list[str]:
    """Return `text` as a fenced code block whose fence is longer than any backtick run inside, so nothing closes it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", *text.split("\n"), fence]


def _headline(state: RunState) -> str:
    counts = f"{state.writes} write(s), {state.llm_calls} LLM call(s), {state.tokens} token(s)"
    if state.status == "running":
        return f"Running since {state.started}: {counts} so far."
    outcome = {
        "ok": "Finished",
        "failed": "Failed",
        "aborted": "Aborted",
        "interrupted": "Interrupted (the process running it ended)",
    }[state.status]
    error = f" {inert(state.error)}" if state.error else ""
    notice = f" Note: {inert(state.notice)}." if state.notice else ""
    undone = f" Undone at {state.undone}." if state.undone else ""
    return f"{outcome} at {state.finished}: {counts}.{error}{notice}{undone}"


def _task_section(task: TaskState) -> list[str]:
    lines = [f"## {inert(task.id)} ({task.kind}: {inert(task.what)}): {task.status}"]
    if task.lines:
        lines.append("")
        lines.extend(f"- {inert(line)}" for line in task.lines)
    return lines


SaveCallback = Callable[[RunState], None]
