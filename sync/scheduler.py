"""The periodic re-index: an APScheduler job on the service's event loop, one run at start and every interval."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from core.settings import SyncSettings
from sync.index_runner import IndexRunner

JOB_ID = "reindex"


def start_scheduler(runner: IndexRunner, settings: SyncSettings, *, run_at_start: bool = True) -> AsyncIOScheduler:
    """Start a scheduler on the running event loop that asks `runner` for a run every SYNC_INTERVAL_MINUTES.

    Must be called from a coroutine (the lifespan). With `run_at_start`, the first run is due at once.
    """
    scheduler = AsyncIOScheduler(timezone=UTC)
    scheduler.add_job(
        _scheduled_run,
        IntervalTrigger(minutes=settings.interval_minutes, timezone=UTC),
        args=(runner,),
        id=JOB_ID,
        name="re-index the vault",
        max_instances=1,
        coalesce=True,
        # A busy loop may start the job late; late is still worth running (the default grace is 1 s).
        misfire_grace_time=None,
        # add_job reads next_run_time=None as "paused", so it is passed only when a run at start is wanted.
        **({"next_run_time": datetime.now(UTC)} if run_at_start else {}),
    )
    scheduler.start()
    return scheduler


def next_run_at(scheduler: AsyncIOScheduler | None) -> datetime | None:
    """Return when the scheduled re-index runs next (None: no scheduler, or it stopped)."""
    job = scheduler.get_job(JOB_ID) if scheduler is not None and scheduler.running else None
    moment: datetime | None = job.next_run_time if job is not None else None
    return moment


async def _scheduled_run(runner: IndexRunner) -> None:
    """Run the job once; at shutdown its wait is cancelled, which is not an error worth a traceback."""
    try:
        await runner.run(reason="schedule")
    except asyncio.CancelledError:
        # The run itself goes on inside the runner, whose aclose() waits for it before the stores close.
        return


async def stop_scheduler(scheduler: AsyncIOScheduler) -> None:
    """Stop the scheduler; a run it started goes on in the runner, whose `aclose` waits for it."""
    if not scheduler.running:
        return
    # AsyncIOScheduler.shutdown only queues the shutdown on the loop; yield once so it has happened on return.
    scheduler.shutdown(wait=False)
    await asyncio.sleep(0)
