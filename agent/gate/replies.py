"""The texts the user reads about edits, composed by code: proposals with their diffs, apply reports, undo plans.

The model never writes these: what the user approves must be exactly what code stored and will apply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from agent.gate.approval import approval_words
from agent.gate.intent import AskedChange
from core.edits import DestructiveKind, ProposedEdit
from edits.messages.entries import code, proposal_entries

SEPARATOR = "\n\n"
NOTHING_PENDING = "Nothing is waiting for your approval, so nothing was changed."


def _time_left(proposals: Sequence[ProposedEdit], now: datetime) -> str:
    seconds = max(0, round((min(p.expires_at for p in proposals) - now).total_seconds()))
    return f"{seconds} s" if seconds < 60 else f"{round(seconds / 60)} min"


_ASKED = AskedChange(is_change=True)
_NOT_ASKED: dict[DestructiveKind, str] = {"delete": "to delete a note", "move": "to move or rename a note"}


_ORDER: tuple[DestructiveKind, ...] = ("delete", "move")


def _kinds(needed: Mapping[str, DestructiveKind]) -> list[DestructiveKind]:
    return [kind for kind in _ORDER if kind in needed.values()]


def unrequested_warning(
    proposals: Sequence[ProposedEdit], asked: AskedChange, needed: Mapping[str, DestructiveKind]
) -> str:
    """Return the warning that opens the gate's part of a reply whose proposals nobody asked for ("" if asked)."""
    if not asked.is_change:
        what, asked_for = ("the change" if len(proposals) == 1 else "the changes"), "for a change"
    elif needed:
        what, asked_for = "it", " or ".join(_NOT_ASKED[kind] for kind in _kinds(needed))
    else:
        return ""
    return (
        f"⚠ **You did not ask {asked_for} in your last message, but the model proposed {what} below. "
        "Nothing has been written.**"
    )


def _answer_line(proposals: Sequence[ProposedEdit], needed: Mapping[str, DestructiveKind]) -> str:
    """Return how to answer the proposals: the words a delete or move nobody asked for needs, or a plain yes."""
    one = len(proposals) == 1
    yes = "yes"
    answer = ""
    if needed:
        kinds = _kinds(needed)
        yes = approval_words(kinds)
        answer = (
            f"A plain **yes** applies nothing: this includes a {' and a '.join(kinds)} you did not ask for. "
            f"Reply **{yes}** (or **{approval_words(kinds, german=True)}**) "
        )
    else:
        answer = "Reply **yes** "
    if one:
        answer += "to apply it, or **no** to discard it."
    else:
        answer += f"to apply all, **{yes} {proposals[0].id}** to apply only the ones you name, or **no** to discard."
        if any(proposal.depends_on for proposal in proposals):
            answer += ' A change marked "after" needs the change it names.'
    return f"{answer} Any other message discards {'it' if one else 'them'} too"


def proposals_block(
    proposals: Sequence[ProposedEdit],
    *,
    now: datetime,
    asked: AskedChange = _ASKED,
    needed: Mapping[str, DestructiveKind] | None = None,
) -> str:
    """Return the proposals as the user sees them: a warning when nobody asked for them, each entry, how to answer.

    Args:
        proposals: the proposals of the turn, in order.
        now: the current time (for the time left to answer).
        asked: what the turn's user message asked for.
        needed: per proposal id, the kind a plain yes cannot confirm (`approval.words_needed`).

    """
    needed = needed or {}
    count = len(proposals)
    title = "Proposed change" if count == 1 else f"{count} proposed changes"
    warning = unrequested_warning(proposals, asked, needed)
    parts = [warning] if warning else []
    parts += [f"**{title} (nothing is written yet):**", *proposal_entries(proposals)]
    parts.append(f"{_answer_line(proposals, needed)} (expires in {_time_left(proposals, now)}).")
    return SEPARATOR.join(parts)


def auto_applied_block(proposals: Sequence[ProposedEdit], report: str, *, asked: AskedChange = _ASKED) -> str:
    """Return what WRITE_CONFIRM=false applied without asking: a warning if nobody asked, each entry, the report."""
    title = "**Applied without asking (WRITE_CONFIRM=false):**"
    if not asked.is_change:
        warning = "⚠ **You did not ask for a change in your last message, but the model made the changes below.**"
        title = f"{warning}\n{title}"
    return SEPARATOR.join([title, *proposal_entries(proposals), report])


def words_refusal(
    chosen: Sequence[ProposedEdit],
    needed: Mapping[str, DestructiveKind],
    required: frozenset[DestructiveKind],
    ids: Sequence[str],
) -> str:
    """Return the reply to an approval that lacks (or misnames) the word a delete or move nobody asked for needs.

    Args:
        chosen: the proposals the approval would apply.
        needed: per proposal id, the kind a plain yes cannot confirm.
        required: the kinds the approval must name to apply `chosen`.
        ids: the ids the approval named (repeated in what to type).

    """
    one = len(chosen) == 1
    them = "it" if one else "them"
    unasked = [p for p in chosen if p.id in needed]
    if unasked:
        listed = ", ".join(f"{code(p.id)} ({needed[p.id]} {code(p.path)})" for p in unasked)
        reason = f"{listed} {'was' if len(unasked) == 1 else 'were'} not asked for, so a plain yes is not enough"
    else:
        reason = "you named a delete or move, but no change shown is one"
    typed = approval_words(required, ids)
    german = f" (or **{approval_words(required, ids, german=True)}**)" if required else ""
    return (
        f"Nothing was applied: {reason}. Reply **{typed}**{german} to apply {them}, or **no** to discard "
        f"{them}; until then {'it stays' if one else 'they stay'} open."
    )


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


def discarded_notice(discarded: Sequence[ProposedEdit]) -> str:
    """Return the notice that an answer other than yes discarded the proposals shown before."""
    ids = ", ".join(f"`{proposal.id}`" for proposal in discarded)
    return f"(Discarded the proposed change{'s' if len(discarded) != 1 else ''} {ids}; nothing was written.)"
