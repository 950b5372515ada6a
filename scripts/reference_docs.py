"""The reference parts of docs/ written from the code: the settings table and the CLI's commands.

docs/configuration.md and docs/cli.md hold `[[[cog ... ]]]` blocks that call these functions; `cog -r docs/*.md`
rewrites them, and tests/unit/test_docs_reference.py fails when they are stale (`cog --check`).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from pydantic.fields import FieldInfo

from core.settings import Settings


def configuration_tables() -> str:
    """Return one Markdown table of environment variables per group of settings, in declaration order."""
    parts: list[str] = []
    for group, names in _groups():
        parts.append(f"### {group}\n")
        parts.append("| variable | default | meaning |")
        parts.append("|---|---|---|")
        for name in names:
            field = Settings.model_fields[name]
            description = (field.description or "").replace("|", "\\|").replace("\n", " ")
            parts.append(f"| `{name.upper()}` | {_default(field)} | {description} |")
        parts.append("")
    return "\n".join(parts)


def _groups() -> Iterator[tuple[str, list[str]]]:
    # The field groups are Settings' bases; each group's title is its docstring's first line.
    seen: set[str] = set()
    for base in reversed(Settings.__mro__):
        own = [name for name in base.__dict__.get("__annotations__", {}) if name in Settings.model_fields]
        fresh = [name for name in own if name not in seen]
        if fresh:
            seen.update(fresh)
            yield (inspect.getdoc(base) or base.__name__).splitlines()[0].rstrip("."), fresh


def _default(field: FieldInfo) -> str:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    if "shown_default" in extra:
        return str(extra["shown_default"])
    value = field.get_default(call_default_factory=False)
    if value is None:
        return "(unset)"
    if isinstance(value, tuple):
        return f"`{','.join(str(item) for item in value)}`" if value else "(none)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def cli_reference() -> str:
    """Return every `librarian` command with its usage, help and options, as Markdown."""
    import typer

    from app.cli.main import cli

    root = typer.main.get_command(cli)
    return "\n".join(_command_sections(root, ["librarian"]))


def _command_sections(command: Any, path: list[str]) -> Iterator[str]:
    subcommands = getattr(command, "commands", None)
    if subcommands:
        for name, sub in subcommands.items():
            yield from _command_sections(sub, [*path, name])
        return
    arguments = " ".join(p.human_readable_name for p in command.params if p.param_type_name == "argument")
    yield f"### `{' '.join(path)}{' ' + arguments if arguments else ''}`\n"
    yield f"{inspect.cleandoc(command.help or '').strip()}\n"
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden]
    if options:
        yield "| option | default | meaning |"
        yield "|---|---|---|"
        for option in options:
            names = ", ".join(f"`{opt}`" for opt in option.opts + option.secondary_opts)
            default = "" if option.default in (None, False, ()) or option.is_flag else f"`{option.default}`"
            text = (option.help or "").replace("|", "\\|")
            yield f"| {names} | {default} | {text} |"
        yield ""
