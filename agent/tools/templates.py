"""The `templates` tool: the notes in the Templates plugin's folder, listed or read (placeholders left as written)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent.tools.definition import Tool, ToolArgs, pick_one, require
from agent.tools.outcome import Part, Reply, note_part, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from rag.notes.vault import clean_relative_path


class TemplatesArgs(ToolArgs):
    """Arguments of templates."""

    command: Literal["list", "read"] = Field(description="list: every template; read: the text of template name.")
    name: str = Field("", description="The template, e.g. 'Meeting Template'.")


def list_templates(snapshot: VaultSnapshot, folder: str) -> dict[str, str]:
    """Return template name (path inside the folder, without .md) -> vault path."""
    prefix = f"{folder}/"
    return {
        path[len(prefix) : -len(".md")]: path
        for path in sorted(snapshot.notes, key=str.lower)
        if path.lower().startswith(prefix.lower())
    }


def find_template(templates: dict[str, str], name: str) -> str:
    """Return the vault path of template `name` (its path in the folder, or its file name), or raise NotFound."""
    wanted = clean_relative_path(name, what="template name").removesuffix(".md").casefold()
    exact = [path for key, path in templates.items() if key.casefold() == wanted]
    by_name = [path for key, path in templates.items() if key.rpartition("/")[2].casefold() == wanted]
    return pick_one(exact, by_name, ref=name, what="template", known=list(templates))


def run_templates(reader: VaultReader, args: TemplatesArgs) -> Reply:
    """List the templates, or read one as written ({{date}} and other placeholders are not filled in)."""
    snapshot = reader.snapshot()
    folder = reader.templates_folder(snapshot)
    templates = list_templates(snapshot, folder)
    if args.command == "list":
        if not templates:
            return reply(f"The templates folder '{folder}' holds no templates.")
        lines = [Part(f"- {name} ({path})") for name, path in templates.items()]
        return reply(f"{len(templates)} template(s) in '{folder}':", *lines)
    path = find_template(templates, require(args.name, "name", "templates read"))
    return reply(note_part(path, snapshot.anchor(path), reader.read_text(snapshot, path), kind="template"))


TEMPLATES = Tool(
    name="templates",
    description="List the note templates or read one; placeholders such as {{date}} are shown as written.",
    args=TemplatesArgs,
    handler=run_templates,
    cues=("template", "templates", "vorlage", "vorlagen"),
)
