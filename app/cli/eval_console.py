"""Printing an eval run: one row per item, then the totals."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from app.eval.runner import EvalRun
from app.eval.scoring import ItemScore
from app.eval.totals import Ratio, Totals

DASH = "–"


def number(value: float | None, digits: int = 2) -> str:
    """Return a figure for a cell, or a dash for one that does not apply."""
    return DASH if value is None else f"{value:.{digits}f}"


def ratio(value: Ratio) -> str:
    """Return "count/total (share)", or a dash when nothing was counted."""
    return DASH if value.total == 0 else f"{value.count}/{value.total} ({value.value:.2f})"


def _verdict(score: ItemScore) -> str:
    if score.passed is None:
        return "[dim]skip[/dim]"
    return "[green]pass[/green]" if score.passed else "[red]fail[/red]"


def _outcome(score: ItemScore) -> str:
    """Return the item's kind-specific result: missing facts, refusal, or the proposal seen."""
    seen = score.observation
    if seen.skipped:
        return escape(seen.skipped)
    if seen.error:
        return f"[red]{escape(seen.error[:120])}[/red]"
    fallback = "[yellow]LLM failed, passages shown[/yellow]; " if seen.fell_back else ""
    return fallback + _result(score)


def _result(score: ItemScore) -> str:
    seen, item = score.observation, score.item
    if item.kind == "refuse":
        return "refused" if score.is_refused else "answered"
    if item.kind == "edit":
        shown = ", ".join(f"{p.operation} {p.path}" for p in score.proposals) or "no proposal shown"
        written = f"; WROTE {', '.join(seen.written)}" if seen.written else ""
        return escape(shown + written)
    if score.is_refused:
        return "refused (false refusal)"
    missing = [label for label, found in zip(item.fact_labels, score.facts_found, strict=True) if not found]
    return escape("missing: " + "; ".join(missing)) if missing else "all facts"


def items_table(run: EvalRun) -> Table:
    """Return the per-item table."""
    k = run.info.get("k")
    table = Table(title=f"Answer eval: {run.info.get('url')} ({run.info.get('mode')})", title_justify="left")
    table.add_column("item", no_wrap=True)
    table.add_column("kind")
    for column in (f"recall@{k}", "RR", "links ok", "cite recall", "facts", "judge", "s"):
        table.add_column(column, justify="right")
    table.add_column("result")
    table.add_column("", overflow="fold")
    for score in run.scores:
        links = f"{score.links_valid}/{score.links_shown}" if score.links_shown else DASH
        facts = f"{sum(score.facts_found)}/{len(score.facts_found)}" if score.facts_found else DASH
        seconds = DASH if score.observation.skipped else f"{score.observation.seconds:.1f}"
        table.add_row(
            escape(score.item.id),
            score.item.kind,
            number(score.recall),
            number(score.reciprocal_rank),
            links,
            number(score.citation_recall),
            facts,
            number(score.observation.judge),
            seconds,
            _verdict(score),
            _outcome(score),
        )
    return table


def totals_rows(totals: Totals, k: object) -> list[tuple[str, str]]:
    """Return the totals as (figure, value) rows."""
    return [
        ("items passed", ratio(totals.passed)),
        (f"retrieval recall@{k} (answerable)", number(totals.recall, 3)),
        (f"retrieval MRR@{k} (answerable)", number(totals.mrr, 3)),
        ("citation validity (links that open a note and heading)", ratio(totals.citation_validity)),
        ("citation recall (expected notes cited)", number(totals.citation_recall, 3)),
        ("refusals on unanswerable items", ratio(totals.refusals)),
        ("false refusals on answerable items", ratio(totals.false_refusals)),
        ("answer facts found (mean share)", number(totals.fact_recall, 3)),
        ('  of them in the answer\'s own words, before "Your notes say:"', number(totals.answer_fact_recall, 3)),
        ("answers with every fact in their own words", ratio(totals.correct)),
        ("edit requests with the expected proposal", ratio(totals.edits)),
        ("items that wrote to the vault", str(totals.written)),
        ("replies from the fallback (LLM failed before answering)", str(totals.fallbacks)),
        ("judge score (mean)", number(totals.judge, 3)),
        ("seconds per item (p50 / max)", f"{number(totals.seconds_p50, 1)} / {number(totals.seconds_max, 1)}"),
        (
            "seconds to the first text, streamed (p50 / max)",
            f"{number(totals.first_token_p50, 1)} / {number(totals.first_token_max, 1)}",
        ),
        ("prompt tokens per model reply (mean, as the service reported)", number(totals.prompt_tokens_mean, 0)),
        ("skipped / errors", f"{totals.skipped} / {totals.errors}"),
    ]


def print_run(console: Console, run: EvalRun) -> None:
    """Print the per-item table and the totals."""
    console.print(items_table(run))
    table = Table(title="Totals", title_justify="left", show_header=False)
    table.add_column("figure")
    table.add_column("value", justify="right")
    for figure, value in totals_rows(run.totals, run.info.get("k")):
        table.add_row(figure, value)
    console.print(table)
