"""The tasks done in a period, or lately, listed by code from their done dates ("Which tasks did I finish this week?").

The day a task was done is written on it: the Tasks plugin's `✅ 2023-04-17`, Dataview's `[completion:: 2023-04-17]`,
a task note's `completedDate`. Asked "Which tasks did I finish this week?", the list of the vault's done tasks came
back whole, oldest first; asked "What tasks did I complete in 2023?", the 0.5B refused with one of them quoted. The
question is read by rag/answer/done_questions.py; the tasks done in the days it names are listed here, the latest
first, each with a link to its section, and no model is asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from agent.tools.due_tasks import TaskPlace
from agent.tools.list_reply import MAX_LISTED, ListReply, capped
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from agent.tools.vault_tasks import note_line, task_notes, vault_tasks
from rag.answer.done_questions import DoneAsk
from rag.answer.due_questions import takes_priority
from rag.answer.secrets import redact_secrets
from rag.notes.task_fields import parse_task_fields

MAX_LATEST = 10  # tasks listed when asked what was done lately: the ten done last


@dataclass(frozen=True, slots=True)
class DoneTask:
    """One done task: the day it was done (None: not written), its line as the note has it, its section's link."""

    day: date | None
    line: str
    anchor: str


def done_tasks(
    reader: VaultReader, snapshot: VaultSnapshot, place: TaskPlace, priorities: tuple[str, ...] = ()
) -> list[DoneTask]:
    """Return the done tasks of `place` (of `priorities`, if any), the latest done first, undated ones last.

    Task notes and checkboxes; a cancelled task (`[-]`) is not done. Tasks done the same day keep the order of their
    notes and lines. A priority is as the lists by date read it ("normal" is none given).
    """
    found: list[DoneTask] = []
    for note in task_notes(reader, snapshot, place.folder):
        if note.is_done and place.holds(note.path) and takes_priority(priorities, note.priority):
            found.append(DoneTask(note.done, note_line(note), snapshot.anchor(note.path)))
    for path, tasks in vault_tasks(reader, snapshot, place.folder):
        if place.holds(path):
            for task in tasks:
                fields = parse_task_fields(task.text)
                if task.is_done and takes_priority(priorities, fields.priority):
                    anchor = snapshot.anchor(path, snapshot.heading_path_at(path, task.line))
                    found.append(DoneTask(fields.done, f"[{task.status}] {task.text}", anchor))
    dated = sorted((task for task in found if task.day), key=lambda task: task.day or date.min, reverse=True)
    return dated + [task for task in found if task.day is None]


class DoneTasks:
    """Answer a question about the tasks done in a period, or lately, from the days written on them."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_LISTED) -> None:
        self._reader = reader
        self._max_listed = max_listed

    def reply(self, ask: DoneAsk, place: TaskPlace) -> ListReply | None:
        """Return the list of the tasks of `place` done in the days `ask` names (the latest done, asked "lately").

        None when the question may have another answer: no done task of the place has a done date (the vault does not
        write them), or none was done then and the question names no tasks ("What did I get done yesterday?": a
        day's note may say).
        """
        found = done_tasks(self._reader, self._reader.snapshot(), place, ask.priorities)
        dated = [task for task in found if task.day is not None]
        if not dated:
            return None
        where = f" in {place.described}" if place.path else ""
        kind = f" of {' or '.join(ask.priorities)} priority" if ask.priorities else ""
        undated = len(found) - len(dated)
        source = "by their done dates"
        if undated:
            source += f"; {undated} done {_tasks(undated)} {_have(undated)} none"
        if ask.first is None or ask.last is None:
            latest = dated[:MAX_LATEST]
            counted = "The task" if len(latest) == 1 else f"The {_count(latest)}"
            header = f"{counted}{kind}{where} done last, latest first ({source}):"
            return self._listed(header, latest, place)
        when = f"on {ask.first.isoformat()}" if ask.first == ask.last else f"from {ask.first} to {ask.last}"
        within = [task for task in dated if ask.first <= (task.day or date.min) <= ask.last]
        if within:
            order = ", latest first" if len(within) > 1 and ask.first != ask.last else ""
            header = f"{_count(within)}{kind} done{where} {when}{order} ({source}):"
            return self._listed(header, within, place)
        if not ask.names_tasks:
            return None
        before = next((task for task in dated if (task.day or date.max) < ask.first), None)
        said = f"No task{kind}{where} was done {when} ({source})."
        if before is None:
            return ListReply(said, place.anchors)
        return self._listed(f"{said} The last one before:", [before], place)

    def _listed(self, header: str, tasks: list[DoneTask], place: TaskPlace) -> ListReply:
        listed = tasks[: self._max_listed]
        lines = [header, *capped([f"- {self._shown(task.line)} {task.anchor}" for task in tasks], self._max_listed)]
        return ListReply("\n".join(lines), tuple(dict.fromkeys((*place.anchors, *(task.anchor for task in listed)))))

    def _shown(self, line: str) -> str:
        return redact_secrets(line) if self._reader.redacts_secrets else line


def _count(tasks: list[DoneTask]) -> str:
    return f"{len(tasks)} {_tasks(len(tasks))}"


def _tasks(count: int) -> str:
    return "task" if count == 1 else "tasks"


def _have(count: int) -> str:
    return "has" if count == 1 else "have"
