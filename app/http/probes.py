"""The /ready probes: blocking checks in threads, one of each kind in flight, with secrets kept out of their errors."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

from core.errors import AppError
from core.llm_endpoints import key_values
from core.settings import Settings
from llm_client import redact

logger = logging.getLogger(__name__)
PROBE_TIMEOUT_SECONDS = 3.0
STILL_RUNNING = "probe still running"


class ProbeSlots:
    """Blocking probes in threads, at most one of each kind in flight, one set per running app (its Runtime).

    A thread cannot be cancelled: after a timeout it runs on. Starting another probe while one still hangs
    would fill the default thread pool that the index runner and the embedder share, one probe at a time.
    """

    def __init__(self, secrets: tuple[str, ...]) -> None:
        self._running: dict[str, asyncio.Task[object]] = {}
        self._secrets = secrets

    async def run(self, kind: str, check: Callable[[], object]) -> str:
        """Return "ok", "timeout", STILL_RUNNING, or "error: ..." (redacted) for one probe of `kind`."""
        task = self._running.get(kind)
        if task is not None and not task.done():
            return STILL_RUNNING
        task = asyncio.create_task(asyncio.to_thread(check))
        # Retrieve the outcome even when nobody awaits it any more, so a late failure is not logged as lost.
        task.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._running[kind] = task
        try:
            # shield: a timeout must not mark the task done while its thread still runs.
            await asyncio.wait_for(asyncio.shield(task), PROBE_TIMEOUT_SECONDS)
        except TimeoutError:
            return "timeout"
        except AppError as exc:
            return f"error: {redact(exc.message, self._secrets)}"
        except Exception as exc:  # noqa: BLE001 - the HTTP edge: a probe that fails in any way is "not ready"
            logger.warning("%s probe failed: %s", kind, redact(repr(exc), self._secrets))
            return f"error: {type(exc).__name__} (see the server log)"
        result = task.result()
        return result if isinstance(result, str) else "ok"  # a check may describe its outcome itself


def secrets_of(settings: Settings) -> tuple[str, ...]:
    """Return the configured secret values, to be redacted from probe errors (a Redis URL's password too)."""
    others = (settings.api_key, settings.qdrant_api_key, settings.redis_url)
    secrets = [*(secret.get_secret_value() for secret in others if secret is not None), *key_values(settings.llm)]
    if settings.redis_url is not None:
        # Errors echo the URL in pieces (host and port without the database), so the bare password counts too.
        with contextlib.suppress(ValueError):
            password = urlsplit(settings.redis_url.get_secret_value()).password
            if password:
                secrets.append(unquote(password))
                secrets.append(password)
    return tuple(secrets)
