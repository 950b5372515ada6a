"""Terminal rendering of crews: the catalog, a live run (task and tokens as they go), runs, a run, an undo plan."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.status import Status

_STATUS_COLOURS = {"ok": "green", "failed": "red", "aborted": "yellow", "interrupted": "yellow", "running": "cyan"}


def print_catalog(console: Console, catalog: dict[str, Any]) -> None:
    """Print each runnable crew (schedule, pipeline, ignored properties) and each crew note that cannot run (why)."""
    if not catalog["crews"] and not catalog["errors"]:
        console.print(f"no crews under {escape(catalog['root'])}/: run `librarian crew install-examples`")
    for crew in catalog["crews"]:
        schedule = _schedule(crew)
        pipeline = " → ".join(f"{task['id']} ({task['kind']})" for task in crew["tasks"])
        console.print(f"[bold]{escape(crew['name'])}[/bold]  {escape(crew['path'])}{schedule}")
        if crew["description"]:
            console.print(f"  {escape(crew['description'])}")
        writes = ", ".join(crew["write_scope"]) or "nothing"
        console.print(f"  [dim]{escape(pipeline)} · writes {escape(writes)}[/dim]")
        for warning in crew.get("warnings", ()):  # a server from before warnings were listed sends none
            console.print(f"  [yellow]⚠ {escape(warning)}[/yellow]")
    if catalog["errors"]:
        console.print(f"[red]{len(catalog['errors'])} crew note(s) cannot run:[/red]")
        for error in catalog["errors"]:
            console.print(f"  [red]✗[/red] {escape(error['path'])}: {escape(error['error'])}")


def _schedule(crew: dict[str, Any]) -> str:
    if not crew["schedule"]:
        return ""
    status = crew.get("schedule_status")
    if status == "not enabled":
        status = f"not enabled: `librarian crew enable {crew['name']}`"
    colour = "green" if status == "enabled" else "yellow"
    return f"  [dim]schedule {escape(crew['schedule'])}[/dim] [{colour}]({escape(str(status))})[/{colour}]"


def print_approval(console: Console, approval: dict[str, Any]) -> None:
    """Print what enabling a crew's schedule approved: when it runs, what it may write, the notes it covers."""
    console.print(f"[green]enabled[/green] the schedule of [bold]{escape(approval['team'])}[/bold]:")
    console.print(f"  schedule     {escape(approval['schedule'])}  (runs while `librarian serve` runs)")
    console.print(f"  write_scope  {escape(', '.join(approval['write_scope']) or 'nothing')}")
    console.print(f"  max_writes   {approval['max_writes']} per run (capped by CREW_MAX_WRITES)")
    console.print(f"  notes        {escape(', '.join(approval['notes']))}")
    console.print("An edit of any of these notes pauses the schedule until you enable it again.")


TOKEN_LINE_STEP = 200  # without a terminal (a log, a pipe), a line each time a reply passes another 200 tokens


class LiveRun:
    """The run's progress: on a terminal a status line (task, live tokens), else a line per step."""

    def __init__(self, console: Console, *, enabled: bool) -> None:
        self._console = console
        self._enabled = enabled
        self._status: Status | None = None
        self._task = ""
        self._steps_shown = 0
        self.line = ""  # what the status line says now: "briefing: running, 37 tokens"

    def __enter__(self) -> LiveRun:
        if self._enabled and self._console.is_terminal:
            self._status = self._console.status("starting the run…")
            self._status.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._status is not None:
            self._status.__exit__(kind, value, trace)

    def on_event(self, event: dict[str, Any]) -> None:
        """Show a run event: a task's status, the running task's tokens, an abort request."""
        if not self._enabled:
            return
        kind = event.get("type")
        if kind == "task":
            self._task = str(event["task"])
            if event["status"] == "running":
                self._steps_shown = 0
                self._show(f"{self._task}: running", is_step=True)
            else:
                self._console.print(f"  {_mark(event['status'])} {escape(self._task)}: {event['status']}")
        elif kind == "tokens":
            count = int(event.get("task_tokens") or 0)
            steps = count // TOKEN_LINE_STEP
            self._show(f"{event.get('task') or self._task}: running, {count} tokens", is_step=steps > self._steps_shown)
            self._steps_shown = max(steps, self._steps_shown)
        elif kind == "abort_requested":
            self._show(f"{self._task or 'the run'}: abort requested…", is_step=True)

    def _show(self, line: str, *, is_step: bool) -> None:
        self.line = line
        if self._status is not None:
            self._status.update(escape(line))
        elif is_step:
            self._console.print(f"  {escape(line)}", highlight=False)


def _mark(status: str) -> str:
    return {"ok": "[green]✓[/green]", "failed": "[red]✗[/red]"}.get(status, "[yellow]-[/yellow]")


def print_run(console: Console, state: dict[str, Any], *, with_diffs: bool) -> None:
    """Print a run: outcome, each task with its lines, files written, and a dry run's diffs."""
    colour = _STATUS_COLOURS.get(state["status"], "white")
    dry = " (dry run: nothing written)" if state["dry_run"] else ""
    console.print(
        f"[bold]{escape(state['crew'])}[/bold] run {escape(state['id'])}: [{colour}]{state['status']}[/{colour}]"
        f"{_undone(state)}{dry}"
    )
    console.print(
        f"  started {state['started']} · {state['writes']} write(s) · {state['llm_calls']} LLM call(s) · "
        f"{state['tokens']} token(s)"
    )
    if state.get("error"):
        console.print(f"  [{colour}]{escape(state['error'])}[/{colour}]")
    if state.get("notice"):
        console.print(f"  {escape(state['notice'])}")
    for task in state["tasks"]:
        console.print(f"  {_mark(task['status'])} {escape(task['id'])} ({escape(task['what'])}): {task['status']}")
        for line in task["lines"]:
            console.print(f"      {escape(line)}")
    for path in state.get("files", []):
        console.print(f"  wrote {escape(path)}")
    if with_diffs:
        for item in state.get("planned", []):
            console.print(f"\n[bold]{escape(item['action'])} {escape(item['path'])}[/bold]: {escape(item['summary'])}")
            console.print(escape(item["diff"]), highlight=False)
    if state.get("undone"):
        console.print(f"  undone at {state['undone']}")
    elif state["writes"] and state.get("change_set_id"):
        console.print(f"  undo: librarian crew undo {escape(state['id'])}")


def print_runs(console: Console, runs: list[dict[str, Any]]) -> None:
    """Print one line per run, newest first."""
    if not runs:
        console.print("no crew runs yet")
    for state in runs:
        colour = _STATUS_COLOURS.get(state["status"], "white")
        dry = " dry-run" if state["dry_run"] else ""
        console.print(
            f"{escape(state['id'])}  {escape(state['crew'])}  [{colour}]{state['status']}[/{colour}]{_undone(state)}"
            f"{dry}  {state['started']}  {state['writes']} write(s)"
        )


def _undone(state: dict[str, Any]) -> str:
    return ", [yellow]undone[/yellow]" if state.get("undone") else ""


def print_undo(console: Console, state: dict[str, Any], plan: dict[str, Any]) -> None:
    """Print what undoing a run restores (or restored): crew, time, and each file."""
    if not plan.get("change_set_id"):
        console.print(f"run {escape(state['id'])} wrote nothing: nothing to undo")
        return
    verb = "Undid" if plan.get("applied") else "Undoing restores"
    console.print(f"{verb} run {escape(state['id'])} of {escape(state['crew'])} ({state['started']}):")
    for step in plan["steps"]:
        mark = "[yellow]![/yellow]" if step["action"] == "conflict" else "-"
        console.print(f"  {mark} {escape(step['path'])}: {escape(step['message'])}")


def undo_summary(plan: dict[str, Any]) -> str:
    """Return the line that ends a run's undo: how many files it restored, kept or found as before."""
    kept = sum(step["action"] == "conflict" for step in plan["steps"])
    same = sum(step["action"] == "nothing" for step in plan["steps"])
    restored = len(plan["steps"]) - kept - same
    left = f"; {kept} file(s) edited since the run left as they are" if kept else ""
    if not plan.get("applied"):
        return (
            f"nothing was undone: {kept} file(s) it wrote were edited since the run and are left as they are; "
            "the run stays undoable once they read as the run left them"
        )
    if not restored:
        return "undone: every file already read as before the run, so nothing was written" + left
    return f"undone: {restored} file(s) reverted{left}"
