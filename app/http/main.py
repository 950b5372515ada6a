"""The FastAPI application: `create_app()` builds nothing at import; the lifespan builds and closes services."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware

from agent.cancellation import streams_unwound
from agent.prompt_cache import WarmUp
from agent.tool_use import ToolUse
from app.http.errors import install_error_handlers
from app.http.in_flight import InFlight, TrackRequests
from app.http.openapi import install_openapi
from app.http.probes import ProbeSlots, secrets_of
from app.http.routes import changes, chat, crews, health, index, models, proposals
from app.http.runtime import Runtime
from app.http.security import (
    LOCALHOST_ORIGINS,
    BodySizeLimit,
    TrustedHosts,
    check_bind_address,
    require_api_key,
    trusted_hosts,
)
from app.http.unicode_body import ValidUnicodeBody
from app.mcp.http import mount_mcp, start_mcp
from app.process.log_redaction import install_log_redaction
from app.process.ownership import DataDirOwnership, service_url
from app.process.tracing import start_tracing
from app.services.answering import build_answerer, find_chat_model, log_write_mode
from app.web.site import install_web
from app.wiring import EditServices, Services, build_crew_service, build_edit_services, build_services, utc_now
from core.ports import Answerer, ChatModel
from core.settings import Settings
from crews.schedule import CrewSchedule
from crews.service import CrewService
from rag.notes.vault import check_vault_path
from sync.index_runner import IndexRunner
from sync.scheduler import start_scheduler, stop_scheduler
from sync.watcher import start_watcher

logger = logging.getLogger(__name__)


def create_app(
    settings: Settings | None = None,
    services: Services | None = None,
    *,
    answerer: Answerer | None = None,
    chat_model: ChatModel | None = None,
    ownership: DataDirOwnership | None = None,
) -> FastAPI:
    """Create the app; anything not passed in is built by the lifespan (served with `uvicorn --factory`).

    `ownership`: the DATA_DIR, already taken by `librarian serve` (which checks it before loading anything);
    without it the lifespan takes it, and refuses to start while another process holds it.
    """
    settings = settings or Settings()
    check_bind_address(settings.server)  # also under `uvicorn --factory`, not only `librarian serve`
    in_flight = InFlight()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            check_vault_path(settings.vault_path)  # a missing vault must not be served from an old index
            held = ownership or DataDirOwnership.acquire(
                settings.data_dir, "serve", vault=settings.vault_path, url=service_url(settings.server)
            )
            stack.callback(held.release)  # registered first, so it is given up after everything else closed
            runtime = await start_services(stack, settings, held, services, answerer=answerer, chat_model=chat_model)
            app.state.runtime = runtime
            stack.callback(delattr, app.state, "runtime")  # requests after shutdown get 503, not stopped services
            await start_mcp(app, stack, runtime)  # last: its tools use everything above
            # Unwound first: requests uvicorn cancelled at the end of its grace still write as they unwind, then
            # the answer streams they started (each in its own task) finish their checkpoint writes.
            stack.push_async_callback(streams_unwound)
            stack.push_async_callback(in_flight.settled)
            yield

    app = FastAPI(
        title="Vault Librarian",
        version="0.1.0",
        description="OpenAI-compatible answers from an Obsidian vault, with verified [[citations]].",
        lifespan=lifespan,
    )
    app.state.settings = settings  # known before the lifespan runs: security checks and pages read it
    install_error_handlers(app)
    install_openapi(app, has_api_key=settings.api_key is not None)
    # The last middleware added runs first. CORS is outermost, so browser clients can read the 400, 401 and 413
    # answers of the inner layers; the origin allowlist is the protection, so any request header is allowed
    # (the openai JS SDK in Obsidian Copilot sends x-stainless-* headers).
    # Innermost: routes only ever see text that is valid Unicode (lone surrogates replaced), once for all.
    app.add_middleware(ValidUnicodeBody)
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(TrustedHosts, hosts=trusted_hosts(settings.server))
    # Just inside CORS: every request is counted for shutdown, even one still reading its body, and one cut short
    # there gets its 503 with CORS headers.
    app.add_middleware(TrackRequests, in_flight=in_flight)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(settings.cors_origins),
        allow_origin_regex=LOCALHOST_ORIGINS,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["*"],
    )
    app.include_router(health.router)
    protected = [Depends(require_api_key)]
    app.include_router(models.router, dependencies=protected)
    app.include_router(chat.router, dependencies=protected)
    app.include_router(index.router, dependencies=protected)
    app.include_router(changes.router, dependencies=protected)
    app.include_router(crews.router, dependencies=protected)
    app.include_router(proposals.router, dependencies=protected)
    mount_mcp(app)  # /mcp, behind the same auth, Host and Origin checks
    install_web(app, settings.server)  # the pages at /, behind the same key (bearer or a login cookie) and Host check
    return app


async def start_services(
    stack: AsyncExitStack,
    settings: Settings,
    ownership: DataDirOwnership,
    services: Services | None,
    *,
    answerer: Answerer | None,
    chat_model: ChatModel | None,
) -> Runtime:
    """Build what was not given, register its shutdown on `stack`, and return it all as the app's Runtime."""
    install_log_redaction(settings)  # also when served with `uvicorn --factory`, not only `librarian serve`
    if (stop_tracing := start_tracing(settings)) is not None:
        stack.callback(stop_tracing)  # registered early, so it exports the last spans after everything else closed
    if services is None:
        services = build_services(settings)
        stack.callback(services.close)
    runner = IndexRunner(
        services.reindexer,
        watermarks=services.watermarks,
        store=services.store,
        docstore=services.docstore,
        clock=utc_now,
    )
    # Registered before the scheduler and watcher, so on shutdown they stop first and the runner's
    # in-flight write finishes before the services close.
    stack.push_async_callback(runner.aclose)
    scheduler = start_scheduler(runner, settings.sync)
    stack.push_async_callback(stop_scheduler, scheduler)
    watcher = None
    if settings.sync.watch:
        watcher = await start_watcher(runner, settings.vault, settings.sync)
        stack.push_async_callback(watcher.stop)
    edits = build_edit_services(settings)
    stack.callback(edits.close)
    log_write_mode(edits)
    if answerer is None and chat_model is None:
        chat_model = await find_chat_model(settings, stack)
    crews, crew_schedule = await start_crews(stack, settings, services, edits, chat_model, runner)
    tool_use, warm_up = ToolUse(settings.llm.tools), WarmUp(after=runner.settled)
    if answerer is None:
        answerer = await build_answerer(
            settings,
            services,
            chat_model,
            stack,
            edits=edits,
            after_write=lambda: runner.run("edit"),
            crews=crews,
            tool_use=tool_use,
            warm_up=warm_up,  # serving: prepare what the first question would wait for (the model: LLM_WARM_UP)
        )
    if answerer.mode == "retrieval-only":
        logger.warning("no LLM endpoint configured or found: answering in retrieval-only mode (passages, no model)")
    else:
        logger.info("answering in %s mode", answerer.mode)
    return Runtime(
        settings=settings,
        ownership=ownership,
        services=services,
        index_runner=runner,
        index_scheduler=scheduler,
        watcher=watcher,
        edits=edits,
        crews=crews,
        crew_schedule=crew_schedule,
        tool_use=tool_use,
        warm_up=warm_up,
        chat_model=chat_model,
        answerer=answerer,
        ready_probes=ProbeSlots(secrets_of(settings)),
    )


async def start_crews(
    stack: AsyncExitStack,
    settings: Settings,
    services: Services,
    edits: EditServices,
    chat_model: ChatModel | None,
    runner: IndexRunner,
) -> tuple[CrewService, CrewSchedule]:
    """Build the crew service, mark runs a dead process left behind as interrupted, and schedule the crews."""
    service = build_crew_service(settings, services, edits, chat_model, after_write=lambda: runner.run("crew"))
    stack.push_async_callback(service.aclose)  # after the scheduler stopped (the stack unwinds in reverse)
    for state in await asyncio.to_thread(service.recover):
        logger.warning(
            "crew run %s of %s was interrupted; `librarian crew show %s` says more", state.id, state.crew, state.id
        )
    schedule = CrewSchedule(service)
    schedule.start()
    stack.callback(schedule.shutdown)
    return service, schedule
