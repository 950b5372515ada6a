"""Where a `librarian crew` command runs: in this process when DATA_DIR is free, else in the server holding it.

Like `app.services.index_access`: a run needs the index (search, re-index after writes) and the edit lock, so when a
`librarian serve` holds the DATA_DIR the run happens there, started and followed over its HTTP API.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, closing, contextmanager
from typing import TYPE_CHECKING, Any

from app.process.ownership import DataDirOwnership, DataDirTaken, read_owner
from app.services.crew_interrupts import abort_on_signals, terminate_as_interrupt
from core.errors import AppError
from core.settings import Settings
from rag.notes.vault import check_vault_path

if TYPE_CHECKING:
    from app.services.service_client import ServiceClient
    from core.edits import UndoPlan
    from crews.service import CrewService

EventSink = Callable[[dict[str, Any]], None]


class LocalCrews:
    """Crews run in this process, which holds DATA_DIR for the command."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def catalog(self) -> dict[str, Any]:
        """Return the crews and load errors (as GET /v1/crews)."""
        from app.http.routes.crews import catalog_json

        service = self._offline_service()
        catalog = service.catalog()
        return catalog_json(catalog, service.schedule_statuses(catalog))

    def enable(self, name: str) -> dict[str, Any]:
        """Approve the crew's schedule (a `librarian serve` started later finds it in DATA_DIR)."""
        return self._offline_service().enable(name).to_json()

    def disable(self, name: str) -> bool:
        """Withdraw the approval of the crew's schedule; False when it was not enabled."""
        return self._offline_service().disable(name)

    def runs(self, *, limit: int, crew: str | None) -> list[dict[str, Any]]:
        """Return saved runs, newest first."""
        return [state.to_json() for state in self._offline_service().runs(limit=limit, crew=crew)]

    def show(self, run_id: str) -> dict[str, Any]:
        """Return one run's state."""
        return self._offline_service().get(run_id).to_json()

    def recover(self) -> list[dict[str, Any]]:
        """Mark runs a dead process left `running` as interrupted; return them."""
        return [state.to_json() for state in self._offline_service().recover()]

    def abort(self, run_id: str) -> str:
        """Ask a run of another `librarian crew run` to stop, through its abort-request file (no DATA_DIR needed)."""
        return self._offline_service().abort(run_id)

    def run(self, name: str, *, dry_run: bool, on_event: EventSink) -> dict[str, Any]:
        """Run the crew here (index, model and edit lock opened for it) and return its final state."""
        from app.process.tracing import tracing_command

        with tracing_command(self.settings):
            return asyncio.run(self._run(name, dry_run=dry_run, on_event=on_event))

    def undo(self, run_id: str, *, confirm: bool) -> dict[str, Any]:
        """Plan or carry out the undo of one run."""
        from app.http.routes.changes import plan_json

        plan = asyncio.run(self._undo(run_id, confirm=confirm))
        return plan_json(plan)

    async def _run(self, name: str, *, dry_run: bool, on_event: EventSink) -> dict[str, Any]:
        from app.services.answering import find_chat_model
        from app.wiring import build_crew_service, build_edit_services, build_services

        services = build_services(self.settings)
        edits = build_edit_services(self.settings)
        try:
            async with AsyncExitStack() as stack:
                chat_model = await find_chat_model(self.settings, stack)

                async def reindex() -> None:
                    # Only an index that exists is kept fresh: a first index is `librarian index`'s (or serve's) job.
                    if services.store.count():
                        await asyncio.to_thread(services.reindexer.run_once)

                crews = build_crew_service(self.settings, services, edits, chat_model, after_write=reindex)
                crews.recover()
                started = await crews.start(name, dry_run=dry_run, trigger="cli", on_event=on_event)
                with abort_on_signals(lambda: crews.abort(started.id)):  # Ctrl-C: the run ends aborted, logged
                    state = await crews.wait(started.id)
                return state.to_json()
        finally:
            edits.close()
            services.close()

    async def _undo(self, run_id: str, *, confirm: bool) -> UndoPlan:
        from app.wiring import build_crew_service, build_edit_services, build_services

        services = build_services(self.settings)
        edits = build_edit_services(self.settings)
        try:
            crews = build_crew_service(self.settings, services, edits, None, after_write=None)
            plan = await crews.undo(run_id, confirm=confirm)
            if confirm and plan.has_writes:
                await asyncio.to_thread(services.reindexer.run_once)
            return plan
        finally:
            edits.close()
            services.close()

    def _offline_service(self) -> CrewService:
        """Return a service that reads crews and run logs without opening the index (listing needs no model)."""
        from app.wiring import build_crew_service

        return build_crew_service(self.settings, None, None, None, after_write=None)


class RemoteCrews:
    """The crews of the `librarian serve` that holds DATA_DIR, over its HTTP API."""

    def __init__(self, client: ServiceClient) -> None:
        self.client = client

    def catalog(self) -> dict[str, Any]:
        """Return GET /v1/crews."""
        return self.client.request_json("GET", "/v1/crews")

    def enable(self, name: str) -> dict[str, Any]:
        """Return POST /v1/crews/{name}/enable's approval (the server registers the job at once)."""
        approval: dict[str, Any] = self.client.request_json("POST", f"/v1/crews/{name}/enable")["enabled"]
        return approval

    def disable(self, name: str) -> bool:
        """Return whether POST /v1/crews/{name}/disable found the schedule enabled."""
        return bool(self.client.request_json("POST", f"/v1/crews/{name}/disable")["disabled"])

    def runs(self, *, limit: int, crew: str | None) -> list[dict[str, Any]]:
        """Return GET /v1/crews/runs."""
        params: dict[str, Any] = {"limit": limit, **({"crew": crew} if crew else {})}
        runs: list[dict[str, Any]] = self.client.request_json("GET", "/v1/crews/runs", params=params)["runs"]
        return runs

    def show(self, run_id: str) -> dict[str, Any]:
        """Return GET /v1/crews/runs/{id}."""
        return self.client.request_json("GET", f"/v1/crews/runs/{run_id}")

    def recover(self) -> list[dict[str, Any]]:
        """Return nothing: the server recovered interrupted runs when it started."""
        return []

    def abort(self, run_id: str) -> str:
        """Return the server's answer to the abort request."""
        message: str = self.client.request_json("POST", f"/v1/crews/runs/{run_id}/abort")["message"]
        return message

    def run(self, name: str, *, dry_run: bool, on_event: EventSink) -> dict[str, Any]:
        """Start the run on the server, follow its events, return its final state; Ctrl-C aborts it there."""
        started = self.client.request_json("POST", f"/v1/crews/{name}/runs", json={"dry_run": dry_run})
        run_id = started["run"]["id"]
        try:
            with terminate_as_interrupt():
                self._follow(run_id, on_event)
        except KeyboardInterrupt:
            self.abort(run_id)
            self._follow(run_id, on_event)  # to its end: the server's run stops at its next step
        return self.show(run_id)

    def _follow(self, run_id: str, on_event: EventSink) -> None:
        with closing(self.client.events(f"/v1/crews/runs/{run_id}/events")) as events:
            for event in events:
                on_event(event)

    def undo(self, run_id: str, *, confirm: bool) -> dict[str, Any]:
        """Plan (GET) or confirm (POST, naming the change set shown) the undo of one run on the server."""
        plan = self.client.request_json("GET", f"/v1/crews/runs/{run_id}/undo")
        if not confirm or not plan.get("change_set_id"):
            return plan
        body = {"change_set_id": plan["change_set_id"]}
        return self.client.request_json("POST", f"/v1/crews/runs/{run_id}/undo", json=body)


@contextmanager
def open_crews(settings: Settings, *, on_wait: Callable[[], None]) -> Iterator[LocalCrews | RemoteCrews]:
    """Yield the way to the crews: this process (holding DATA_DIR for the command) or the server holding it.

    Raises:
        AppError: another CLI command holds DATA_DIR, or the server serves another vault.

    """
    check_vault_path(settings.vault_path)  # taking DATA_DIR records the vault: a mistyped path must not claim it
    try:
        ownership = DataDirOwnership.acquire(settings.data_dir, "crew", vault=settings.vault_path)
    except DataDirTaken as taken:
        owner = taken.owner
        if owner is None or not owner.is_server:
            taken.message += "; wait for it to finish, or run `librarian serve` so commands can share the index"
            raise
        from app.services.index_access import remote_client

        with remote_client(settings, owner, on_wait) as client:
            yield RemoteCrews(client)
        return
    try:
        yield LocalCrews(settings)
    except AppError:
        raise
    finally:
        ownership.release()


def abort_run(settings: Settings, run_id: str, *, on_wait: Callable[[], None]) -> str:
    """Ask a run to stop wherever it goes: a server's over its API, else through the run's abort-request file.

    Needs no DATA_DIR: a `librarian crew run` holding it is asked through the file its run looks at.
    """
    owner = read_owner(settings.data_dir)
    if owner is not None and owner.is_server:
        from app.services.index_access import remote_client

        with remote_client(settings, owner, on_wait) as client:
            return RemoteCrews(client).abort(run_id)
    return LocalCrews(settings).abort(run_id)
