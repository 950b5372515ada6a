"""What the terminal shows of the logs: a few lines of our own at start, not a line per request.

Without LOG_LEVEL, the service commands (`serve`, `mcp`) show this project's INFO lines (where the vault and
index are, the model found, each index run) and only warnings of the libraries below it (uvicorn's access log,
the scheduler, httpx, the MCP SDK); the other commands show warnings only. LOG_LEVEL=INFO (or DEBUG) shows every
logger at that level, libraries included.
"""

from __future__ import annotations

import logging
from typing import TextIO

SERVICE_COMMANDS = frozenset({"serve", "mcp"})
# The top-level packages of this project (pyproject's [tool.setuptools] packages).
OWN_PACKAGES = ("app", "agent", "core", "crews", "edits", "llm_client", "rag", "sync")


class _CliFormatter(logging.Formatter):
    """`warning: message` for the terminal; the service's own lines (`serve`) carry a time and the logger."""

    def format(self, record: logging.LogRecord) -> str:
        message = super().format(record)
        return f"{record.levelname.lower()}: {message}"


def configure_logging(command: str | None, level: str | None, stream: TextIO) -> None:
    """Send log records to `stream` at `level` (LOG_LEVEL), or at the quiet default for `command`."""
    is_service = command in SERVICE_COMMANDS
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s") if is_service else _CliFormatter()
    )
    known = logging.getLevelNamesMapping()
    chosen = (level or "").strip().upper()
    logging.basicConfig(level=known.get(chosen, logging.WARNING), handlers=[handler])
    if chosen and chosen not in known:
        logging.getLogger(__name__).warning("LOG_LEVEL=%s is no log level (DEBUG, INFO, WARNING, ERROR)", level)
    if chosen not in known and is_service:
        for name in OWN_PACKAGES:
            logging.getLogger(name).setLevel(logging.INFO)
