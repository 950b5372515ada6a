"""`librarian proposals`: the changes an MCP client proposed, for clients that cannot ask the user themselves.

List them, show one's whole-note diff, apply exactly the ones named after asking on the terminal, or discard them.
When a server holds the DATA_DIR the command goes through its `/v1/proposals` (so it re-indexes at once); otherwise
it opens the proposal store and the change log (SQLite, safe to share) and the index catches up at its next run.
Applying needs a terminal: a model that can run commands cannot answer the question by piping "y" into it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Protocol

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.options import VaultOption
from core.errors import AppError
from core.settings import Settings
from edits.messages.entries import has_changed_lines

proposals_cli = typer.Typer(
    help="Changes proposed by an MCP client: list, show, apply (asks first) or discard.", invoke_without_command=True
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
IdsArgument = Annotated[
    list[str], typer.Argument(metavar="ID...", help="Proposal ids (`librarian proposals` lists them).")
]


class Proposals(Protocol):
    """Where the proposals are: this process's stores, or the server holding the DATA_DIR."""

    def pending(self) -> list[dict[str, Any]]:
        """Return the pending proposals, oldest first."""
        ...

    def get(self, proposal_id: str) -> dict[str, Any]:
        """Return one proposal, whatever its status."""
        ...

    def apply(self, ids: list[str]) -> dict[str, Any]:
        """Apply exactly these pending proposals; return the report."""
        ...

    def discard(self, ids: list[str]) -> list[str]:
        """Discard these proposals; return those that were still pending."""
        ...


class LocalProposals:
    """The proposal store and change log under DATA_DIR, opened by this process."""

    def __init__(self, settings: Settings) -> None:
        from app.wiring import build_edit_services

        self.edits = build_edit_services(settings)

    def pending(self) -> list[dict[str, Any]]:
        """Return the pending proposals, oldest first."""
        from app.services.proposal_access import pending_proposals, proposal_json

        return [proposal_json(p) for p in pending_proposals(self.edits, datetime.now(UTC))]

    def get(self, proposal_id: str) -> dict[str, Any]:
        """Return one proposal made by an MCP client, or raise NotFound."""
        from app.services.proposal_access import MCP_CONVERSATION, proposal_json
        from core.errors import NotFound

        proposal = self.edits.store.get(proposal_id)
        if proposal is None or proposal.conversation_id != MCP_CONVERSATION:
            raise NotFound(f"there is no proposal {proposal_id!r}")
        return proposal_json(proposal)

    def apply(self, ids: list[str]) -> dict[str, Any]:
        """Apply exactly these proposals (no re-index here: nobody holds the index open)."""
        from app.services.proposal_access import apply_chosen, report_json, select_pending

        now = datetime.now(UTC)
        chosen = select_pending(self.edits, ids, now)
        return report_json(asyncio.run(apply_chosen(self.edits, chosen, now=now, after_write=None)))

    def discard(self, ids: list[str]) -> list[str]:
        """Discard these proposals; return those that were still pending."""
        from app.services.proposal_access import discard

        return [proposal.id for proposal in discard(self.edits, ids)]


class RemoteProposals:
    """The proposals of the server holding the DATA_DIR, over `/v1/proposals`."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def pending(self) -> list[dict[str, Any]]:
        """Return GET /v1/proposals."""
        found: list[dict[str, Any]] = self.client.request_json("GET", "/v1/proposals")["proposals"]
        return found

    def get(self, proposal_id: str) -> dict[str, Any]:
        """Return GET /v1/proposals/{id}."""
        found: dict[str, Any] = self.client.request_json("GET", f"/v1/proposals/{proposal_id}")
        return found

    def apply(self, ids: list[str]) -> dict[str, Any]:
        """Return POST /v1/proposals/apply (the server re-indexes what it wrote)."""
        report: dict[str, Any] = self.client.request_json("POST", "/v1/proposals/apply", json={"ids": ids})
        return report

    def discard(self, ids: list[str]) -> list[str]:
        """Return the ids POST /v1/proposals/discard discarded."""
        gone: list[str] = self.client.request_json("POST", "/v1/proposals/discard", json={"ids": ids})["discarded"]
        return gone


@contextmanager
def _proposals(vault: str | None) -> Iterator[Proposals]:
    from app.cli.settings_loading import load_settings
    from app.process.ownership import read_owner
    from app.services.index_access import remote_client

    settings = load_settings(vault)

    def waiting() -> None:
        err.print("[dim]waiting for the service that holds this DATA_DIR to start…[/dim]")

    try:
        owner = read_owner(settings.data_dir)
        if owner is not None and owner.is_server:
            with remote_client(settings, owner, waiting) as client:
                yield RemoteProposals(client)
            return
        local = LocalProposals(settings)
        try:
            yield local
        finally:
            local.edits.close()
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc


def print_proposal(proposal: dict[str, Any]) -> None:
    """Print a proposal: id, operation, path (and where a move goes), what it builds on, what it does, its diff."""
    target = f"{proposal['path']} → {proposal['new_path']}" if proposal.get("new_path") else proposal["path"]
    after = f" (after {proposal['depends_on']})" if proposal.get("depends_on") else ""
    out.print(f"[bold]{proposal['id']}[/bold] · {escape(proposal['operation'])} · {escape(target)}{after}")
    out.print(f"[dim]{proposal['status']}, expires {proposal['expires_at']}[/dim]")
    if proposal.get("summary"):  # a move or an empty note: its diff alone would be only its ---/+++ lines
        out.print(proposal["summary"], markup=False, highlight=False)
    if has_changed_lines(proposal["diff"]):
        out.print(proposal["diff"].rstrip("\n"), markup=False, highlight=False)


@proposals_cli.callback()
def list_by_default(ctx: typer.Context, vault: VaultOption = None) -> None:
    """List the proposals waiting for your answer (the default), with their diffs."""
    ctx.obj = vault  # `librarian proposals --vault X apply ID`: the sub-command's vault unless it names its own
    if ctx.invoked_subcommand is None:
        list_proposals(ctx, vault)


@proposals_cli.command("list")
def list_proposals(ctx: typer.Context, vault: VaultOption = None) -> None:
    """List the proposals waiting for your answer, with their diffs (as `librarian proposals` does)."""
    with _proposals(vault or ctx.obj) as proposals:
        pending = proposals.pending()
    if not pending:
        out.print("no proposals are waiting")
    for proposal in pending:
        print_proposal(proposal)
        out.print()


@proposals_cli.command("show")
def show(
    ctx: typer.Context,
    proposal_id: Annotated[str, typer.Argument(metavar="ID", help="A proposal id.")],
    vault: VaultOption = None,
) -> None:
    """Show one proposal and its whole-note diff, whatever became of it."""
    with _proposals(vault or ctx.obj) as proposals:
        print_proposal(proposals.get(proposal_id))


@proposals_cli.command("apply")
def apply(ctx: typer.Context, ids: IdsArgument, vault: VaultOption = None) -> None:
    """Show the proposals named, ask, then apply exactly them as one change set (`librarian undo` reverts it)."""
    with _proposals(vault or ctx.obj) as proposals:
        pending = _pending_named(proposals, ids, "applied")
        for proposal_id in dict.fromkeys(ids):
            print_proposal(pending[proposal_id])
            out.print()
        if not sys.stdin.isatty():
            err.print("[red]error:[/red] applying asks you first, on a terminal; nothing was applied")
            raise typer.Exit(1)
        if not typer.confirm(f"Apply {len(ids)} proposal(s)?", default=False):
            out.print("nothing was applied")
            return
        report = proposals.apply(ids)
    for outcome in report["outcomes"]:
        mark = "✓" if outcome["status"] in ("applied", "unverified", "unchanged") else "✗"
        out.print(f"{mark} {escape(outcome['path'])}: {escape(outcome['message'])}")
    if report.get("change_set_id"):
        out.print(f"change set {report['change_set_id']} (`librarian undo` reverts it)")


@proposals_cli.command("discard")
def discard(ctx: typer.Context, ids: IdsArgument, vault: VaultOption = None) -> None:
    """Discard the proposals named; nothing is written."""
    with _proposals(vault or ctx.obj) as proposals:
        _pending_named(proposals, ids, "discarded")
        gone = proposals.discard(ids)
    out.print(f"discarded {', '.join(gone)}" if gone else "none of these was still waiting")


def _pending_named(proposals: Proposals, ids: list[str], done: str) -> dict[str, dict[str, Any]]:
    """Return the pending proposals by id; exit 1 naming the ids that are unknown or no longer pending."""
    pending = {proposal["id"]: proposal for proposal in proposals.pending()}
    missing = [proposal_id for proposal_id in dict.fromkeys(ids) if proposal_id not in pending]
    if missing:
        err.print(f"[red]error:[/red] no pending proposal {escape(', '.join(missing))}; nothing was {done}")
        raise typer.Exit(1)
    return pending
