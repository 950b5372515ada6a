"""The nouns a crew run passes from task to task: collected material, the model's bound output, planned writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

OutputFamilyName = Literal["frontmatter.set", "section.write"]
ActionName = Literal["frontmatter.set", "section.replace", "note.create"]
TaskStatus = Literal["waiting", "running", "ok", "failed", "skipped", "stale"]
RunStatus = Literal["running", "ok", "failed", "aborted", "interrupted"]
FrontmatterValue = str | int | float | bool | list[str]


@dataclass(frozen=True, slots=True)
class MaterialItem:
    """One note (or one note's open tasks) a collector gathered, as it was when collected.

    `content_hash` is `edits.diffs.content_hash` of the note's text at collection (None: the note does not exist
    yet, e.g. today's daily note); a write planned from this item is skipped if the note changed since.
    """

    path: str
    content_hash: str | None
    title: str
    frontmatter: dict[str, object] = field(default_factory=dict)
    text: str | None = None  # the body, when the collector was asked for content
    tasks: tuple[CollectedTask, ...] = ()  # open tasks, for task collectors


@dataclass(frozen=True, slots=True)
class CollectedTask:
    """An open `- [ ]` task with the dates and priority the Tasks plugin (emoji) or Dataview (`[due:: ]`) gives it."""

    path: str
    line: int
    text: str  # the task's text without its date and priority markers
    status: str
    due: str | None = None  # ISO dates
    scheduled: str | None = None
    start: str | None = None
    priority: str | None = None  # "highest", "high", "medium", "low", "lowest"
    recurrence: str | None = None  # as written after 🔁 / [repeat:: ]: "every week on Monday"


@dataclass(frozen=True, slots=True)
class Material:
    """What a collector gathered for the model, and what the model's output may bind to.

    `folder_values` holds, per frontmatter key, the values already used in the collected folder: the only values
    a `frontmatter.set` output may propose for that key (a key with no values yet is bound by its type only).
    """

    collector: str
    items: tuple[MaterialItem, ...]
    folder_values: dict[str, frozenset[str]] = field(default_factory=dict)
    summary: str = ""  # one line on what was collected ("12 task notes in Tasks/ missing priority")
    as_of: str | None = None  # ISO day the collector took as today (the renderer marks tasks overdue / due today)

    @property
    def paths(self) -> frozenset[str]:
        """Return the paths the output may name."""
        return frozenset(item.path for item in self.items)

    def item(self, path: str) -> MaterialItem | None:
        """Return the collected item at `path`, or None."""
        return next((item for item in self.items if item.path == path), None)


@dataclass(frozen=True, slots=True)
class Rejection:
    """An item of the model's output, or a planned write, that was not accepted, and why."""

    what: str  # e.g. "Tasks/Write report.md: priority" or "note.create Reports/x.md"
    reason: str


@dataclass(frozen=True, slots=True)
class FrontmatterChange:
    """Bound output of `frontmatter.set`: properties to set on one collected note."""

    path: str
    values: dict[str, FrontmatterValue]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class BoundOutput:
    """The model's output after stage 1: valid against its family's schema and bound to the material."""

    family: OutputFamilyName
    changes: tuple[FrontmatterChange, ...] = ()  # frontmatter.set
    markdown: str = ""  # section.write
    rejected: tuple[Rejection, ...] = ()  # items dropped while binding (invented paths, keys, values)


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    """One note's new text, planned by an actions task and checked (stage 2) right before it is written."""

    action: ActionName
    path: str
    base_hash: str | None  # what the note was when collected (None: it must not exist yet)
    new_text: str
    diff: str
    summary: str  # shown in the run log: "set priority: high"
