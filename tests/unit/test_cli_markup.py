"""CLI printers show vault-derived text in square brackets as written, never as Rich markup tags."""

from __future__ import annotations

import io

from rich.console import Console

from app.cli.crew_console import print_catalog


def test_a_crews_write_scope_in_square_brackets_is_printed_as_written() -> None:
    console = Console(file=io.StringIO(), width=200)
    crew = {
        "name": "weekly",
        "path": "_crews/weekly.md",
        "schedule": "",
        "description": "",
        "tasks": [{"id": "collect", "kind": "collect"}],
        "write_scope": ["[b]old notes", "[archive]"],
    }

    print_catalog(console, {"crews": [crew], "errors": [], "root": "_crews"})

    assert "writes [b]old notes, [archive]" in console.file.getvalue()  # type: ignore[attr-defined]
