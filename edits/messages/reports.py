"""What happened to approved proposals and what an undo restores, and why part of a set cannot be applied alone."""

from __future__ import annotations

from collections.abc import Sequence

from core.edits import ApplyReport, ProposedEdit, UndoPlan
from edits.messages.entries import code

NOTHING_TO_UNDO = "There is no applied change to undo."
READ_ONLY = "The vault is read-only here (WRITE_BACKEND=none), so no change can be applied or undone."


def incomplete_selection(chosen: Sequence[ProposedEdit], shown: Sequence[ProposedEdit], *, yes: str = "yes") -> str:
    """Return why applying only `chosen` of `shown` would go wrong ("" when it would not).

    A change that builds on another needs it; a move without the link updates shown with it would leave every
    link to the old name pointing nowhere. `yes` starts the approval suggested instead ("yes move" when a move
    nobody asked for is shown).
    """
    picked = {proposal.id for proposal in chosen}
    shown_ids = {proposal.id for proposal in shown}
    for proposal in chosen:
        if proposal.depends_on in shown_ids and proposal.depends_on not in picked:
            needed = " ".join(p.id for p in shown if p.id in picked or p.id == proposal.depends_on)
            return f"{code(proposal.id)} builds on {code(proposal.depends_on)}; add it ({yes} {needed})."
        followers = [other.id for other in shown if other.depends_on == proposal.id and other.id not in picked]
        if proposal.new_path is not None and followers:
            needed = " ".join(p.id for p in shown if p.id in picked or p.id in followers)
            return (
                f"the move {code(proposal.id)} without the {len(followers)} link update(s) shown with it would leave "
                f"links to {code(proposal.path)} pointing nowhere; add them ({yes} {needed})."
            )
    return ""


def apply_report_text(report: ApplyReport) -> str:
    """Return what happened to each approved proposal, and how to undo what was applied."""
    lines = []
    applied = report.applied
    if applied:
        lines.append(f"Applied {len(applied)} change{'s' if len(applied) != 1 else ''}:")
        lines.extend(f"- ✓ {outcome.message}" for outcome in applied)
    others = [outcome for outcome in report.outcomes if outcome not in applied]
    if others:
        lines.append("Not applied:" if applied else "Nothing was applied:")
        lines.extend(f"- ✗ {code(outcome.path)}: {outcome.message}" for outcome in others)
        if any(outcome.status in ("conflict", "expired") for outcome in others):
            lines.append("Ask me again for a fresh proposal based on the note as it is now.")
    if report.written:
        lines.append("Reply **undo** to revert this change set.")
    return "\n".join(lines)


def undo_headline(plan: UndoPlan, change_set: str) -> str:
    """Return the first line of an undo plan (chat and CLI alike), with the change set shown as `change_set`."""
    if plan.is_applied and not plan.has_writes:
        return f"Undone change set {change_set}: its notes already read as before it, so nothing was written."
    if plan.is_applied:
        return f"Undone change set {change_set}:"
    if plan.has_writes:
        return f"Undo would revert change set {change_set}:"
    if plan.warnings:
        return f"Change set {change_set} cannot be undone without overwriting edits made since; nothing was undone:"
    return f"The notes of change set {change_set} already read as they did before it; there is nothing to undo:"


def undo_plan_text(plan: UndoPlan) -> str:
    """Return what an undo will restore (before confirmation) or restored (after), warnings included.

    Only a plan that has something to write asks for a yes: one that could only overwrite the user's edits, or finds
    the notes already as they were, says so instead.
    """
    if plan.change_set_id is None:
        return NOTHING_TO_UNDO
    lines = [undo_headline(plan, code(plan.change_set_id))]
    for step in plan.steps:
        mark = "⚠" if step.action == "conflict" else "-"
        lines.append(f"{mark} {code(step.path)}: {step.message}")
    if plan.has_writes and not plan.is_applied:
        lines.append("Reply **yes** to undo it, or **no** to keep it.")
    elif plan.warnings and plan.is_applied:
        lines.append("Notes marked ⚠ were edited since the change and were left as they are.")
    elif plan.warnings:
        lines.append("It stays undoable: once the notes marked ⚠ read again as the change left them, ask again.")
    return "\n".join(lines)
