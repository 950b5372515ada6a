"""The code-composed edit texts: proposals stay visible after any model reply, reports say what happened."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.gate.intent import AskedChange
from agent.gate.model_text import markup_closers
from agent.gate.replies import proposals_block, words_refusal
from core.edits import ApplyReport, EditOutcome, ProposedEdit, UndoPlan, UndoStep
from edits.messages.reports import apply_report_text, undo_plan_text
from edits.proposals import new_proposal

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


def _delete(text: str, path: str = "Inbox/Quick capture.md") -> ProposedEdit:
    return new_proposal(
        conversation_id="c", operation="delete to .trash/", path=path, before=text, after=None, now=NOW, ttl_minutes=30
    )


def test_a_delete_shows_where_the_note_goes_its_size_and_first_lines_not_a_diff() -> None:
    text = "# Quick capture\n" + "".join(f"- idea {n} " + "x" * (200 if n == 2 else 0) + "\n" for n in range(9))
    delete = _delete(text)

    block = proposals_block([delete], now=NOW)

    assert f"`{delete.id}` · delete to .trash/ · `Inbox/Quick capture.md`" in block
    assert "Moves `Inbox/Quick capture.md` to `.trash/` (undo brings it back)." in block
    assert f"The note has 10 lines, {len(text.encode())} bytes; it begins:" in block
    assert "```text\n# Quick capture\n- idea 0 \n- idea 1 \n- idea 2 " + "x" * 111 + " …\n- idea 3 \n" in block
    assert "… 5 more lines\n```" in block and "- idea 4" not in block
    assert "+++ /dev/null" not in block and "-# Quick capture" not in block


def test_an_empty_note_to_delete_says_so_instead_of_an_empty_diff() -> None:
    block = proposals_block([_delete("")], now=NOW)
    assert "to `.trash/` (undo brings it back). The note is empty." in block and "```" not in block


def test_a_move_shows_both_paths_and_the_notes_whose_links_change_never_a_header_only_diff() -> None:
    move = new_proposal(
        conversation_id="c", operation="move", path="Inbox/Bike.md", before="bike\n", after="bike\n", now=NOW,
        ttl_minutes=30, new_path="Archive/Bike.md",
    )  # fmt: skip
    links = [
        new_proposal(
            conversation_id="c", operation="update links", path=path, before="see [[Inbox/Bike]]\n",
            after="see [[Archive/Bike]]\n", now=NOW, ttl_minutes=30, depends_on=move.id,
        )
        for path in ("Reviews/W46.md", "Home.md")
    ]  # fmt: skip
    alone = proposals_block([move], now=NOW)
    block = proposals_block([move, *links], now=NOW)

    assert "Moves `Inbox/Bike.md` to `Archive/Bike.md`; its text stays the same. No other note's links change." in alone
    assert "```" not in alone and "--- a/Inbox/Bike.md" not in alone
    assert "Links to it change in 2 notes (each shown below): `Reviews/W46.md`, `Home.md`." in block
    assert "-see [[Inbox/Bike]]\n+see [[Archive/Bike]]\n" in block and block.count(f"(after `{move.id}`)") == 2


def test_proposals_nobody_asked_for_open_with_a_warning_and_name_the_words_to_type() -> None:
    edit = new_proposal(
        conversation_id="c", operation="append", path="A.md", before="a\n", after="a\nb\n", now=NOW, ttl_minutes=30
    )
    delete = _delete("x\n")
    needed = {delete.id: "delete"}

    block = proposals_block([edit, delete], now=NOW, asked=AskedChange(is_change=False), needed=needed)
    asked_other = proposals_block([delete], now=NOW, asked=AskedChange(is_change=True), needed=needed)
    asked = proposals_block([delete], now=NOW, asked=AskedChange(is_change=True, kinds=frozenset({"delete"})))

    assert block.startswith(
        "⚠ **You did not ask for a change in your last message, but the model proposed the changes below. "
        "Nothing has been written.**\n\n**2 proposed changes (nothing is written yet):**"
    )
    assert "A plain **yes** applies nothing: this includes a delete you did not ask for." in block
    assert "Reply **yes delete** (or **ja löschen**) to apply all" in block and f"**yes delete {edit.id}**" in block
    assert asked_other.startswith("⚠ **You did not ask to delete a note in your last message, but the model proposed")
    assert "Reply **yes delete** (or **ja löschen**) to apply it, or **no** to discard it." in asked_other
    assert "⚠" not in asked and "Reply **yes** to apply it, or **no** to discard it." in asked


def test_an_approval_without_the_needed_word_is_answered_with_exactly_what_to_type() -> None:
    delete = _delete("x\n")
    needed = {delete.id: "delete"}

    reply = words_refusal([delete], needed, frozenset({"delete"}), ())
    by_id = words_refusal([delete], needed, frozenset({"delete"}), (delete.id,))

    assert reply.startswith(f"Nothing was applied: `{delete.id}` (delete `Inbox/Quick capture.md`) was not asked for")
    assert (
        "Reply **yes delete** (or **ja löschen**) to apply it, or **no** to discard it; until then it stays open."
        in reply
    )
    assert f"Reply **yes delete {delete.id}** (or **ja löschen {delete.id}**)" in by_id
