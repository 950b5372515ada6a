"""The texts the user reads about edits, composed by code: proposals with their diffs, apply reports, undo plans.

The model never writes these: what the user approves must be exactly what code stored and will apply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from agent.propose.kit import SHOWN_DIFF_LINES, diff_fence, shorten_diff
from core.edits import ApplyReport, ProposedEdit, UndoPlan

SEPARATOR = "\n\n"
NOTHING_PENDING = "Nothing is waiting for your approval, so nothing was changed."
NOTHING_TO_UNDO = "There is no applied change to undo."
READ_ONLY = "The vault is read-only here (WRITE_BACKEND=none), so no change can be applied or undone."


def code(text: str) -> str:
    """Return `text` as a Markdown code span that its own backticks cannot break (note names may hold them)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{ticks}{padded}{ticks}"


def _target(proposal: ProposedEdit) -> str:
    return f"{code(proposal.path)} → {code(proposal.new_path)}" if proposal.new_path else code(proposal.path)


# The whole reply stays far below MAX_BODY_BYTES (1 MB by default): chat apps resend it with every later message.
MAX_BLOCK_CHARS = 120_000


def _entries(proposals: Sequence[ProposedEdit]) -> list[str]:
    """Return each proposal's entry, with shorter diffs when all of them together would be too long to resend."""
    entries = [_entry(proposal, max_lines=SHOWN_DIFF_LINES) for proposal in proposals]
    total = sum(len(entry) for entry in entries)
    if total <= MAX_BLOCK_CHARS:
        return entries
    lines = max(12, SHOWN_DIFF_LINES * MAX_BLOCK_CHARS // total)
    return [_entry(proposal, max_lines=lines) for proposal in proposals]


def _entry(proposal: ProposedEdit, *, max_lines: int) -> str:
    diff = shorten_diff(proposal.diff, max_lines=max_lines)
    fence = diff_fence(diff)
    after = f" (after {code(proposal.depends_on)})" if proposal.depends_on else ""
    head = f"{code(proposal.id)} · {proposal.operation} · {_target(proposal)}{after}"
    return f"{head}\n{fence}diff\n{diff}{fence}"


def _time_left(proposals: Sequence[ProposedEdit], now: datetime) -> str:
    seconds = max(0, round((min(p.expires_at for p in proposals) - now).total_seconds()))
    return f"{seconds} s" if seconds < 60 else f"{round(seconds / 60)} min"


def proposals_block(proposals: Sequence[ProposedEdit], *, now: datetime) -> str:
    """Return the proposals as the user sees them: id, operation, path and diff each, then how to answer."""
    count = len(proposals)
    title = "Proposed change" if count == 1 else f"{count} proposed changes"
    parts = [f"**{title} (nothing is written yet):**", *_entries(proposals)]
    if count == 1:
        answer = "Reply **yes** to apply it, or **no** to discard it."
    else:
        example = proposals[0].id
        answer = f"Reply **yes** to apply all, **yes {example}** to apply only the ones you name, or **no** to discard."
        if any(proposal.depends_on for proposal in proposals):
            answer += ' A change marked "after" needs the change it names.'
    them = "it" if count == 1 else "them"
    parts.append(f"{answer} Any other message discards {them} too (expires in {_time_left(proposals, now)}).")
    return SEPARATOR.join(parts)


def auto_applied_block(proposals: Sequence[ProposedEdit], report: str) -> str:
    """Return what WRITE_CONFIRM=false applied without asking: each change's diff, then the apply report."""
    title = "**Applied without asking (WRITE_CONFIRM=false):**"
    return SEPARATOR.join([title, *_entries(proposals), report])


def incomplete_selection(chosen: Sequence[ProposedEdit], shown: Sequence[ProposedEdit]) -> str:
    """Return why applying only `chosen` of `shown` would go wrong ("" when it would not).

    A change that builds on another needs it; a move without the link updates shown with it would leave every
    link to the old name pointing nowhere.
    """
    picked = {proposal.id for proposal in chosen}
    shown_ids = {proposal.id for proposal in shown}
    for proposal in chosen:
        if proposal.depends_on in shown_ids and proposal.depends_on not in picked:
            needed = " ".join(p.id for p in shown if p.id in picked or p.id == proposal.depends_on)
            return f"{code(proposal.id)} builds on {code(proposal.depends_on)}; add it (yes {needed})."
        followers = [other.id for other in shown if other.depends_on == proposal.id and other.id not in picked]
        if proposal.new_path is not None and followers:
            needed = " ".join(p.id for p in shown if p.id in picked or p.id in followers)
            return (
                f"the move {code(proposal.id)} without the {len(followers)} link update(s) shown with it would leave "
                f"links to {code(proposal.path)} pointing nowhere; add them (yes {needed})."
            )
    return ""


def nothing_pending_text(latest: ProposedEdit | None, now: datetime, *, undone: bool = False) -> str:
    """Return the reply to an approval with nothing waiting, saying what became of the chat's last proposal."""
    if latest is None or latest.status == "pending" and not latest.is_expired(now):
        return NOTHING_PENDING
    when = latest.created_at.astimezone(now.tzinfo).strftime("%H:%M")
    last = f"The last change proposed in this chat ({code(latest.id)}, {when})"
    if latest.status in ("pending", "expired"):
        return f"{last} expired before your answer, so nothing was changed. Ask me again for it."
    if latest.status == "applied" and undone:
        return f"{last} was applied and then undone; nothing else is waiting."
    if latest.status == "applied":
        return f"{last} was already applied; nothing else is waiting. Reply **undo** to revert it."
    if latest.status == "conflict":
        return f"{last} was refused because its note changed; nothing else is waiting. Ask me again for it."
    return f"{last} was discarded, so nothing was changed; nothing else is waiting. Ask me again for it."


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


def discarded_notice(discarded: Sequence[ProposedEdit]) -> str:
    """Return the notice that an answer other than yes discarded the proposals shown before."""
    ids = ", ".join(f"`{proposal.id}`" for proposal in discarded)
    return f"(Discarded the proposed change{'s' if len(discarded) != 1 else ''} {ids}; nothing was written.)"


_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
# HTML elements a renderer (Obsidian, Open WebUI) may use to fold or hide what follows until they are closed.
_HIDING_TAGS = ("details", "summary", "div", "span", "p", "pre", "table", "textarea", "template", "noscript",
                "style", "script", "iframe", "object", "svg", "select", "font", "center")  # fmt: skip


def _prose_lines(text: str) -> tuple[list[str], str]:
    """Return the lines outside code fences, and the fence still open at the end ("" when none)."""
    fence = ""
    prose: list[str] = []
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence:
            closes = match is not None and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
            if closes and match is not None and not line[match.end() :].strip():
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        prose.append(line)
    return prose, fence


def markup_closers(text: str) -> str:
    """Return what closes markup the model left open and that would hide the proposals shown after its reply.

    A reply ending inside a code fence, an HTML comment (`<!--`), an Obsidian comment (`%%`), math (`$$`) or an
    open HTML element such as `<details>` or `<div style="display:none">` would render the code-composed diff
    below it as code or hide it, so a manipulated reply could show a harmless fake proposal while the real one
    stays invisible. Closing them keeps the real diff visible.
    """
    prose, fence = _prose_lines(text)
    closers = [f"\n{fence}"] if fence else []
    outside = "\n".join(prose)
    if outside.rfind("<!--") > outside.rfind("-->"):
        closers.append("-->")
    for marker in ("%%", "$$"):
        if outside.count(marker) % 2:
            closers.append(marker)
    lowered = outside.lower()
    open_tags = []
    for tag in _HIDING_TAGS:
        opened = len(re.findall(rf"<{tag}(?=[\s>/])", lowered))
        closed = len(re.findall(rf"</{tag}\s*>", lowered))
        open_tags.extend([(lowered.rfind(f"<{tag}"), tag)] * max(0, opened - closed))
    closers.extend(f"</{tag}>" for _, tag in sorted(open_tags, reverse=True))  # innermost first
    return "\n".join(closers)
