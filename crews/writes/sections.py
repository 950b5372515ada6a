"""`section.replace`: the model's Markdown as the content of one heading's section, replaced on every run.

The heading stays and nothing is duplicated: a re-run with the same text writes nothing, with new text it replaces
the section's content. A missing heading is added at the end of the note (a blank line before it); a missing note
is created, today's daily note from the Daily notes template. Headings in the model's text that would end the
section early (same or higher level) are moved one level down, and a first line repeating the heading is dropped,
so the next run finds the whole section again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from core.errors import AppError, InvalidRequest, NotFound
from crews.model import Material, PlannedWrite, Rejection
from crews.writes.action_context import ActionContext
from edits.diffs import content_hash, unified_diff
from edits.text.body import content_lines, replace_section
from edits.text.note_lines import NoteLines
from rag.notes.links import heading_key
from rag.notes.scanner import scan_lines, split_lines

_PARAMS = frozenset({"note", "heading", "level"})
_Plan = tuple[list[PlannedWrite], list[Rejection], list[str]]

_CHECKBOX = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+\[.\]\s+")


@dataclass(frozen=True, slots=True)
class SectionParams:
    """The params of a `section.replace` task: which note (`{daily}` allowed), which heading, its level."""

    note: str
    heading: str
    level: int = 2


def section_params(params: Mapping[str, object]) -> SectionParams:
    """Return the params checked, or raise InvalidRequest saying what is wrong."""
    unknown = sorted(set(params) - _PARAMS)
    if unknown:
        raise InvalidRequest(f"section.replace takes note, heading and level, not {', '.join(unknown)}")
    note, heading, level = params.get("note"), params.get("heading"), params.get("level", 2)
    if not isinstance(note, str) or not note.strip():
        raise InvalidRequest("section.replace needs `note`: a vault path, or {daily} for today's daily note")
    if not isinstance(heading, str) or not heading.strip().lstrip("#").strip():
        raise InvalidRequest("section.replace needs `heading`, the heading of the section it writes")
    text = heading.strip().lstrip("#").strip()
    if "#" in text or "\n" in text:
        raise InvalidRequest(f"the heading {heading!r} may not hold '#' or line breaks")
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 6:
        raise InvalidRequest(f"section.replace `level` is a heading level from 1 to 6, not {level!r}")
    return SectionParams(note.strip(), text, level)


def section_content(markdown: str, *, heading: str, level: int) -> str:
    """Return the model's Markdown ready to be a section's content (see the module docstring); "" when empty."""
    lines = split_lines(markdown)
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    scan = scan_lines(lines)
    if scan.headings and scan.headings[0].first == 0 and heading_key(scan.headings[0].text) == heading_key(heading):
        del lines[: scan.lines[scan.headings[0].last].number]
        while lines and not lines[0].strip():
            lines.pop(0)
        scan = scan_lines(lines)
    for span in reversed(scan.headings):
        if span.level <= level:
            first, last = scan.lines[span.first].number - 1, scan.lines[span.last].number
            lines[first:last] = ["#" * (level + 1) + " " + span.text if level < 6 else f"**{span.text}**"]
    # A written section reports; it never adds tasks: a copied "- [ ] ..." would be a second copy of a task.
    return "\n".join(_CHECKBOX.sub(r"\1\2 ", line) for line in lines)


def plan_section_replace(
    params: Mapping[str, object], markdown: str, material: Material, *, context: ActionContext
) -> _Plan:
    """Plan the one write of a `section.replace` task (or none, when the note already reads so)."""
    spec = section_params(params)
    path = context.expand(spec.note)
    path = path if PurePosixPath(path).suffix else f"{path}.md"
    what = f"{path}: section {spec.heading}"
    content = section_content(markdown, heading=spec.heading, level=spec.level)
    if not content.strip():
        return [], [Rejection(what, "the model wrote no text for the section")], []
    try:
        before = context.read(path)
        is_daily = path == context.daily_path()
        start = before if before is not None else context.new_daily_note_text() if is_daily else ""
        after, verb = _with_section(start, spec, content)
    except AppError as exc:
        return [], [Rejection(what, exc.message)], []
    if after == before:
        return [], [], [path]
    item = material.item(path)
    # The hash taken at collection when the note was collected; else the note as read now.
    base = item.content_hash if item is not None else None if before is None else content_hash(before)
    if before is None:
        made = "today's daily note" if is_daily else "the note"
        source = " from the Daily notes template" if is_daily and start else ""
        verb = f"create {made}{source} with section {spec.heading}"
    write = PlannedWrite("section.replace", path, base, after, unified_diff(path, before, after), verb)
    return [write], [], []


def _with_section(text: str, spec: SectionParams, content: str) -> tuple[str, str]:
    try:
        return replace_section(text, spec.heading, content, keep_spacing=True), f"replace section {spec.heading}"
    except NotFound:
        return append_section(text, spec.heading, spec.level, content), f"add section {spec.heading}"


def append_section(text: str, heading: str, level: int, content: str) -> str:
    """Return the note with a new `level` heading and its content at the end, after one blank line."""
    note = NoteLines.parse(text)
    while note.lines and not note.lines[-1].strip():
        note.lines.pop()
    if note.lines:
        note.lines.append("")
    note.lines += ["#" * level + " " + heading, *content_lines(content)]
    return note.render()
