"""One eval session: load the golden set, reach (or start) a librarian, run the items, optionally with a judge."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from app.eval.api import LibrarianApi
from app.eval.golden import ItemKind, check_against_vault, load_golden_set, select_items
from app.eval.judge import AnswerJudge
from app.eval.runner import EvalRun, OnItem, run_eval
from app.eval.server import started_service
from app.eval.vault_links import VaultLinks
from core.settings import Settings


@dataclass(frozen=True, slots=True)
class EvalOptions:
    """What to evaluate, where, and how."""

    golden: Path
    url: str | None = None  # a running librarian; None: start one over a copy of the vault
    api_key: str | None = None
    llm_base_url: str | None = None  # for the librarian the eval starts (default: LLM_BASE_URL)
    no_llm: bool = False  # start it in retrieval-only mode
    k: int = 6
    ids: tuple[str, ...] = ()
    kinds: tuple[ItemKind, ...] = ()
    limit: int | None = None
    judge_url: str | None = None
    judge_model: str | None = None
    judge_api_key: str | None = None
    timeout_seconds: float = 900.0  # per request: a small local model can take minutes per answer
    stream: bool = True  # ask for replies as chat apps do, timing the first text; False: one JSON body each
    extra_info: dict[str, object] = field(default_factory=dict)  # added to the report's `run` (e.g. the model)


async def evaluate(
    settings: Settings,
    options: EvalOptions,
    *,
    announce: Callable[[str], None] = lambda _line: None,
    on_item: OnItem | None = None,
) -> EvalRun:
    """Run the golden set as `options` say; links in replies are checked against `settings`' vault.

    A golden set the vault does not bear out (a note it names is gone, a quoted fact was edited away) is refused
    before any question is asked: its failures would be the set's, not the librarian's.
    """
    golden = load_golden_set(options.golden)
    check_against_vault(golden, settings.vault_path, source=options.golden)
    items = select_items(golden, ids=options.ids, kinds=options.kinds, limit=options.limit)
    links = VaultLinks(settings.vault)
    with _service(settings, options, announce) as url:
        api = LibrarianApi(url, api_key=options.api_key, timeout_seconds=options.timeout_seconds)
        try:
            async with _judge(options) as judge:
                run = await run_eval(
                    api, items, links, k=options.k, judge=judge, on_item=on_item, stream=options.stream
                )
        finally:
            await api.aclose()
    run.info.update({"golden": str(options.golden), "vault": str(settings.vault_path), **options.extra_info})
    if options.url is None:
        run.info["url"] = f"started (copy of {settings.vault_path})"
    if options.judge_url:
        run.info["judge"] = options.judge_url
    return run


def _service(settings: Settings, options: EvalOptions, announce: Callable[[str], None]) -> AbstractContextManager[str]:
    if options.url:
        return nullcontext(options.url)
    return started_service(
        settings.vault_path,
        api_key=options.api_key,
        llm_base_url=options.llm_base_url,
        no_llm=options.no_llm,
        announce=announce,
    )


@asynccontextmanager
async def _judge(options: EvalOptions) -> AsyncIterator[AnswerJudge | None]:
    if not options.judge_url:
        yield None
        return
    judge = AnswerJudge(
        options.judge_url,
        model=options.judge_model,
        api_key=options.judge_api_key,
        timeout_seconds=options.timeout_seconds,
    )
    try:
        yield judge
    finally:
        await judge.aclose()
