"""Rendering for the terminal: index progress, run summaries, search hits and status."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from core.domain import SearchHit
from sync.report import Progress as IndexProgress
from sync.report import ReindexReport

SNIPPET_CHARS = 240


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


def print_report(console: Console, report: ReindexReport) -> None:
    """Print the summary of an index run: +added ~modified -deleted =unchanged, then errors with reasons."""
    if report.rebuilt_reason:
        console.print(f"[yellow]note:[/yellow] {escape(report.rebuilt_reason)}")
    if report.repaired:
        console.print(f"[yellow]repaired[/yellow] {len(report.repaired)} entries left by an interrupted run")
    console.print(
        f"[green]+{len(report.added)}[/green] added  [cyan]~{len(report.modified)}[/cyan] modified  "
        f"[red]-{len(report.deleted)}[/red] deleted  ={report.unchanged} unchanged"
        + (f"  ↻{len(report.renamed)} renamed" if report.renamed else "")
        + (f"  ⟳{len(report.refreshed)} refreshed (embeds changed)" if report.refreshed else "")
    )
    rate = report.chunks_embedded / report.seconds if report.seconds else 0.0
    console.print(
        f"{report.notes_total} notes · {report.chunks_indexed} chunks written · "
        f"{report.chunks_embedded} embedded ({rate:.1f}/s) · {report.seconds:.1f}s"
    )
    for old, new in report.renamed:
        console.print(f"  renamed {escape(old)} → {escape(new)}")
    if report.errors:
        console.print(f"[red]{len(report.errors)} file(s) not indexed:[/red]")
        for path, reason in report.errors:
            console.print(f"  [red]✗[/red] {escape(path)}: {escape(reason)}")
    if report.warnings:
        console.print(f"[yellow]{len(report.warnings)} warning(s):[/yellow]")
        for path, reason in report.warnings[:20]:
            console.print(f"  [yellow]![/yellow] {escape(path)}: {escape(reason)}")
        if len(report.warnings) > 20:
            console.print(f"  … and {len(report.warnings) - 20} more (use --json to see all)")


def make_snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """Return the text on one line, cut at a word boundary near `limit` characters."""
    flat = re.sub(r"\s+", " ", text).strip()
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + " …"


def print_hits(console: Console, query: str, hits: Sequence[SearchHit]) -> None:
    """Print ranked hits with citation anchor, score and snippet."""
    if not hits:
        console.print(f"no notes match {escape(repr(query))}")
        return
    for rank, hit in enumerate(hits, start=1):
        chunk = hit.chunk
        console.print(
            f"[bold]{rank}.[/bold] [cyan]{escape(chunk.anchor)}[/cyan]  [dim]{hit.score:.4f}  "
            f"{escape(chunk.path)}:{chunk.line_start}-{chunk.line_end}[/dim]"
        )
        console.print(f"   {escape(make_snippet(chunk.text))}")


def print_status(console: Console, data: dict[str, object]) -> None:
    """Print the index status."""
    console.print(f"vault      {escape(str(data['vault']))}")
    console.print(f"data dir   {escape(str(data['data_dir']))}")
    console.print(f"notes      {data['notes']}")
    console.print(f"chunks     {data['chunks']}")
    model = data["model"] or "(no index yet)"
    console.print(f"model      {escape(str(model))}" + (f" ({data['dimensions']} dimensions)" if data["model"] else ""))
    if data["model"] and data["model"] != data["configured_model"]:
        console.print(
            f"[yellow]EMBED_MODEL is now {escape(str(data['configured_model']))}; "
            "the next `librarian index` rebuilds the index[/yellow]"
        )
    last = data["last_run"]
    if isinstance(last, dict):
        console.print(
            f"last run   {last['finished_at']} ({last['seconds']}s): +{len(last['added'])} ~{len(last['modified'])} "
            f"-{len(last['deleted'])} ={last['unchanged']}"
        )
    else:
        console.print("last run   never")
    if data["interrupted"]:
        console.print("[yellow]the last run was interrupted; the next run repairs the index[/yellow]")
    errors = data["errors"]
    if isinstance(errors, list) and errors:
        console.print(f"[red]{len(errors)} file(s) with errors:[/red]")
        for row in errors:
            console.print(f"  [red]✗[/red] {escape(row['path'])}: {escape(row['error'])}")
