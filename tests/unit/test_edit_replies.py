"""The code-composed edit texts: proposals stay visible after any model reply, reports say what happened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.edits.proposals import new_proposal
from agent.edits.replies import apply_report_text, markup_closers, proposals_block, undo_plan_text
from core.edits import ApplyReport, EditOutcome, UndoPlan, UndoStep

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("reply", "closers"),
    [
        ("I proposed a change.", ""),
        ("Here:\n```diff\n- a\n+ b\n```\nDone.", ""),
        ("Look:\n```diff\n+ harmless", "\n```"),
        ("Look:\n````\n```\nstill inside", "\n````"),
        ("Fine. <!-- hide what follows", "-->"),
        ("Fine. <!-- closed --> text", ""),
        ("Fine. %% hidden in Obsidian", "%%"),
        ("%%a%% and %%b%%", ""),
        ("```\n%% inside code is not a comment\n```", ""),
        ("~~~\n<!-- in code\n", "\n~~~"),
        ("<!-- a\n%% b", "-->\n%%"),
        ("ok <details><summary>fine</summary>", "</details>"),
        ('<div style="display:none">\n<span>x', "</span>\n</div>"),
        ("<div>closed</div> <DIV>", "</div>"),
        ("$$\nx = 1", "$$"),
        ("<divider> is not a div", ""),
        ("```html\n<details>\n```", ""),
    ],
)
def test_markup_left_open_by_the_model_is_closed_before_the_proposals(reply: str, closers: str) -> None:
    assert markup_closers(reply) == closers


def test_the_proposals_block_shows_every_id_path_operation_and_diff() -> None:
    first = new_proposal(
        conversation_id="c", operation="append", path="A.md", before="a\n", after="a\nb\n", now=NOW, ttl_minutes=30
    )
    second = new_proposal(
        conversation_id="c", operation="create", path="B.md", before=None, after="```\ncode\n```\n", now=NOW,
        ttl_minutes=30,
    )  # fmt: skip

    block = proposals_block([first, second], now=NOW + timedelta(minutes=5))

    assert block.startswith("**2 proposed changes (nothing is written yet):**")
    assert f"`{first.id}` · append · `A.md`" in block and f"`{second.id}` · create · `B.md`" in block
    assert first.diff in block and second.diff in block
    assert "````diff\n" in block  # a fence longer than the note's own
    assert f"**yes {first.id}**" in block and "(expires in 25 min)" in block


def test_the_apply_report_separates_applied_from_refused_and_offers_undo() -> None:
    report = ApplyReport(
        "set1",
        (
            EditOutcome("p1", "A.md", "applied", "append: A.md (via files)"),
            EditOutcome("p2", "B.md", "conflict", "B.md changed since the proposal; nothing was written"),
        ),
    )

    text = apply_report_text(report)

    assert text.splitlines() == [
        "Applied 1 change:",
        "- ✓ append: A.md (via files)",
        "Not applied:",
        "- ✗ `B.md`: B.md changed since the proposal; nothing was written",
        "Ask me again for a fresh proposal based on the note as it is now.",
        "Reply **undo** to revert this change set.",
    ]


def test_an_undo_plan_asks_and_a_done_undo_names_what_was_left_alone() -> None:
    steps = (
        UndoStep(1, "A.md", "restore", "restore the previous text of A.md"),
        UndoStep(2, "B.md", "conflict", "B.md was edited since the change; it is left as is, not overwritten"),
    )

    asked = undo_plan_text(UndoPlan("set1", steps))
    done = undo_plan_text(UndoPlan("set1", steps, is_applied=True))

    assert asked.endswith("Reply **yes** to undo it, or **no** to keep it.") and "⚠ `B.md`" in asked
    assert done.startswith("Undone change set `set1`:") and done.endswith("were left as they are.")
    assert undo_plan_text(UndoPlan(None, ())) == "There is no applied change to undo."


def test_paths_with_backticks_stay_one_code_span() -> None:
    edit = new_proposal(
        conversation_id="c", operation="append", path="About `We are Good People`.md", before="a\n",
        after="a\nb\n", now=NOW, ttl_minutes=30,
    )  # fmt: skip
    block = proposals_block([edit], now=NOW)
    assert "``About `We are Good People`.md``" in block


def test_a_huge_diff_is_shortened_in_the_reply_but_the_proposal_keeps_all_of_it() -> None:
    before = "".join(f"line {n}\n" for n in range(3_000))
    after = before.replace("line ", "LINE ")
    edit = new_proposal(
        conversation_id="c", operation="replace", path="Big.md", before=before, after=after, now=NOW, ttl_minutes=30
    )

    block = proposals_block([edit], now=NOW)

    assert len(edit.diff.splitlines()) > 6_000  # stored whole: applying writes exactly the proposed text
    assert "more lines of this diff are not shown here" in block
    assert len(block.splitlines()) < 200 and "-line 0\n" in block and "+LINE 2999\n" in block


def test_many_large_proposals_together_stay_small_enough_to_resend() -> None:
    line = "x" * 390
    before = "".join(f"{n} {line}\n" for n in range(200))
    edits = [
        new_proposal(
            conversation_id="c", operation="replace section", path=f"N{n}.md", before=before,
            after=before.replace(line, line.upper()), now=NOW, ttl_minutes=30,
        )
        for n in range(16)
    ]  # fmt: skip

    block = proposals_block(edits, now=NOW)

    assert len(block) < 200_000  # the next message, which resends this reply, stays far under MAX_BODY_BYTES
    assert all(f"`{edit.id}`" in block for edit in edits)
