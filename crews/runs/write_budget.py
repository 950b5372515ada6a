"""A run's writes left under `max_writes`, and the material an llm task is given so that its writes fit them.

The limit is checked before the model is asked, not only after: a frontmatter.set task given 10 notes when the run
may write 2 more would fail after a long call. It is given the first notes (collectors put what matters most
first), as many as it may write; a task that may write nothing fails before any call.
"""

from __future__ import annotations

from dataclasses import replace

from core.errors import AppError
from core.settings import CrewSettings
from crews.definitions import ActionsTask, LlmTask, TeamSpec
from crews.logs.run_state import RunState
from crews.model import Material


class WriteLimitReached(AppError):
    """The run may write no more notes than max_writes (capped by CREW_MAX_WRITES)."""


def writes_left(spec: TeamSpec, crews: CrewSettings, state: RunState) -> int:
    """Return how many more notes the run may write (a dry run counts the writes it planned)."""
    return max(0, min(spec.max_writes, crews.max_writes) - state.writes - len(state.planned))


def fit_to_writes(task: LlmTask, spec: TeamSpec, material: Material, left: int) -> tuple[Material, str]:
    """Return the material cut to what the task may write with `left` writes, and a run-log line when it was cut.

    Raises:
        WriteLimitReached: the actions after the task would need more writes than are left, whatever it answers.

    """
    consumers = _fed_actions(task, spec)
    if not consumers:
        return material, ""
    if task.output.family != "frontmatter.set" or left < len(consumers):  # a section: one write per action
        if len(consumers) <= left:
            return material, ""
        raise WriteLimitReached(
            f"task {task.id!r} would write {len(consumers)} note(s) but the run may write {left} more (max_writes);"
            " the model was not asked"
        )
    notes = left // len(consumers)  # frontmatter.set writes each note the model names, once per action
    if len(material.items) <= notes:
        return material, ""
    line = (
        f"gave the model the first {notes} of the {len(material.items)} notes collected: the run may write"
        f" {left} more note(s) (max_writes)"
    )
    return replace(material, items=material.items[:notes]), line


def _fed_actions(task: LlmTask, spec: TeamSpec) -> list[ActionsTask]:
    """Return the actions tasks that apply `task`'s output: those after it, up to the next llm task."""
    after = spec.tasks[spec.tasks.index(task) + 1 :]
    fed: list[ActionsTask] = []
    for candidate in after:
        if isinstance(candidate, LlmTask):
            break
        if isinstance(candidate, ActionsTask):
            fed.append(candidate)
    return fed
