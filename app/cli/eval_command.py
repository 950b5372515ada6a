"""`librarian eval GOLDEN`: run a golden set through the chat API of a librarian and print how the replies score.

Without `--url` it starts its own `librarian serve` over a copy of the vault (app/eval/server.py), with the LLM
configured as for `serve` (`--llm` or LLM_BASE_URL; `--no-llm` for retrieval-only mode). The work is imported
when the command runs, so `librarian --help` stays fast.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from core.errors import AppError

if TYPE_CHECKING:
    from app.eval.golden import ItemKind
    from app.eval.scoring import ItemScore

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)
PIPE_WIDTH = 160  # the item table has eleven columns: at 80 (rich's width for a pipe) every cell is cut


def print_progress(number: int, total: int, score: ItemScore) -> None:
    """Print one line per finished item on stderr, so a slow model shows it is moving."""
    verdict = {True: "pass", False: "fail", None: "skip"}[score.passed]
    seen = score.observation
    first = "" if seen.first_token_seconds is None else f", first text {seen.first_token_seconds:.1f} s"
    err.print(f"[dim][{number}/{total}] {escape(score.item.id)}: {verdict} ({seen.seconds:.1f} s{first})[/dim]")


def _announce(line: str) -> None:
    err.print(f"[dim]{escape(line)}[/dim]")


def _kinds(names: list[str] | None) -> tuple[ItemKind, ...]:
    from app.eval.golden import KINDS as ITEM_KINDS

    chosen = tuple(name for name in ITEM_KINDS if name in (names or ()))
    unknown = sorted(set(names or ()) - set(chosen))
    if unknown:
        err.print(f"[red]error:[/red] unknown kind {escape(', '.join(unknown))}: use answer, refuse or edit")
        raise typer.Exit(2)
    return chosen


def eval_command(
    golden: Annotated[Path, typer.Argument(metavar="GOLDEN", help="The golden set (YAML).", show_default=False)],
    url: Annotated[str | None, typer.Option(metavar="URL", help="A running librarian (default: start one).")] = None,
    api_key: Annotated[
        str | None, typer.Option(metavar="KEY", help="Its API key (default: API_KEY).", envvar="EVAL_API_KEY")
    ] = None,
    llm: Annotated[str | None, typer.Option(metavar="URL", help="LLM of the started librarian.")] = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Start the librarian without an LLM.")] = False,
    k: Annotated[int, typer.Option(metavar="K", min=1, max=100, help="Hits scored for retrieval recall.")] = 6,
    only: Annotated[list[str] | None, typer.Option(metavar="ID", help="Run only this item (repeatable).")] = None,
    kind: Annotated[list[str] | None, typer.Option(metavar="KIND", help="answer, refuse or edit (repeatable).")] = None,
    limit: Annotated[int | None, typer.Option(metavar="N", min=1, help="Run at most N items.")] = None,
    judge: Annotated[str | None, typer.Option(metavar="URL", help="OpenAI-compatible judge endpoint.")] = None,
    judge_model: Annotated[str | None, typer.Option(metavar="MODEL", help="The judge's model.")] = None,
    judge_api_key: Annotated[
        str | None, typer.Option(metavar="KEY", help="The judge's API key.", envvar="EVAL_JUDGE_API_KEY")
    ] = None,
    timeout: Annotated[float, typer.Option(metavar="SECONDS", min=1, help="Timeout per request.")] = 900.0,
    stream: Annotated[
        bool, typer.Option("--stream/--no-stream", help="Stream replies as chat apps do, timing their first text.")
    ] = True,
    json_path: Annotated[Path | None, typer.Option("--json", metavar="PATH", help="Also write JSON here.")] = None,
    vault: Annotated[str | None, typer.Option(metavar="VAULT", help="Vault (default: VAULT_PATH).")] = None,
) -> None:
    """Run a golden set through the chat API; score retrieval, citations, refusals, answers and edits."""
    from app.cli.eval_console import print_run
    from app.cli.settings_loading import load_settings
    from app.eval.report import run_json
    from app.eval.session import EvalOptions, evaluate

    settings = load_settings(vault)
    options = EvalOptions(
        golden=golden,
        url=url,
        api_key=api_key or (settings.api_key.get_secret_value() if settings.api_key else None),
        llm_base_url=llm,
        no_llm=no_llm,
        k=k,
        ids=tuple(only or ()),
        kinds=_kinds(kind),
        limit=limit,
        judge_url=judge,
        judge_model=judge_model,
        judge_api_key=judge_api_key,
        timeout_seconds=timeout,
        stream=stream,
    )
    try:
        run = asyncio.run(
            evaluate(settings, options, announce=lambda line: err.print(escape(line)), on_item=print_progress)
        )
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc
    print_run(out if out.is_terminal else Console(width=PIPE_WIDTH), run)
    if json_path is not None:
        text = json.dumps(run_json(run.info, run.scores, run.totals), ensure_ascii=False, indent=2)
        json_path.write_text(text + "\n", encoding="utf-8")
        err.print(f"[dim]wrote {escape(str(json_path))}[/dim]")
