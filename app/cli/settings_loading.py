"""Settings for a command, read from the environment, and errors turned into messages (no tracebacks).

Every command module imports these from here, not from `app.cli.main`, which imports the command modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from rich.console import Console
from rich.markup import escape

from core.errors import AppError
from core.settings import Settings

err = Console(stderr=True, soft_wrap=True)


def load_settings(vault: str | None = None) -> Settings:
    """Read settings from the environment, pointing at `vault` when given; exit with a clear message if invalid."""
    if vault is not None and not vault.strip():
        err.print("[red]error:[/red] the vault path is empty; pass the vault folder or set VAULT_PATH")
        raise typer.Exit(1)
    try:
        settings = Settings()
        return settings.with_vault(Path(vault)) if vault is not None else settings
    except ValidationError as exc:
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"]) or "settings"
            err.print(f"[red]configuration error[/red] ({field.upper()}): {escape(_describe(error))}")
        raise typer.Exit(2) from exc


def _describe(error: ErrorDetails) -> str:
    # A validator's own message reads better without pydantic's "Value error, " prefix.
    cause = (error.get("ctx") or {}).get("error")
    return str(cause) if error["type"] == "value_error" and cause else error["msg"]


@contextmanager
def reporting_errors() -> Iterator[None]:
    """Turn an AppError into a message on stderr and exit code 1, never a traceback."""
    try:
        yield
    except AppError as exc:
        err.print(f"[red]error:[/red] {escape(exc.message)}")
        raise typer.Exit(1) from exc
