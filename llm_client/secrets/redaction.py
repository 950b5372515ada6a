"""Secret redaction for messages, errors and log records: API keys, bearer tokens, credentials in URLs."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

REDACTED = "[REDACTED]"
# Shorter configured "secrets" (a key of "x") would mangle every message they occur in; such keys protect nothing.
MIN_SECRET_LENGTH = 4

_QUOTE = "[\"']?"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Header echoes in any shape: `Authorization: Bearer x`, `"authorization": "Basic x"`, `{'x-api-key': 'x'}`.
    (
        re.compile(
            rf"(?i)\b((?:proxy-)?authorization|x-api-key|api[-_]?key|access[-_]?token|client[-_]?secret)"
            rf"({_QUOTE}\s*[:=]\s*{_QUOTE})(?:(?:bearer|basic|digest|token)\s+)?[^\s\"',;&}}]+"
        ),
        rf"\1\2{REDACTED}",
    ),
    # Six characters at least, so prose ("the bearer of") survives; real tokens are far longer.
    (re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{6,}"), f"Bearer {REDACTED}"),
    # OpenAI-style keys (sk-..., sk-proj-..., sk-ant-...), also the masked form providers echo (sk-abc***xyz).
    (re.compile(r"\bsk-[A-Za-z0-9_*-]{8,}"), f"sk-{REDACTED}"),
    (re.compile(r"[A-Za-z0-9_-]{2,}\*{3,}[A-Za-z0-9_-]{2,}"), REDACTED),
    # Credentials in URLs: https://user:password@host and ?key=... query parameters.
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@"), rf"\1{REDACTED}@"),
    (re.compile(r"(?i)([?&](?:key|token|sig|signature)=)[^&\s\"']+"), rf"\1{REDACTED}"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Return `text` with the given secrets and anything that looks like a credential replaced by [REDACTED]."""
    # Longest first, so a secret that contains another is removed whole.
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Redact log records (message, arguments, exception and stack text) before any handler formats them.

    A filter on a logger sees only records logged on that very logger; install it on handlers to cover
    records that propagate from child loggers.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret: str) -> None:
        """Redact this literal value too (e.g. a key read from settings)."""
        if len(secret) >= MIN_SECRET_LENGTH:
            self._secrets.add(secret)

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place with secrets redacted; never drop it."""
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            # Arguments that do not fit the format: logging would report it later; keep both, redacted.
            message = f"{record.msg} {record.args!r}"
        record.msg = redact(message, self._secrets)
        record.args = None
        if record.exc_info and not record.exc_text:
            # Formatters reuse a cached exc_text, so filling it here keeps the raw traceback text out.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self._secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self._secrets)
        return True
