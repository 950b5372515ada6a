"""Failed index runs are retried with backoff until the dependency is back; callers can wait for a fresh run."""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.wiring import Services, build_services
from core.errors import UpstreamUnavailable
from core.settings import Settings
from sync import index_runner
from sync.index_runner import IndexRunner, RunFailed
from sync.reindex import ProgressCallback, Reindexer
from sync.report import ReindexReport
from tests.fakes import HashingEmbedder
from tests.redis_server import private_redis

WAIT_S = 20.0


class FlakyReindexer:
    """The real reindexer, failing its first `failures` runs with `error`."""

    def __init__(self, inner: Reindexer, failures: int, error: Exception | None = None) -> None:
        self.inner = inner
        self.failures = failures
        self.error = error or UpstreamUnavailable("qdrant", "connection refused")
        self.runs = 0

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        self.runs += 1
        if self.runs <= self.failures:
            raise self.error
        return self.inner.run_once(on_progress)


def make_runner(services: Services, job: object, delays: tuple[float, ...]) -> IndexRunner:
    return IndexRunner(
        job,  # type: ignore[arg-type]
        watermarks=services.watermarks,
        store=services.store,
        docstore=services.docstore,
        clock=lambda: datetime.now(UTC),
        retry_delays=delays,
        early_retry_after=0.0,
    )


async def wait_for(predicate: object, runner: IndexRunner) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while not predicate(await runner.status()):  # type: ignore[operator]
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out; last status {(await runner.status()).to_json()}")
        await asyncio.sleep(0.02)


def test_a_failed_run_is_retried_with_growing_delays_until_it_succeeds(services: Services) -> None:
    job = FlakyReindexer(services.reindexer, failures=2, error=OSError("disk on fire"))
    runner = make_runner(services, job, delays=(0.05, 0.1))

    async def scenario() -> None:
        assert await runner.run("start") is None
        failed = await runner.status()
        assert failed.last_error == "OSError: disk on fire"
        assert failed.failures_in_a_row == 1
        assert failed.next_retry_at is not None and failed.next_retry_at > failed.last_finished_at  # type: ignore[operator]
        await wait_for(lambda s: s.runs_completed == 1, runner)
        done = await runner.status()
        assert (done.runs_failed, done.failures_in_a_row, done.last_error, done.next_retry_at) == (2, 0, None, None)
        assert (done.last_reason, done.notes) == ("retry", services.docstore.count())
        await runner.aclose()

    asyncio.run(scenario())
    assert job.runs == 3


def test_a_run_that_failed_on_a_store_is_retried_at_once_when_the_status_finds_the_stores_answering(
    services: Services,
) -> None:
    job = FlakyReindexer(services.reindexer, failures=1)  # "qdrant is unavailable", but the stores answer
    runner = make_runner(services, job, delays=(3600.0,))

    async def scenario() -> None:
        await runner.run("start")
        assert runner._retry is not None  # an hour away
        await runner.status()
        await wait_for(lambda s: s.runs_completed == 1, runner)
        assert (await runner.status()).last_reason == "retry"
        await runner.aclose()

    asyncio.run(scenario())
    assert job.runs == 2


def test_the_status_json_says_when_the_next_try_is(services: Services) -> None:
    job = FlakyReindexer(services.reindexer, failures=1, error=OSError("disk on fire"))
    runner = make_runner(services, job, delays=(3600.0,))

    async def scenario() -> None:
        await runner.run("start")
        body = (await runner.status()).to_json()
        assert body["failures_in_a_row"] == 1
        assert isinstance(body["next_retry_at"], str) and body["next_retry_at"] > str(body["last_finished_at"])
        await runner.aclose()  # cancels the pending retry
        assert (await runner.status()).next_retry_at is None

    asyncio.run(scenario())


def test_an_empty_vault_is_not_retried_and_the_answer_says_so(services: Services, vault: Path) -> None:
    shutil.rmtree(vault)
    vault.mkdir()
    runner = make_runner(services, services.reindexer, delays=(0.01,))

    async def scenario() -> None:
        await runner.run("start")
        await asyncio.sleep(0.1)
        status = await runner.status()
        assert status.last_error is not None and status.last_error.startswith("no notes (*.md) found in the vault")
        assert (status.runs_failed, status.next_retry_at, status.stored.vault_empty) == (1, None, str(vault))
        await runner.aclose()

    asyncio.run(scenario())
    reason = services.retriever.unready_reason()
    assert reason is not None and reason.startswith(f"No notes found in {vault}")


def test_run_fresh_returns_a_run_that_started_after_the_call(services: Services) -> None:
    runner = make_runner(services, services.reindexer, delays=(3600.0,))

    async def scenario() -> None:
        first = await runner.run_fresh("cli")
        assert first.added
        second = await runner.run_fresh("cli")
        assert second is not first and second.added == [] and second.unchanged == first.notes_total
        await runner.aclose()

    asyncio.run(scenario())


def test_run_fresh_raises_the_failure_of_the_run_it_waited_for(services: Services) -> None:
    runner = make_runner(services, FlakyReindexer(services.reindexer, failures=1), delays=(3600.0,))

    async def scenario() -> None:
        with pytest.raises(RunFailed, match="qdrant is unavailable"):
            await runner.run_fresh("cli")
        await runner.aclose()
        with pytest.raises(RunFailed, match="shutting down"):
            await runner.run_fresh("cli")

    asyncio.run(scenario())


def test_a_redis_outage_is_ridden_out_and_the_emptied_docstore_refilled(settings: Settings, tmp_path: Path) -> None:
    with private_redis(tmp_path / "redis") as redis_server:
        services = build_services(
            settings.model_copy(update={"redis_url": SecretStr(redis_server.url)}), embedder=HashingEmbedder()
        )
        note = sorted(settings.vault_path.rglob("*.md"))[-1]
        runner = make_runner(services, services.reindexer, delays=(0.05, 0.1, 0.2))

        async def scenario() -> None:
            assert await runner.run("start") is not None
            redis_server.stop()
            note.write_text(note.read_text(encoding="utf-8") + "\nWritten while Redis was down.\n", "utf-8")
            assert await runner.run("watch") is None
            down = await runner.status()
            assert down.last_error is not None and "redis is unavailable" in down.last_error
            assert down.next_retry_at is not None
            await wait_for(lambda s: s.failures_in_a_row >= 2, runner)  # retried while still down
            redis_server.start()  # back, but empty: nothing was persisted
            await wait_for(lambda s: s.last_error is None and not s.running, runner)
            healed = await runner.status()
            assert healed.stored.consistency is not None and healed.stored.consistency.is_consistent
            assert healed.next_retry_at is None
            await runner.aclose()

        try:
            asyncio.run(scenario())
            stored = services.docstore.get(note.relative_to(settings.vault_path).as_posix())
            assert stored is not None and stored.markdown.endswith("Written while Redis was down.\n")
            assert services.docstore.count() == sum(1 for m in services.watermarks.all().values() if m.sha256)
        finally:
            services.close()


class GatedReindexer:
    """The real reindexer, each run held until the test opens the gate (a first build taking its time)."""

    def __init__(self, inner: Reindexer) -> None:
        self.inner = inner
        self.gate = threading.Event()

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        assert self.gate.wait(WAIT_S)
        return self.inner.run_once(on_progress)


def test_settled_waits_for_the_run_at_start_to_begin_and_end(services: Services) -> None:
    job = GatedReindexer(services.reindexer)
    runner = make_runner(services, job, delays=(0.05,))

    async def scenario() -> None:
        waiting = asyncio.create_task(runner.settled(begun_within=5.0))
        await asyncio.sleep(0.2)
        assert not waiting.done()  # no run has begun yet: the one at start is still to come
        started = asyncio.create_task(runner.run("start"))
        await asyncio.sleep(0.3)
        assert runner.is_running and not waiting.done()
        job.gate.set()
        await asyncio.wait_for(waiting, WAIT_S)
        assert (await started) is not None and not runner.is_running
        await asyncio.wait_for(runner.settled(), 1.0)  # after a run: at once
        await runner.aclose()

    asyncio.run(scenario())


def test_settled_gives_up_on_a_run_at_start_that_never_begins(services: Services) -> None:
    runner = make_runner(services, services.reindexer, delays=(0.05,))

    async def scenario() -> None:
        began = asyncio.get_running_loop().time()
        await asyncio.wait_for(runner.settled(begun_within=0.3), WAIT_S)
        assert asyncio.get_running_loop().time() - began >= 0.3
        await runner.aclose()

    asyncio.run(scenario())


class HeldReindexer:
    """The real reindexer, whose run waits for `release` to begin."""

    def __init__(self, inner: Reindexer) -> None:
        self.inner = inner
        self.release = threading.Event()

    def run_once(self, on_progress: ProgressCallback | None = None) -> ReindexReport:
        assert self.release.wait(WAIT_S)
        return self.inner.run_once(on_progress)


def test_a_status_read_while_a_run_ends_shows_what_the_run_wrote(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under load, the MCP client's first status after the first run listed no warnings: the stores had been read
    # before the run wrote them, the counters after it ended (sync/index_runner.IndexRunner.status).
    job = HeldReindexer(services.reindexer)
    runner = make_runner(services, job, delays=(60.0,))
    real_read = index_runner.read_stored_status
    reads = []

    def read_as_the_run_ends(*args: object) -> object:
        stored = real_read(*args)  # type: ignore[arg-type]
        reads.append(stored)
        if len(reads) == 1:  # the first read is over before the run writes; it returns once the run has ended
            job.release.set()
            deadline = time.monotonic() + WAIT_S
            while runner.last_report is None and time.monotonic() < deadline:
                time.sleep(0.01)
        return stored

    monkeypatch.setattr(index_runner, "read_stored_status", read_as_the_run_ends)

    async def scenario() -> None:
        run = asyncio.create_task(runner.run("start"))
        await asyncio.sleep(0)  # the run begins, held
        status = await runner.status()
        await run
        assert status.runs_completed == 1 and not status.running
        assert status.notes == services.docstore.count() > 0  # the second read, after the run
        assert reads[0].notes == 0
        await runner.aclose()

    asyncio.run(scenario())
