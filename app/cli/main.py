"""The `librarian` command line: index a vault, search it, ask it, show its status, serve it, undo changes.

Commands import what they need when they run, so `librarian --help` and the light commands start fast. When a
`librarian serve` holds the DATA_DIR, `index`, `search`, `status` and `ask` go through its HTTP API instead of
opening the stores a second time (app/services/index_access.py).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.crew_commands import crew_cli
from app.cli.eval_command import eval_command
from app.cli.mcp_commands import mcp_command
from app.cli.options import JsonOption, VaultOption
from app.cli.proposal_commands import proposals_cli
from app.cli.settings_loading import load_settings, reporting_errors
from core.errors import AppError
from core.settings import Settings

if TYPE_CHECKING:
    from app.services.index_access import BusyIndex, LocalIndex, RemoteIndex

cli = typer.Typer(
    help="Vault Librarian: hybrid search over an Obsidian vault, fully offline.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # every command's, sub-commands' included
)
cli.add_typer(crew_cli, name="crew")
cli.command("eval")(eval_command)
cli.command("mcp")(mcp_command)
cli.add_typer(proposals_cli, name="proposals")
# soft_wrap: long paths and messages stay on one line when output goes to a pipe or a log.
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Apply without asking.")]


def _print_version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import PackageNotFoundError, version

        try:
            out.print(f"librarian (vault-librarian) {version('vault-librarian')}", highlight=False)
        except PackageNotFoundError:  # run from a source tree that was never installed
            out.print("librarian (vault-librarian, not installed)", highlight=False)
        raise typer.Exit()


@cli.callback()
def _options(
    _version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Vault Librarian: hybrid search over an Obsidian vault, fully offline."""


@contextmanager
def index_access(
    settings: Settings, command: str, *, switch_vault: bool = False
) -> Iterator[LocalIndex | RemoteIndex | BusyIndex]:
    """Yield the index for `command`: this process's, or the server's holding DATA_DIR (errors reported)."""
    from app.services.index_access import open_index

    def waiting() -> None:
        err.print("[dim]waiting for the service that holds this DATA_DIR to start…[/dim]")

    with reporting_errors(), open_index(settings, command, on_wait=waiting, switch_vault=switch_vault) as access:
        yield access


@cli.command()
def index(
    vault: Annotated[
        str | None, typer.Argument(metavar="[VAULT]", help="Vault folder (default: VAULT_PATH).", show_default=False)
    ] = None,
    as_json: JsonOption = False,
    switch_vault: Annotated[
        bool,
        typer.Option(
            "--switch-vault", help="DATA_DIR holds another vault's index: replace it with this vault's (rebuilt)."
        ),
    ] = False,
    vault_option: Annotated[
        str | None, typer.Option("--vault", metavar="VAULT", help="The vault folder, as every other command takes it.")
    ] = None,
) -> None:
    """Index the vault incrementally: only new and changed notes are embedded."""
    from app.cli.console import print_report, progress_reporter
    from app.process.data_dir_vault import describe_data_dir

    if vault is not None and vault_option is not None and vault != vault_option:
        err.print("[red]error:[/red] two vaults given (an argument and --vault); give one")
        raise typer.Exit(2)
    settings = load_settings(vault if vault is not None else vault_option)
    if not as_json:
        err.print(f"[dim]{escape(describe_data_dir(settings))}[/dim]")
    with (
        index_access(settings, "index", switch_vault=switch_vault) as access,
        progress_reporter(err, enabled=not as_json) as on_progress,
    ):
        report = access.index(on_progress)
    if as_json:
        out.print_json(json.dumps(report))
    else:
        print_report(out, report)


@cli.command()
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.", show_default=False)],
    k: Annotated[
        int | None, typer.Option("--k", metavar="K", min=1, max=100, help="How many hits (default: TOP_K).")
    ] = None,
    folder: Annotated[
        str | None, typer.Option(metavar="FOLDER", help="Only notes in this folder (and its sub-folders).")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(metavar="TAG", help="Only notes with this tag (repeatable; any matches).")
    ] = None,
    as_json: JsonOption = False,
    vault: VaultOption = None,
) -> None:
    """Search the indexed vault (dense + BM25 fused with RRF, reranked when RERANKER_MODEL_DIR is set)."""
    from app.cli.console import print_hits
    from app.services.search_filters import require_folder, require_query, require_tagged_note

    settings = load_settings(vault)
    tags = list(tag or ())
    with reporting_errors():  # checked here, not by a server holding DATA_DIR, so its words are the same
        query = require_query(query)
    with index_access(settings, "search") as access:
        folder = require_folder(settings.vault, folder)  # a typo must not read as "no notes match"
        found = access.search(query, k=k, folder=folder, tags=tags)
        if not found.hits and tags:
            require_tagged_note(settings.vault, tags)
    if found.notice:  # a serve still indexing: say so, so few or no hits don't read as "the notes don't say"
        err.print(f"[yellow]{escape(found.notice)}[/yellow]")
    if as_json:
        out.print_json(json.dumps(found.hits, ensure_ascii=False))
    elif found.hits or not found.notice:
        print_hits(out, query, found.hits)


@cli.command()
def status(as_json: JsonOption = False, vault: VaultOption = None) -> None:
    """Show what is indexed: notes, chunks, model, last run, notes changed since, files with issues, store health."""
    from app.cli.console import print_status

    settings = load_settings(vault)
    with index_access(settings, "status") as access:
        data = access.status()
    if as_json:
        out.print_json(json.dumps(data, ensure_ascii=False))
    else:
        print_status(out, data)


@cli.command()
def ask(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="Your question.", show_default=False)],
    vault: VaultOption = None,
) -> None:
    """Answer a question from the vault in the terminal (the same pipeline as the chat API); it changes no note."""
    from app.process.log_redaction import install_log_redaction
    from app.services.change_requests import is_change_request

    if not question.strip():
        err.print('[red]error:[/red] ask needs a question, e.g. librarian ask "what did I plan for the garden?"')
        raise typer.Exit(1)
    if is_change_request(question):
        # A single turn cannot show a proposal and take its confirmation: the agent would only loop without tools.
        err.print(
            "[red]error:[/red] `librarian ask` answers questions and changes no note. Ask for the change in a chat "
            "client of `librarian serve` or in an MCP client: they show the diff and write only when you confirm "
            "(docs/changing-notes.md)"
        )
        raise typer.Exit(1)
    settings = load_settings(vault)
    install_log_redaction(settings)
    with index_access(settings, "ask") as access:
        access.ask(question, lambda text: out.print(text, end="", markup=False, highlight=False, soft_wrap=True))
    out.print()


@cli.command()
def changes(
    limit: Annotated[int, typer.Option(metavar="N", min=1, max=1000, help="How many entries.")] = 50,
    vault: VaultOption = None,
) -> None:
    """List applied changes, newest first (time, change set, proposal, operation, paths, hashes)."""
    from app.cli.edit_commands import print_changes

    print_changes(out, load_settings(vault), limit)


@cli.command()
def undo(assume_yes: YesOption = False, vault: VaultOption = None) -> None:
    """Undo the last applied change set, after showing what it restores and asking."""
    from app.cli.edit_commands import run_undo

    settings = load_settings(vault)
    raise typer.Exit(run_undo(out, settings, assume_yes=assume_yes, vault_root=settings.vault_path))


@cli.command()
def serve(
    vault: VaultOption = None,
    host: Annotated[str | None, typer.Option(metavar="HOST", help="Address to bind (default HOST, 127.0.0.1).")] = None,
    port: Annotated[
        int | None, typer.Option(metavar="PORT", min=1, max=65535, help="Port (default PORT, 8000).")
    ] = None,
) -> None:
    """Serve the OpenAI-compatible API (one worker) and keep the index fresh in the background."""
    from app.cli.serving import serve_forever
    from app.process.bind_address import check_bind_address

    settings = load_settings(vault)
    overrides = {key: value for key, value in (("host", host), ("port", port)) if value is not None}
    settings = settings.model_copy(update=overrides)
    try:
        check_bind_address(settings.server)
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(2) from exc
    with reporting_errors():
        serve_forever(settings, announce=lambda line: out.print(escape(line)))


def main() -> None:
    """Run the CLI (the `librarian` console script)."""
    from app.process.log_levels import configure_logging

    configure_logging(sys.argv[1] if len(sys.argv) > 1 else None, os.environ.get("LOG_LEVEL"), sys.stderr)
    cli()


if __name__ == "__main__":
    main()
