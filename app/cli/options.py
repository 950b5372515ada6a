"""Options every `librarian` command that reads a vault takes the same way (`--vault`, `--json`)."""

from __future__ import annotations

from typing import Annotated

import typer

# A str, not a Path: typer turns "" into Path("."), which would silently index the current folder.
VaultOption = Annotated[
    str | None,
    typer.Option("--vault", metavar="VAULT", help="Vault folder (default: VAULT_PATH, else ./sample_vault)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
