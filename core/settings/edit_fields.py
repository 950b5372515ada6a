"""The settings of changes to the vault: the writer, where it may write, confirmation, limits, and crews."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import NoDecode

from core.settings.index_fields import shown_default


class EditFields(BaseModel):
    """Changes to the vault and crews."""

    write_backend: Literal["auto", "rest", "files", "none"] = Field(
        "auto",
        description="`auto` (the Obsidian Local REST API plugin when it answers, else files), `rest`, `files` or "
        "`none` (read-only).",
    )
    obsidian_api_url: str = Field(
        "https://127.0.0.1:27124",
        description="The Local REST API plugin (its self-signed certificate is accepted; HTTP on 27123 works too).",
    )
    obsidian_api_key: SecretStr | None = Field(None, description="The Local REST API plugin's key.")
    writable_folders: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="Comma-separated folders edits may touch; `.obsidian/`, `.git/`, `.trash/`, dotfiles, "
        "`CREWS_ROOT` and `PRIVATE_FOLDERS` are always refused.",
        json_schema_extra=shown_default("the whole vault"),
    )
    write_confirm: bool = Field(
        True, description="`false` applies proposals without asking (trusted setups only; MCP always asks)."
    )
    proposal_ttl_minutes: float = Field(30, gt=0, description="How long a proposal waits for its yes.")
    # 50: a rename updates every note that links to it, and "tag these notes" batches are common; each change is
    # still shown as a diff and needs the user's yes.
    max_writes_per_turn: int = Field(
        50, gt=0, description="Notes one turn may change (a rename counts every note whose links it updates)."
    )
    max_note_write_bytes: int = Field(1_000_000, gt=0, description="The largest note an edit may write.")
    crews_root: str = Field(
        "_crews",
        min_length=1,
        description="Vault folder of crew team and agent notes and their run logs (never indexed, never written by "
        "an edit).",
    )
    crew_max_writes: int = Field(50, gt=0, description="The most writes any crew run may make; caps `max_writes`.")
    # 100: about four days of an hourly crew, three months of a daily one; a log is a few KB, but each is a folder
    # in the vault that Obsidian, sync and runs.base all go through.
    crew_run_logs_keep: int = Field(
        100,
        ge=0,
        description="Run logs kept per crew: after each run, that crew's oldest finished logs beyond this many are "
        "removed (in the vault and under DATA_DIR). Runs still going and runs whose writes can still be "
        "undone are always kept. `0` keeps every log.",
    )
