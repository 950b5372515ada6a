"""Pure edits of a note's body for the propose tools: append, prepend, heading sections and tasks.

Notes are edited line by line (`edits.text.note_lines`: a BOM and every untouched line's own ending are kept).
A heading's section runs from its heading line to the next heading of the same or a higher level, sub-sections
included (as the Obsidian Local REST API targets it). Added text gets a blank line where a list, quote or table
next to it would otherwise swallow a line.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from core.errors import AlreadyDone, InvalidRequest, NotFound
from edits.text.note_lines import NoteLines
from edits.text.task_completion import TasksPlugin, complete_task, reopen_task
from rag.notes.links import heading_key
from rag.notes.markdown import heading_paths
from rag.notes.scanner import HeadingSpan, Scan, ScannedLine, split_lines

_EMPTY_TASK = re.compile(r"^[ \t]*(?:>[ \t]*)*[-*+][ \t]+\[ \][ \t]*$")
_TASK = re.compile(r"^(?P<lead>[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])[ \t]+\[)(?P<mark>.)(?P<rest>\].*)$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_QUOTE = re.compile(r"^ {0,3}>")
_TABLE_DELIMITER = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$|^[ \t]*:?-+:?[ \t]*\|")
_NEW_BLOCK = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|`{3,}|~{3,})")  # a heading or fence: never a lazy line


def content_lines(content: str, *, what: str = "content") -> list[str]:
    """Return `content` as lines (a trailing newline adds none), refusing empty content."""
    if not content.strip():
        raise InvalidRequest(f"the {what} is empty; give the text to add")
    return split_lines(content.removeprefix("\ufeff"))


def _open_block(lines: list[str]) -> str:
    """Return the block the last of `lines` leaves open to a lazy line: "list", "quote", "table" or "" for none.

    CommonMark (so Obsidian) reads a text line right under a list item or a `>` line as more of that item or
    quote ("lazy continuation"), and GFM reads it under a table as another row.
    """
    if not lines or not lines[-1].strip():
        return ""
    run = list(itertools.takewhile(lambda line: line.strip() and not _NEW_BLOCK.match(line), reversed(lines)))
    if _QUOTE.match(lines[-1]):
        return "quote"
    if "|" in lines[-1] and any(_TABLE_DELIMITER.match(line) for line in run):
        return "table"
    # An indented last line is an item's own paragraph or a nested item; an earlier item makes the run its text.
    if lines[-1][:1] in (" ", "\t") or any(_LIST_ITEM.match(line) for line in run):
        return "list"
    return ""


def _is_swallowed(above: list[str], line: str) -> bool:
    """Return True when `line`, put right under `above`, would become part of the block they end."""
    block = _open_block(above)
    if not block or not line.strip() or _NEW_BLOCK.match(line):
        return False
    continues = {"list": _LIST_ITEM.match(line), "quote": _QUOTE.match(line), "table": "|" in line}
    return not continues[block]  # an item after a list, a quote line after a quote, a row after a table go on


def _insert(note: NoteLines, at: int, added: list[str], *, floor: int) -> None:
    """Insert `added` at line `at`, blank-separated where a block above (from line `floor`) or in it swallows a line."""
    if _is_swallowed(note.lines[floor:at], added[0]):
        added = ["", *added]
    if at < len(note.lines) and _is_swallowed(added, note.lines[at]):
        added = [*added, ""]
    note.lines[at:at] = added


def append_to_note(text: str, content: str) -> str:
    """Return the note with `content` added on new lines at its end."""
    note = NoteLines.parse(text)
    _insert(note, len(note.lines), content_lines(content), floor=note.body_start)
    return note.render()


def prepend_to_note(text: str, content: str) -> str:
    """Return the note with `content` added at the start of its body, after any frontmatter."""
    note = NoteLines.parse(text)
    start = note.body_start
    _insert(note, start, content_lines(content), floor=start)
    return note.render()


def _find_heading(scan: Scan, heading: str) -> HeadingSpan:
    """Return the heading named by the last part of "H1#H2": the first under the given parents, if any are given."""
    wanted = [heading_key(part) for part in heading.strip().lstrip("#").split("#") if part.strip()]
    known = ", ".join(f"'{span.text}'" for span in scan.headings) or "none"
    if not wanted:
        raise InvalidRequest(f"the heading is empty; the note's headings are: {known}")
    paths = heading_paths(scan.headings)
    matches = [i for i, span in enumerate(scan.headings) if heading_key(span.text) == wanted[-1]]
    if not matches:
        raise NotFound(f"the note has no heading {heading!r}; its headings are: {known}")
    for index in matches:
        parents = iter(heading_key(text) for text in paths[index][:-1])
        if all(parent in parents for parent in wanted[:-1]):  # parents in order, levels may be skipped
            return scan.headings[index]
    # Parents were given and none fit: editing another same-named section would change the wrong part of the note.
    found = ", ".join(f"'{'#'.join(paths[index])}'" for index in matches)
    raise NotFound(f"the note has no heading {heading!r}; the headings with that name are: {found}")


def _section(note: NoteLines, heading: str) -> tuple[int, int]:
    """Return [start, end) file-line indices of a heading's section body (after the heading line)."""
    scan = note.scan()
    span = _find_heading(scan, heading)
    start = scan.lines[span.last].number  # 1-based number of the heading's last line = index of the next line
    later = [other for other in scan.headings if other.first > span.last and other.level <= span.level]
    end = scan.lines[later[0].first].number - 1 if later else len(note.lines)
    return start, end


def _content_end(lines: list[str], start: int, end: int) -> int:
    """Return the index after the last non-blank line in [start, end), or `start` when all are blank."""
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def append_to_section(text: str, heading: str, content: str) -> str:
    """Return the note with `content` added at the end of a heading's section, before its trailing blank lines."""
    note = NoteLines.parse(text)
    start, end = _section(note, heading)
    _insert(note, _content_end(note.lines, start, end), content_lines(content), floor=start)
    return note.render()


def prepend_to_section(text: str, heading: str, content: str) -> str:
    """Return the note with `content` added right under a heading."""
    note = NoteLines.parse(text)
    start, _ = _section(note, heading)
    _insert(note, start, content_lines(content), floor=start)
    return note.render()


def replace_section(text: str, heading: str, content: str, *, keep_spacing: bool = False) -> str:
    """Return the note with a heading's section body (sub-sections included) replaced; the heading stays.

    The section's trailing blank lines stay; with `keep_spacing` its leading blank lines (under the heading) stay
    too, so replacing a section with the same content again gives the same text, whatever its spacing.
    """
    note = NoteLines.parse(text)
    start, end = _section(note, heading)
    trailing = end - _content_end(note.lines, start, end)
    while keep_spacing and start < end - trailing and not note.lines[start].strip():
        start += 1
    note.lines[start:end] = content_lines(content) + [""] * trailing
    return note.render()


def add_task(text: str, task: str, *, heading: str = "") -> str:
    """Return the note with `- [ ] task` added next to its tasks (in a heading's section, if given).

    The task goes after the last task of the note (or section), where a reader looks for it; an empty
    placeholder task a template left (`- [ ]`) is filled in instead; with no tasks it goes at the end.
    """
    lines = content_lines(task, what="task text")
    if len(lines) != 1:
        raise InvalidRequest("a task is one line of text")
    item = f"- [ ] {lines[0].strip()}"
    note = NoteLines.parse(text)
    start, end = _section(note, heading) if heading.strip() else (note.body_start, len(note.lines))
    scanned = {line.number - 1: line for line in note.scan().lines}
    tasks = [
        index
        for index in range(start, end)
        if _TASK.match(note.lines[index]) and index in scanned and _is_task_region(scanned[index])
    ]
    placeholders = [index for index in tasks if _EMPTY_TASK.match(note.lines[index])]
    if placeholders:
        note.lines[placeholders[0]] = note.lines[placeholders[0]].rstrip() + " " + lines[0].strip()
    else:
        at = tasks[-1] + 1 if tasks else _content_end(note.lines, start, end)
        note.lines[at:at] = [item]
    return note.render()


def _is_task_region(scanned: ScannedLine) -> bool:
    """Return True when a task on this line would be one: not code, not a line inside a comment or math block."""
    return scanned.kind == "text" and not scanned.is_continued


def _task_line(note: NoteLines, *, line: int, task: str) -> int:
    """Return the index of the task line named by its 1-based number or by its exact text."""
    if line:
        if not 1 <= line <= len(note.lines) or _TASK.match(note.lines[line - 1]) is None:
            raise NotFound(f"line {line} is not a task (- [ ] ...); list the note's tasks to find its line")
        scanned = {item.number: item for item in note.scan().lines}.get(line)  # frontmatter lines are not scanned
        if scanned is None or not _is_task_region(scanned):
            where = "the frontmatter" if scanned is None else "a code block" if scanned.kind == "code" else "a comment"
            raise NotFound(f"line {line} is in {where}, so it is not a task; list the note's tasks to find its line")
        return line - 1
    wanted = task.strip()
    if not wanted:
        raise InvalidRequest("a task edit needs the task's line number or its exact text")
    found = []
    for scanned in note.scan().lines:
        match = _TASK.match(note.lines[scanned.number - 1]) if _is_task_region(scanned) else None
        if match is not None and match["rest"][1:].strip() == wanted:
            found.append(scanned.number - 1)
    if not found:
        raise NotFound(f"no task with the text {wanted!r}; give its exact text or its line number")
    if len(found) > 1:
        numbers = ", ".join(str(index + 1) for index in found)
        raise InvalidRequest(f"{len(found)} tasks have the text {wanted!r} (lines {numbers}); give the line number")
    return found[0]


_CLOSED = frozenset({"x", "X", "-"})


@dataclass(frozen=True, slots=True)
class ToggledTask:
    """A note with one task toggled, and what the Tasks plugin's part of it did or left out ("": nothing to say)."""

    text: str
    remark: str = ""


def toggle_task(text: str, *, line: int = 0, task: str = "", plugin: TasksPlugin | None = None) -> ToggledTask:
    """Return the note with one task checked (`[x]`) if it was open, or reopened (`[ ]`) otherwise.

    With the vault's Tasks plugin (`plugin`), the line changes as the plugin changes it: a done date on completion
    and a recurring task's next occurrence next to it; reopening drops the done date. Without it, or on a checkbox
    the plugin does not count (no global filter), only the mark changes, as Obsidian's own click changes it: any
    mark but a space (in progress `[/]` too) is unchecked.
    """
    note = NoteLines.parse(text)
    index, lead, mark, after = _task_parts(note, line=line, task=task)
    if plugin is None or not plugin.is_task(after):
        note.lines[index] = f"{lead}{'x' if mark == ' ' else ' '}]{after}"
        return ToggledTask(note.render())
    if mark in _CLOSED:  # the plugin's default statuses: done and cancelled reopen, in progress ("/") ends
        note.lines[index] = f"{lead} ]{reopen_task(after, plugin)}"
        return ToggledTask(note.render())
    return _completed(note, index, lead, after, plugin)


def mark_task_done(text: str, *, line: int = 0, task: str = "", plugin: TasksPlugin | None = None) -> ToggledTask:
    """Return the note with one task that is not done (open `[ ]`, in progress `[/]`, ...) checked as done (`[x]`).

    Unlike a toggle, this never reopens: "mark it as done" of a task in progress must not make it open again. With
    the vault's Tasks plugin the line gets what the plugin writes on completion (done date, next occurrence).

    Raises:
        AlreadyDone: the task is done already.
        InvalidRequest: the task is cancelled.

    """
    note = NoteLines.parse(text)
    index, lead, mark, after = _task_parts(note, line=line, task=task)
    if mark in _CLOSED:
        state = "cancelled" if mark == "-" else "done"
        closed = AlreadyDone if state == "done" else InvalidRequest  # completing a cancelled task is a choice to make
        raise closed(f"the task on line {index + 1} is {state} already ({lead.strip()}{mark}])")
    if plugin is None or not plugin.is_task(after):
        note.lines[index] = f"{lead}x]{after}"
        return ToggledTask(note.render())
    return _completed(note, index, lead, after, plugin)


def _task_parts(note: NoteLines, *, line: int, task: str) -> tuple[int, str, str, str]:
    """Return a task's line index, its text up to the checkbox's `[`, its mark and its text after the `]`."""
    index = _task_line(note, line=line, task=task)
    match = _TASK.match(note.lines[index])
    if match is None:  # _task_line only returns task lines
        raise NotFound(f"line {index + 1} is not a task")
    return index, match["lead"], match["mark"], match["rest"][1:]


def _completed(note: NoteLines, index: int, lead: str, after: str, plugin: TasksPlugin) -> ToggledTask:
    completed = complete_task(lead, after, plugin)
    note.lines[index : index + 1] = completed.lines
    return ToggledTask(note.render(), completed.remark)
