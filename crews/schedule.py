"""Scheduled crews: a team's `schedule` (cron) becomes an APScheduler job in `librarian serve`.

The crew notes are read again every minute, so a team added, edited or removed in Obsidian is scheduled (or no
longer) without a restart. Only a schedule the user enabled is registered (`crews.teams.approvals`: `librarian crew
enable NAME`), and only while the team's notes read as when it was enabled; otherwise it is logged once and left
out. A scheduled run that finds the previous run of its team still going is skipped and logged, never queued
behind it.
"""

from __future__ import annotations

import logging
from datetime import datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from core.errors import AppError
from crews.runs.team_locks import CrewBusy
from crews.service import CrewService
from crews.teams.approvals import ENABLED, NOT_ENABLED, ScheduleNotEnabled

logger = logging.getLogger(__name__)
RELOAD_JOB = "crews:reload"
JOB_PREFIX = "crew:"
RELOAD_SECONDS = 60.0


class CrewSchedule:
    """Keep one cron job per scheduled team in step with the crew notes."""

    def __init__(self, service: CrewService, *, reload_seconds: float = RELOAD_SECONDS) -> None:
        self._service = service
        self._reload_seconds = reload_seconds
        self._scheduler = AsyncIOScheduler()
        self._schedules: dict[str, str] = {}  # team name -> its cron expression, as registered
        self._held_back: dict[str, str] = {}  # team name -> why its schedule is not registered, as last logged

    @property
    def jobs(self) -> dict[str, str]:
        """Return the scheduled teams and their cron expressions."""
        return dict(self._schedules)

    def next_run(self, name: str) -> datetime | None:
        """Return when the scheduled run of team `name` fires next (None: not scheduled, or not started)."""
        job = self._scheduler.get_job(JOB_PREFIX + name) if self._scheduler.running else None
        moment: datetime | None = getattr(job, "next_run_time", None)
        return moment

    def start(self) -> None:
        """Register the teams' jobs and the reload job, then start the scheduler (call from the event loop)."""
        self.reload()
        self._scheduler.add_job(
            self.reload, IntervalTrigger(seconds=self._reload_seconds), id=RELOAD_JOB, coalesce=True, max_instances=1
        )
        self._scheduler.start()

    def shutdown(self) -> None:
        """Stop scheduling (runs going are stopped by the service's aclose)."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)

    def reload(self) -> None:
        """Add, change or remove jobs so they match the teams' enabled, unchanged `schedule` now."""
        catalog = self._service.catalog()
        statuses = self._service.schedule_statuses(catalog)
        wanted = {
            name: team.spec.schedule
            for name, team in catalog.teams.items()
            if team.spec.schedule and statuses.get(name) == ENABLED
        }
        self._log_held_back({name: status for name, status in statuses.items() if status and name not in wanted})
        for name in set(self._schedules) - set(wanted):
            self._scheduler.remove_job(JOB_PREFIX + name)
            del self._schedules[name]
            logger.info("crew %s is no longer scheduled", name)
        for name, cron in wanted.items():
            if self._schedules.get(name) == cron:
                continue
            self._scheduler.add_job(
                self.run_scheduled,
                CronTrigger.from_crontab(cron),
                args=[name],
                id=JOB_PREFIX + name,
                replace_existing=True,
                coalesce=True,
                max_instances=1,
                misfire_grace_time=300,
            )
            self._schedules[name] = cron
            logger.info("crew %s scheduled: %s", name, cron)

    def _log_held_back(self, held_back: dict[str, str]) -> None:
        """Log once per change why a team's schedule is not registered (not enabled, or paused by an edit)."""
        for name, status in held_back.items():
            if self._held_back.get(name) != status:
                log = logger.info if status == NOT_ENABLED else logger.warning
                log("crew %s is not scheduled: its schedule is %s", name, status)
        self._held_back = held_back

    async def run_scheduled(self, name: str) -> None:
        """Start the scheduled run of `name`, skipping it (with a log line) when its previous run still goes."""
        try:
            state = await self._service.start(name, dry_run=False, trigger="schedule")
        except ScheduleNotEnabled as exc:  # its notes changed after the last reload: the job fired before it
            logger.warning("scheduled run of crew %s skipped: %s", name, exc.message)
            return
        except CrewBusy:
            logger.warning("scheduled run of crew %s skipped: its previous run is still going", name)
            return
        except AppError as exc:
            logger.warning("scheduled run of crew %s could not start: %s", name, exc.message)
            return
        final = await self._service.wait(state.id)
        logger.info("scheduled run %s of crew %s ended: %s", final.id, name, final.status)
