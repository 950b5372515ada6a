"""The terminal: index progress, run summaries, search hits, status, and yes/no questions."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from sync.report import Progress as IndexProgress

SNIPPET_CHARS = 240
ISSUES_SHOWN = 20


@contextmanager
def progress_reporter(console: Console, *, enabled: bool = True) -> Iterator[Callable[[IndexProgress], None]]:
    """Yield a progress callback that draws notes, chunks, chunks/s and ETA."""
    if not enabled:
        yield lambda _event: None
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("notes · {task.fields[chunks]} chunks · {task.fields[rate]:.1f} chunks/s"),
        TimeRemainingColumn(),
    )
    started = time.monotonic()
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("scanning", total=None, chunks=0, rate=0.0)

        def on_progress(event: IndexProgress) -> None:
            elapsed = max(time.monotonic() - started, 1e-6)
            description = {"scan": "scanning", "index": "indexing", "done": "done"}[event.phase]
            total = event.notes_total if event.phase != "scan" else None
            bar.update(
                task,
                description=description,
                total=total,
                completed=event.notes_done,
                chunks=event.chunks_done,
                rate=event.chunks_done / elapsed,
            )

        yield on_progress


def confirm(question: str) -> bool:
    """Ask a yes/no question (default no); an answer piped in ends the question's line like a typed one would."""
    answer = typer.confirm(question, default=False)
    if not sys.stdin.isatty():  # a terminal echoes the answer and its Enter; a pipe shows nothing after the prompt
        typer.echo()
    return answer


def print_report(console: Console, report: dict[str, Any]) -> None:
    """Print the summary of an index run (`ReindexReport.to_json()`): +added ~modified -deleted =unchanged, issues."""
    if report["rebuilt_reason"]:
        console.print(f"[yellow]note:[/yellow] {escape(report['rebuilt_reason'])}")
    if report["repaired"]:
        console.print(f"[yellow]repaired[/yellow] {len(report['repaired'])} entries left by an interrupted run")
    for message in report.get("healed", []):
        console.print(f"[yellow]repaired:[/yellow] {escape(message)}")
    extras = [
        f"  ↻{len(report['renamed'])} renamed" if report["renamed"] else "",
        f"  ⟳{len(report['refreshed'])} refreshed (embeds changed)" if report["refreshed"] else "",
        f"  ✚{len(report['restored'])} restored" if report.get("restored") else "",
    ]
    console.print(
        f"[green]+{len(report['added'])}[/green] added  [cyan]~{len(report['modified'])}[/cyan] modified  "
        f"[red]-{len(report['deleted'])}[/red] deleted  ={report['unchanged']} unchanged" + "".join(extras)
    )
    seconds = float(report["seconds"])
    rate = report["chunks_embedded"] / seconds if seconds else 0.0
    console.print(
        f"{report['notes_total']} notes · {report['chunks_indexed']} chunks written · "
        f"{report['chunks_embedded']} embedded ({rate:.1f}/s) · {seconds:.1f}s"
    )
    for old, new in report["renamed"]:
        console.print(f"  renamed {escape(old)} → {escape(new)}")
    print_issues(console, [(path, reason) for path, reason in report["errors"]], "file(s) not indexed", "red", "✗")
    print_issues(console, [(path, reason) for path, reason in report["warnings"]], "warning(s)", "yellow", "!")


def print_issues(console: Console, issues: Sequence[tuple[str, str]], title: str, colour: str, mark: str) -> None:
    """Print a count and up to 20 `path: reason` lines (the JSON output has them all)."""
    if not issues:
        return
    console.print(f"[{colour}]{len(issues)} {title}:[/{colour}]")
    for path, reason in issues[:ISSUES_SHOWN]:
        console.print(f"  [{colour}]{mark}[/{colour}] {escape(path)}: {escape(reason)}")
    if len(issues) > ISSUES_SHOWN:
        console.print(f"  … and {len(issues) - ISSUES_SHOWN} more (use --json to see all)")


def make_snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """Return the text on one line, cut at a word boundary near `limit` characters."""
    flat = re.sub(r"\s+", " ", text).strip()
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + " …"


def print_hits(console: Console, query: str, hits: Sequence[dict[str, Any]]) -> None:
    """Print ranked hits (as `SearchHit.to_json()` gives them) with citation anchor, score and snippet."""
    if not hits:
        console.print(f"no notes match {escape(repr(query))}")
        return
    for rank, hit in enumerate(hits, start=1):
        console.print(
            f"[bold]{rank}.[/bold] [cyan]{escape(hit['anchor'])}[/cyan]  [dim]{hit['score']:.4f}  "
            f"{escape(hit['path'])}:{hit['line_start']}-{hit['line_end']}[/dim]"
        )
        console.print(f"   {escape(make_snippet(hit['text']))}")


def print_status(console: Console, data: dict[str, Any]) -> None:
    """Print the index status (`librarian status --json` shows the same fields)."""
    console.print(f"vault      {escape(str(data['vault']))}")
    console.print(f"data dir   {escape(str(data['data_dir']))}")
    if data.get("service"):
        console.print(f"service    pid {data['service']['pid']} on {escape(str(data['service']['url']))}")
    if data.get("held_by"):
        console.print(f"[yellow]in use[/yellow]     by {escape(data['held_by'])}: store counts are not read")
    console.print(f"notes      {data['notes']}")
    console.print(f"chunks     {data['chunks'] if data['chunks'] is not None else '(unknown)'}")
    model = data["model"] or "(no index yet)"
    console.print(f"model      {escape(str(model))}" + (f" ({data['dimensions']} dimensions)" if data["model"] else ""))
    if data["model"] and data["configured_model"] and data["model"] != data["configured_model"]:
        console.print(
            f"[yellow]EMBED_MODEL is now {escape(str(data['configured_model']))}; "
            "the next `librarian index` rebuilds the index[/yellow]"
        )
    reranker = data.get("reranker")
    console.print(
        f"reranker   {escape(reranker)}"
        if reranker
        else "reranker   none (RERANKER_MODEL_DIR unset): hits keep their fused order"
    )
    _print_runs(console, data)
    _print_changes(console, data.get("changed_since_last_run"))
    _print_health(console, data)
    if hosts := data.get("llm", {}).get("leaves_machine"):
        console.print(f"[yellow]llm[/yellow]        note text is sent to {escape(', '.join(hosts))} (off this machine)")
    print_issues(console, [(e["path"], e["error"]) for e in data["errors"]], "file(s) with errors", "red", "✗")
    print_issues(console, [(w["path"], w["warning"]) for w in data["warnings"]], "warning(s)", "yellow", "!")


def _print_runs(console: Console, data: dict[str, Any]) -> None:
    last = data["last_run"]
    if isinstance(last, dict):
        console.print(
            f"last run   {last['finished_at']} ({last['seconds']}s): +{last['added']} ~{last['modified']} "
            f"-{last['deleted']} ={last['unchanged']}"
        )
    else:
        console.print("last run   never")
    progress = data.get("progress")
    if data.get("running") and data.get("held_by"):
        console.print(f"running    an index run is under way ({escape(data['held_by'])})")
    elif data.get("running"):
        done = f" ({progress['notes_done']}/{progress['notes_total']} notes)" if progress else ""
        console.print(f"running    an index run is going{done}")
    if data.get("last_error"):
        retry = f"; next try at {data['next_retry_at']}" if data.get("next_retry_at") else ""
        console.print(f"[red]last run failed[/red]: {escape(data['last_error'])}{retry}")
    if data["interrupted"]:
        console.print("[yellow]the last run was interrupted; the next run repairs the index[/yellow]")
    if data.get("vault_empty"):
        console.print(f"[yellow]no notes found in {escape(data['vault_empty'])}[/yellow]: is VAULT_PATH right?")


def _print_changes(console: Console, changes: dict[str, int] | None) -> None:
    if changes is None:
        return
    counts = [f"{changes[key]} {key}" for key in ("modified", "added", "deleted") if changes[key]]
    if not counts:
        console.print("changes    none since the last run")
        return
    console.print(
        f"[yellow]changes[/yellow]    notes since the last run: {', '.join(counts)}; search answers from the index "
        "as of that run: run `librarian index` (a running `librarian serve` catches up by itself)"
    )


def _print_health(console: Console, data: dict[str, Any]) -> None:
    consistency = data.get("consistency")
    if data.get("unreachable"):
        console.print(f"[red]stores[/red]     {escape(data['unreachable'])}")
    elif isinstance(consistency, dict) and consistency["problems"]:
        for problem in consistency["problems"]:
            console.print(f"[yellow]index[/yellow]      {escape(problem)}; the next run repairs it")
    elif isinstance(consistency, dict):
        console.print("index      docstore, vector store and watermarks agree")
