"""Keeping secrets out of logs: one redaction filter on every handler that prints log records."""

from __future__ import annotations

import logging

from core.llm_endpoints import key_values
from core.settings import Settings
from llm_client import RedactingFilter

LOGGERS_WITH_HANDLERS = ("", "uvicorn", "uvicorn.error", "uvicorn.access")


def install_log_redaction(settings: Settings) -> None:
    """Redact API keys (ours, every LLM endpoint's, Qdrant's, Redis URL passwords) from all log lines; repeatable."""
    others = (settings.api_key, settings.qdrant_api_key, settings.redis_url)
    secrets = [*(secret.get_secret_value() for secret in others if secret is not None), *key_values(settings.llm)]
    redacting = RedactingFilter(secrets)
    for name in LOGGERS_WITH_HANDLERS:
        for handler in logging.getLogger(name).handlers:
            # Replace an earlier filter of ours: the secrets may have changed (tests build several apps).
            for old in [f for f in handler.filters if isinstance(f, RedactingFilter)]:
                handler.removeFilter(old)
            handler.addFilter(redacting)
