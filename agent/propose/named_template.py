"""A named template from the Templates plugin's folder, filled in for a new note (`edit_note` create)."""

from __future__ import annotations

from pathlib import PurePosixPath

from agent.propose.kit import ProposeContext
from agent.tools.templates import find_template, list_templates
from core.errors import NotFound
from edits.text.templates import TemplateValues, render_template


def render_named_template(context: ProposeContext, name: str, *, note_path: str) -> str:
    """Return template `name` (from the Templates plugin's folder) filled in for a new note at `note_path`."""
    snapshot = context.snapshot()
    folder = context.reader.templates_folder(snapshot)
    template_path = find_template(list_templates(snapshot, folder), name)
    text = context.read(template_path)
    if text is None:
        raise NotFound(f"the template {template_path!r} no longer exists")
    formats = context.reader.template_formats(snapshot)
    values = TemplateValues(context.reader.now(), PurePosixPath(note_path).stem, formats.date, formats.time)
    return render_template(text, values)
