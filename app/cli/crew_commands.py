"""`librarian crew ...`: list crews, run one (live progress, or a dry run's diffs), its runs, abort, undo, examples.

`enable` and `disable` approve or withdraw a crew's schedule: the user's approval of its definition, never a model's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from app.cli.options import JsonOption, VaultOption
from core.errors import AppError

if TYPE_CHECKING:
    from app.services.crew_access import LocalCrews, RemoteCrews

crew_cli = typer.Typer(help="Crews: deterministic LLM pipelines over the vault.", no_args_is_help=True)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
RunArgument = Annotated[str, typer.Argument(metavar="RUN", help="A run id (`librarian crew runs` lists them).")]


def _waiting() -> None:
    err.print("[dim]waiting for the service that holds this DATA_DIR to start…[/dim]")


@contextmanager
def _crews(vault: str | None) -> Iterator[LocalCrews | RemoteCrews]:
    from app.cli.settings_loading import load_settings
    from app.services.crew_access import open_crews

    settings = load_settings(vault)
    try:
        with open_crews(settings, on_wait=_waiting) as crews:
            for state in crews.recover():
                run = escape(f"run {state['id']} of {state['crew']}")
                err.print(f"[yellow]{run} was interrupted[/yellow]: {escape(str(state['error']))}")
            yield crews
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc


@contextmanager
def _reading_crews(vault: str | None) -> Iterator[LocalCrews | RemoteCrews]:
    """Yield the crews for a command that only reads: from their files while another CLI command holds DATA_DIR.

    Crew notes, run logs (`state.json`) and approvals are small files written atomically, so reading them needs
    no hold on DATA_DIR (that guards the index and the stores, which listing never opens). Only the recovery of
    interrupted runs writes, so it waits for the next command that holds DATA_DIR.
    """
    from app.cli.settings_loading import load_settings
    from app.process.data_dir_vault import check_vault
    from app.process.ownership import is_held, read_owner
    from app.services.crew_access import LocalCrews
    from rag.notes.vault import check_vault_path

    settings = load_settings(vault)
    owner = read_owner(settings.data_dir) if is_held(settings.data_dir) else None
    if not is_held(settings.data_dir) or (owner is not None and owner.is_server):
        with _crews(vault) as crews:
            yield crews
        return
    holder = owner.describe() if owner else "another process"
    try:
        # As a command holding DATA_DIR would: a mistyped vault lists no crews, another vault's DATA_DIR its approvals.
        check_vault_path(settings.vault_path)
        check_vault(settings.data_dir, settings.vault_path)
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc
    err.print(f"[dim]DATA_DIR is in use by {escape(holder)}: reading the crew files without it[/dim]")
    try:
        yield LocalCrews(settings)
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc


@crew_cli.command("list")
def list_crews(as_json: JsonOption = False, vault: VaultOption = None) -> None:
    """List the crews under the crew root (with what their notes set that is ignored), and the notes that cannot run."""
    from app.cli.crew_console import print_catalog

    with _reading_crews(vault) as crews:
        catalog = crews.catalog()
    if as_json:
        out.print_json(json.dumps(catalog, ensure_ascii=False))
    else:
        print_catalog(out, catalog)


@crew_cli.command("run")
def run_crew(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The crew (team) to run.")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the diffs it would write; write nothing.")] = False,
    as_json: JsonOption = False,
    vault: VaultOption = None,
) -> None:
    """Run a crew now, showing its progress; exit code 1 when the run does not end ok."""
    from app.cli.crew_console import LiveRun, print_run

    with _crews(vault) as crews, LiveRun(err, enabled=not as_json) as live:
        state = crews.run(name, dry_run=dry_run, on_event=live.on_event)
    if as_json:
        out.print_json(json.dumps(state, ensure_ascii=False))
    else:
        print_run(out, state, with_diffs=dry_run)
    if state["status"] != "ok":
        raise typer.Exit(1)


@crew_cli.command("runs")
def list_runs(
    crew: Annotated[str | None, typer.Option(metavar="NAME", help="Only runs of this crew.")] = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, max=1000, help="How many runs.")] = 20,
    as_json: JsonOption = False,
    vault: VaultOption = None,
) -> None:
    """List runs, newest first: id, crew, status, when, writes."""
    from app.cli.crew_console import print_runs

    with _reading_crews(vault) as crews:
        runs = crews.runs(limit=limit, crew=crew)
    if as_json:
        out.print_json(json.dumps(runs, ensure_ascii=False))
    else:
        print_runs(out, runs)


@crew_cli.command("show")
def show_run(run_id: RunArgument, as_json: JsonOption = False, vault: VaultOption = None) -> None:
    """Show one run: each task with what it did, the files written, a dry run's diffs."""
    from app.cli.crew_console import print_run

    with _reading_crews(vault) as crews:
        state = crews.show(run_id)
    if as_json:
        out.print_json(json.dumps(state, ensure_ascii=False))
    else:
        print_run(out, state, with_diffs=True)


@crew_cli.command("abort")
def abort_run(run_id: RunArgument, vault: VaultOption = None) -> None:
    """Ask a running crew to stop (between tasks, or inside the model's reply), whichever process runs it."""
    from app.cli.settings_loading import load_settings
    from app.services.crew_access import abort_run as request_abort

    try:
        message = request_abort(load_settings(vault), run_id, on_wait=_waiting)
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc
    out.print(escape(message))


@crew_cli.command("undo")
def undo_run(
    run_id: RunArgument,
    assume_yes: Annotated[bool, typer.Option("--yes", "-y", help="Undo without asking.")] = False,
    vault: VaultOption = None,
) -> None:
    """Undo one run's writes, after showing the crew, time and files it restores and asking.

    Exit code 1 when nothing could be undone (every file it wrote was edited since) or it was undone already.
    """
    from app.cli.console import confirm
    from app.cli.crew_console import print_undo, undo_summary

    with _crews(vault) as crews:
        state = crews.show(run_id)
        plan = crews.undo(run_id, confirm=False)
        print_undo(out, state, plan)
        if not plan.get("change_set_id"):
            return
        if not plan.get("has_writes") and plan.get("warnings"):  # it could only overwrite edits made since
            out.print(escape(undo_summary(plan)))
            raise typer.Exit(1)
        # A plan that writes nothing (every file already as before) is carried out unasked: it only marks it undone.
        if plan.get("has_writes") and not assume_yes and not confirm("Undo this run?"):
            out.print("nothing changed")
            return
        done = crews.undo(run_id, confirm=True)
    print_undo(out, state, done)
    out.print(escape(undo_summary(done)))
    if not done.get("applied"):
        raise typer.Exit(1)


@crew_cli.command("enable")
def enable_schedule(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The crew (team) to enable.")], vault: VaultOption = None
) -> None:
    """Let the crew run on its schedule (in `librarian serve`) as its notes read now; prints what is approved."""
    from app.cli.crew_console import print_approval

    with _crews(vault) as crews:
        approval = crews.enable(name)
    print_approval(out, approval)


@crew_cli.command("disable")
def disable_schedule(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The crew (team) to disable.")], vault: VaultOption = None
) -> None:
    """Stop the crew's schedule (manual runs stay possible)."""
    with _crews(vault) as crews:
        was_enabled = crews.disable(name)
    if was_enabled:
        out.print(f"schedule of {escape(name)} disabled: it no longer runs on its own")
    else:
        out.print(f"the schedule of {escape(name)} was not enabled: nothing changed")


@crew_cli.command("install-examples")
def install_examples(vault: VaultOption = None) -> None:
    """Copy the Task-Triage and Daily-Briefing crews into the crew root (an existing file is never overwritten)."""
    from app.cli.settings_loading import load_settings
    from crews.install import install_examples as install

    settings = load_settings(vault)
    done = install(settings.vault_path, settings.crews.root)
    for path in done.written:
        out.print(f"[green]+[/green] {escape(path)}")
    for path in done.kept:
        out.print(f"[dim]= {escape(path)} (exists, left as it is)[/dim]")
    out.print(f"{len(done.written)} file(s) written, {len(done.kept)} kept.")
    out.print("Try: librarian crew run Daily-Briefing --dry-run")
    out.print("Schedules run only once you enable them: librarian crew enable Daily-Briefing")
