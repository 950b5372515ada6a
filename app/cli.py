"""The `librarian` command line: index a vault, search it, and show the index status."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from rich.console import Console
from rich.markup import escape

from app.answering import stream_answer_to
from app.console import print_hits, print_report, print_status, progress_reporter
from app.edit_commands import YesOption, print_changes, run_undo
from app.log_redaction import install_log_redaction
from app.wiring import Services, build_services, index_lock
from core.domain import SearchFilters
from core.errors import AppError
from core.settings import Settings

cli = typer.Typer(
    help="Vault Librarian: hybrid search over an Obsidian vault, fully offline.",
    no_args_is_help=True,
    add_completion=False,
)
# soft_wrap: long paths and messages stay on one line when output goes to a pipe or a log.
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

# A str, not a Path: typer turns "" into Path("."), which would silently index the current folder.
VaultOption = Annotated[
    str | None, typer.Option("--vault", help="Vault folder (default: VAULT_PATH, else ./sample_vault).")
]


def load_settings(vault: str | None = None) -> Settings:
    """Read settings from the environment, pointing at `vault` when given; exit with a clear message if invalid."""
    if vault is not None and not vault.strip():
        err.print("[red]error:[/red] the vault path is empty; pass the vault folder or set VAULT_PATH")
        raise typer.Exit(1)
    try:
        settings = Settings()
        return settings.with_vault(Path(vault)) if vault is not None else settings
    except ValidationError as exc:
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"]) or "settings"
            err.print(f"[red]configuration error[/red] ({field.upper()}): {escape(_describe(error))}")
        raise typer.Exit(2) from exc


def _describe(error: ErrorDetails) -> str:
    # A validator's own message reads better without pydantic's "Value error, " prefix.
    cause = (error.get("ctx") or {}).get("error")
    return str(cause) if error["type"] == "value_error" and cause else error["msg"]


@contextmanager
def open_services(settings: Settings) -> Iterator[Services]:
    """Build services, turning configuration and upstream errors into a message and exit code 1."""
    try:
        services = build_services(settings)
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc
    try:
        yield services
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc
    finally:
        services.close()


@cli.command()
def index(
    vault: Annotated[str | None, typer.Argument(help="Vault folder (default: VAULT_PATH).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the run report as JSON.")] = False,
) -> None:
    """Index the vault incrementally: only new and changed notes are embedded."""
    settings = load_settings(vault)
    with open_services(settings) as services, index_lock(settings.data_dir):
        with progress_reporter(err, enabled=not as_json) as on_progress:
            report = services.reindexer.run_once(on_progress)
        if as_json:
            out.print_json(json.dumps(report.to_json()))
        else:
            print_report(out, report)


@cli.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int | None, typer.Option("--k", min=1, max=100, help="How many hits (default: TOP_K).")] = None,
    folder: Annotated[str | None, typer.Option(help="Only notes in this folder (and its sub-folders).")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Only notes with this tag (repeatable; any matches).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print hits as a JSON list.")] = False,
    vault: VaultOption = None,
) -> None:
    """Search the indexed vault (dense + BM25, fused with RRF, then reranked)."""
    settings = load_settings(vault)
    filters = SearchFilters(folder=(folder or "").strip("/") or None, tags=tuple(t.lstrip("#") for t in tag or ()))
    with open_services(settings) as services:
        if services.store.count() == 0:
            err.print("[yellow]the index is empty[/yellow]: run `librarian index` first")
            raise typer.Exit(1)
        hits = services.retriever.search(query, k=k, filters=filters)
        if as_json:
            rows = [
                {
                    "path": hit.chunk.path,
                    "title": hit.chunk.title,
                    "heading": hit.chunk.heading,
                    "heading_path": list(hit.chunk.heading_path),
                    "anchor": hit.chunk.anchor,
                    "score": hit.score,
                    "text": hit.chunk.text,
                    "line_start": hit.chunk.line_start,
                    "line_end": hit.chunk.line_end,
                }
                for hit in hits
            ]
            out.print_json(json.dumps(rows, ensure_ascii=False))
        else:
            print_hits(out, query, hits)


@cli.command()
def status(
    as_json: Annotated[bool, typer.Option("--json", help="Print the status as JSON.")] = False,
    vault: VaultOption = None,
) -> None:
    """Show what is indexed: notes, chunks, model, last run and files with errors."""
    settings = load_settings(vault)
    with open_services(settings) as services:
        marks = services.watermarks.all()
        identity = services.store.identity()
        last_run_raw = services.watermarks.get_meta("last_run")
        data: dict[str, object] = {
            "vault": str(settings.vault_path),
            "data_dir": str(settings.data_dir),
            "notes": sum(1 for mark in marks.values() if mark.sha256),
            "chunks": services.store.count(),
            "model": identity.model_id if identity else None,
            "dimensions": identity.dim if identity else None,
            "configured_model": services.embedder.identity.model_id,
            "last_run": json.loads(last_run_raw) if last_run_raw else None,
            "errors": [{"path": m.path, "error": m.last_error} for m in marks.values() if m.last_error],
            "interrupted": services.watermarks.get_meta("run_in_progress") == "1",
        }
        if as_json:
            out.print_json(json.dumps(data, ensure_ascii=False))
        else:
            print_status(out, data)


@cli.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question.")],
    vault: VaultOption = None,
) -> None:
    """Answer a question from the vault in the terminal (the same pipeline as the chat API)."""
    settings = load_settings(vault)
    install_log_redaction(settings)
    with open_services(settings) as services:
        if services.store.count() == 0:
            err.print("[yellow]the index is empty[/yellow]: run `librarian index` first")
            raise typer.Exit(1)
        try:
            asyncio.run(stream_answer_to(out, settings, services, question))
        except AppError as exc:
            err.print(f"\n[red]error:[/red] {escape(exc.message)}")
            raise typer.Exit(1) from exc


@cli.command()
def changes(
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many entries.")] = 50,
    vault: VaultOption = None,
) -> None:
    """List applied changes, newest first (time, change set, proposal, operation, paths, hashes)."""
    print_changes(out, load_settings(vault), limit)


@cli.command()
def undo(assume_yes: YesOption = False, vault: VaultOption = None) -> None:
    """Undo the last applied change set, after showing what it restores and asking."""
    settings = load_settings(vault)
    raise typer.Exit(run_undo(out, settings, assume_yes=assume_yes, vault_root=settings.vault_path))


@cli.command()
def serve(
    vault: VaultOption = None,
    host: Annotated[str | None, typer.Option(help="Address to bind (default HOST, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default PORT, 8000).")] = None,
) -> None:
    """Serve the OpenAI-compatible API (one worker) and keep the index fresh in the background."""
    import uvicorn

    from app.main import create_app
    from app.security import check_bind_address

    settings = load_settings(vault)
    overrides = {key: value for key, value in (("host", host), ("port", port)) if value is not None}
    settings = settings.model_copy(update=overrides)
    try:
        check_bind_address(settings.server)
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(2) from exc
    install_log_redaction(settings)
    if "LOG_LEVEL" not in os.environ:
        logging.getLogger().setLevel(logging.INFO)  # the service's access log and start-up lines are worth seeing
    vault_text = escape(str(settings.vault_path))
    out.print(f"Vault Librarian on http://{settings.host}:{settings.port}/v1 (vault {vault_text})")
    # One worker: the embedded index is a single-process store, and the lifespan owns the re-indexer.
    # log_config=None: uvicorn's records go through the root handlers, which carry the redaction filter.
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, workers=1, log_config=None)


def main() -> None:
    """Run the CLI (the `librarian` console script)."""
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "WARNING"), stream=sys.stderr)
    cli()


if __name__ == "__main__":
    main()
