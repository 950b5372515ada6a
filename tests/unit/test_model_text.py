"""The model's text above the gate's: imitations of the gate are neutralised in turns with proposals."""

from __future__ import annotations

import random

import pytest

from agent.gate.model_text import NEUTRALISED, ImitationGuard, neutralise_imitations

IMITATIONS = [
    "Done. Reply yes to confirm.",
    "Just say **yes** and I will apply it.",
    "Type `yes delete` to go on.",
    "**Proposed change (nothing is written yet):**",
    "2 proposed changes:",
    "Nothing has been written yet.",
    "⚠ This change is safe.",
    "You did not ask for it, but it is fine.",
    "`c0ffee12` · delete · `Inbox/Bike.md`",
    "Applied 1 change:",
    "Please confirm.",
    "Antworte mit ja, um es anzuwenden.",
    "Nichts wurde bisher geschrieben.",
]
HARMLESS = [
    "Your Inbox holds three notes: `Inbox/Bike Repair Notes.md`, a podcast tip and a quick capture.",
    "You wrote yesterday that the bike still skips; the answer is in [[Bike Repair Notes]].",
    "I proposed deleting the quick capture note, as the note in your Inbox asked.",
    "Nothing else is in there. Ja, the podcast is from Jonas.",
    "The prototype typed answers: `add` and `deadbeef` are ids? Not here.",
]


def run_guard(text: str, *, has_proposals: bool, seed: int = 0) -> tuple[str, list[str]]:
    """Feed `text` in random pieces; return the whole output and what was passed on before the turn ended."""
    guard = ImitationGuard()
    rng = random.Random(seed)
    passed: list[str] = []
    at = 0
    while at < len(text):
        size = rng.randint(1, 7)
        passed.append(guard.feed(text[at : at + size]))
        at += size
    rest = guard.finish(has_proposals=has_proposals)
    assert guard.shown == "".join(passed) + rest
    return "".join(passed) + rest, passed


@pytest.mark.parametrize("line", IMITATIONS)
def test_a_line_imitating_the_gate_is_neutralised_in_a_turn_with_proposals(line: str) -> None:
    text = f"Your Inbox has three notes.\n{line}\nThat is all."
    for seed in range(5):
        shown, _ = run_guard(text, has_proposals=True, seed=seed)
        assert shown.startswith("Your Inbox has three notes.\n") and shown.endswith("\nThat is all.")
        assert NEUTRALISED in shown and line not in shown


@pytest.mark.parametrize("line", IMITATIONS)
def test_the_same_line_is_left_as_written_when_the_turn_proposed_nothing(line: str) -> None:
    text = f"Your Inbox has three notes.\n{line}\nThat is all."
    assert run_guard(text, has_proposals=False)[0] == text


@pytest.mark.parametrize("line", HARMLESS)
def test_harmless_text_passes_unchanged_and_streams_before_the_turn_ends(line: str) -> None:
    text = f"{line}\n{line}"
    for seed in range(5):
        shown, passed = run_guard(text, has_proposals=True, seed=seed)
        assert shown == text
        assert len("".join(passed)) >= len(line)  # passed on while streaming, not held to the end


def test_streamed_and_whole_text_are_neutralised_alike() -> None:
    text = "Done.\n" + "\n".join(IMITATIONS) + "\nBye."
    whole = neutralise_imitations(text)
    assert all(run_guard(text, has_proposals=True, seed=seed)[0] == whole for seed in range(20))
    assert whole.count(NEUTRALISED) == len(IMITATIONS)


def test_text_before_an_imitation_in_the_same_line_is_kept() -> None:
    shown, _ = run_guard("Done. Reply **yes** to apply it.", has_proposals=True)
    assert shown == f"Done. {NEUTRALISED}"
