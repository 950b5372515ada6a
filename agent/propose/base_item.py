"""The `add_base_item` write tool: a new note made to show up in a base's view (Obsidian Bases "New item").

What the note needs is read off the base's and the view's filters (agent/propose/base_needs.py). Of an `or` group
the first branch that asks for something is taken, unless the note already meets the group. The note is then
checked with the same filter evaluator the `bases` read tool uses, `this` being the base file; a note the view
would not list is refused, naming the filter it fails, and so is one whose filters cannot all be evaluated
(formulas, date arithmetic), pointing to edit_note create instead.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from pydantic import Field

from agent.propose.base_needs import Filter, ItemNeeds, collect_needs, note_text
from agent.propose.kit import PlannedEdit, ProposeContext, ProposeTool
from agent.propose.paths import check_note_name
from agent.tools.bases.expressions import Attr, Call, Compare, Lit, Logic, Name, Not, UnsupportedExpression
from agent.tools.bases.filters import Row, evaluate, matches, uses_this
from agent.tools.bases.tool import BASE_CUES, find_base, parse_base, pick_view
from agent.tools.definition import ToolArgs, require
from agent.tools.snapshot import ResolvedLink, VaultSnapshot
from core.errors import InvalidRequest
from edits.scope import check_writable
from edits.text.frontmatter import PropertyValue
from rag.notes.markdown import parse_note


def _holds(item: Filter, row: Row) -> bool:
    if not isinstance(item, Lit | Name | Attr | Call | Not | Compare | Logic):
        return matches(item, row, set()) is True
    try:
        value = evaluate(item, row)
    except UnsupportedExpression:
        return False
    return value not in (None, False, 0, "", [], {})


def failing_filters(filters: Filter, row: Row) -> list[str]:
    """Return the innermost parts of `filters` that reject the row (a whole `or` / `not` group counts as one)."""
    if matches(filters, row, set()) is not False:
        return []
    if isinstance(filters, list) or (isinstance(filters, dict) and list(filters) == ["and"]):
        items = filters if isinstance(filters, list) else filters["and"]
        return [part for item in (items if isinstance(items, list) else [items]) for part in failing_filters(item, row)]
    return [filters if isinstance(filters, str) else json.dumps(filters, ensure_ascii=False)]


def _with_note(snapshot: VaultSnapshot, path: str, text: str) -> VaultSnapshot:
    """Return the snapshot as it would be with the new note in it (its outgoing links resolved too)."""
    note = parse_note(path, text)
    links = tuple(
        ResolvedLink(path, link, snapshot.resolver.resolve(link.target, source_path=path).path if link.target else path)
        for link in note.links
    )
    return dataclasses.replace(
        snapshot, notes={**snapshot.notes, path: note}, outgoing={**snapshot.outgoing, path: links}
    )


class AddBaseItemArgs(ToolArgs):
    """Arguments of add_base_item."""

    base: str = Field(description="The base's name or path.")
    title: str = Field(description="The new note's name, e.g. 'Greenhouse' (the base decides its folder).")
    view: str = Field("", description="The view it must show in; empty: the first.")
    properties: dict[str, PropertyValue] = Field(
        default_factory=dict,
        description='Properties to set, e.g. {"status": "active"}; they win over what the filters ask for.',
    )
    content: str = Field("", description="The note's markdown body.")


@dataclass(frozen=True, slots=True)
class _Draft:
    """The new note as the needs so far make it: where it goes and its text, as a row the filters can check."""

    context: ProposeContext
    title: str
    args: AddBaseItemArgs
    base_path: str  # what `this` names in the filters: the base opened on its own

    def path(self, needs: ItemNeeds) -> str:
        folders = sorted(needs.folders, key=len) or [self.context.reader.new_note_folder(self.context.snapshot())]
        folder = folders[-1]  # the deepest folder asked for; a contradiction shows up in the check
        path = f"{folder}/{self.title}.md" if folder else f"{self.title}.md"
        return check_writable(path, settings=self.context.settings)

    def row(self, needs: ItemNeeds) -> tuple[Row, str]:
        path, text = self.path(needs), note_text(needs, self.args.properties, self.args.content)
        snapshot = _with_note(self.context.snapshot(), path, text)
        return Row(snapshot, path, self.context.today(), this_path=self.base_path), text


def _asks_more(trial: ItemNeeds, needs: ItemNeeds) -> bool:
    asked = (trial.folders, trial.tags, trial.properties, len(trial.choices), trial.entries)
    return asked != (needs.folders, needs.tags, needs.properties, len(needs.choices), needs.entries)


def _meet_choices(draft: _Draft, needs: ItemNeeds) -> ItemNeeds:
    """Take the first branch that asks for something of each `or` group the note does not meet yet."""
    index = 0
    while index < len(needs.choices):
        group = needs.choices[index]
        index += 1
        row, _ = draft.row(needs)
        if any(_holds(branch, row) for branch in group):
            continue
        for branch in group:
            trial = needs.copy()
            collect_needs(branch, trial)
            if _asks_more(trial, needs):
                needs = trial
                break
    return needs


def _title(text: str) -> str:
    return check_note_name(require(text, "title", "add_base_item").removesuffix(".md").strip())


def _check_listed(checks: list[tuple[str, Filter]], row: Row, text: str) -> None:
    """Refuse the note unless every filter is known to list it: failing filters first, then ones not checkable.

    A filter this evaluator cannot compute (formulas, date arithmetic) is not taken as met: the tool's promise is
    that the base lists the note, and the model only learns of a caveat through a refusal.
    """
    unknown: set[str] = set()
    for label, filters in checks:
        failing = failing_filters(filters, row)
        if failing:
            embedded = (
                " (`this` is the base file itself here: a view meant to be embedded in a note lists that note's "
                "related notes, so use edit_note create for those)"
                if uses_this(failing)
                else ""
            )
            raise InvalidRequest(
                f"a note {row.path!r} with these values would not show up in the base: it fails {label}: "
                f"{'; '.join(failing)}{embedded}. Change the title or properties (or pick another view); nothing was "
                "proposed"
            )
        problems: set[str] = set()
        if matches(filters, row, problems) is None:
            unknown.update(f"{label}: {problem}" for problem in problems)
    if unknown:
        so_far = f"; so far the note would be:\n{text}" if text else ""
        raise InvalidRequest(
            "add_base_item cannot check that the base would list the note: these filters use what it cannot "
            f"evaluate: {'; '.join(sorted(unknown))}. Nothing was proposed. Use edit_note create instead, with path "
            f"{row.path!r} (or the folder the base needs) and content whose frontmatter has the properties and tags "
            f"those filters ask for{so_far}"
        )


def plan_add_base_item(context: ProposeContext, args: AddBaseItemArgs) -> list[PlannedEdit]:
    """Plan the note a base's view would list: folder, tags and properties from its filters, then checked."""
    snapshot = context.snapshot()
    base_path = find_base(snapshot, require(args.base, "base", "add_base_item"))
    base = parse_base(base_path, context.reader.read_text(snapshot, base_path))
    view = pick_view(base, args.view) if base.views or args.view.strip() else None
    draft = _Draft(context, _title(args.title), args, base.path)
    needs = ItemNeeds()
    collect_needs(base.filters, needs)
    collect_needs(view.filters if view else None, needs)
    needs = _meet_choices(draft, needs)
    row, text = draft.row(needs)
    if context.read(row.path) is not None:
        raise InvalidRequest(f"{row.path!r} already exists; pick another title or edit that note with edit_note")
    checks = [(f"the filters of {base.path}", base.filters)] + (
        [(f"the filters of view '{view.name}'", view.filters)] if view else []
    )
    _check_listed(checks, row, text)
    operation = f"add item to base {base.path}" + ("" if text else " (empty note)")
    return [PlannedEdit(operation, row.path, None, text)]


ADD_BASE_ITEM: ProposeTool[AddBaseItemArgs] = ProposeTool(
    name="add_base_item",
    description=(
        "Propose a new note for an Obsidian base, made so that the base's view lists it. "
        "Nothing is written until the user replies yes."
    ),
    args=AddBaseItemArgs,
    planner=plan_add_base_item,
    cues=BASE_CUES,
)
