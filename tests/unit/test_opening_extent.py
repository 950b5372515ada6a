"""How much of a reply is its opening: a numbered answer's runs into its last part, a yes-or-no one is all of it."""

from __future__ import annotations

from agent.opening_check import answer_check
from agent.opening_hold import OpeningCheck
from rag.answer.attribution import Passage

# vaultofknowledge, the 0.5B (stop 61): its first part was borne out and released alone, the second shown unjudged
FIRST = (
    "1. The rule of thumb for estimating a local model's tokens per second from memory is to use the formula: "
    "Tokens/Second = Hardware FLOPS / FLOPs per Token\n"
)
SECOND = "2. My laptop has 1058 GB of VRAM, which is greater than 1 TB. Therefore, I can put 1058 GB into it."


def _check(parts: int) -> tuple[OpeningCheck, list[str]]:
    judged: list[str] = []

    def bears_out(text: str) -> bool:
        judged.append(text)
        return "1058" not in text

    return OpeningCheck(bears_out, is_borne_out_so_far=bears_out, parts=parts), judged


def test_the_opening_of_a_numbered_answer_is_judged_with_its_last_part_begun() -> None:
    check, judged = _check(parts=2)
    assert check.feed(FIRST) == ""  # the first part alone is not judged, nor released early
    assert judged == []
    assert check.feed(SECOND) == ""
    assert check.is_withheld and "1058 GB" in check.opening


def test_a_reply_not_numbered_or_a_question_in_one_part_is_judged_as_before() -> None:
    check, _ = _check(parts=1)
    assert check.feed(FIRST) == FIRST  # a question in one part: the first sentence is the opening
    check, _ = _check(parts=2)
    plain = "The rule of thumb is Tokens/Second = memory bandwidth / model size, and that is about all it says.\n"
    assert check.feed(plain) == plain
    # a right second part releases the whole
    check, _ = _check(parts=2)
    assert check.feed(FIRST) == ""
    assert (
        check.feed("2. About 50 GB/s of RAM bandwidth.") + check.finish()
        == FIRST + "2. About 50 GB/s of RAM bandwidth."
    )


def test_a_reply_to_a_yes_or_no_question_is_judged_whole() -> None:
    # the 1.5B over sample_vault (stop 61): its last sentence says the opposite of its "No"
    sleep = Passage(
        "[[Sleep#What I changed in October]]",
        "- **Caffeine cut-off at 14:00.** After two weeks of no coffee after lunch, time to fall asleep dropped from"
        " about 35 minutes to 15.",
    )
    check = answer_check("Did the caffeine cut-off help me fall asleep faster?", [sleep])
    pieces = [
        "No\nThe note [[Sleep#What I changed in October]] states that caffeine cut-off at 14:00. ",
        "After two weeks of no coffee after lunch, time to fall asleep dropped from about 35 minutes to 15. ",
        "This directly indicates that caffeine cut-off helped me fall asleep faster.",
    ]
    assert "".join(check.feed(piece) for piece in pieces) + check.finish() == ""
    assert check.is_withheld


def test_a_long_first_part_is_judged_by_its_own_opening() -> None:
    # the 1.5B on vaultofknowledge (stop 61): 600 characters of a first part held its first text to 16.7 s
    check, _ = _check(parts=2)
    long_first = "1. " + "The rule of thumb needs the weights in memory, read once per token, at the bandwidth. " * 4
    assert check.feed(long_first) == long_first


def test_past_its_deadline_a_numbered_answer_is_judged_by_its_first_part() -> None:
    now = [0.0]
    check, judged = _check(parts=2)
    check.hold_until(9.0, clock=lambda: now[0])
    assert check.feed(FIRST[:60]) == ""
    now[0] = 9.0  # the first text is due: the first part's opening is judged, borne out and shown
    assert check.feed(FIRST[60:]) == FIRST
    assert judged[-1] == FIRST and not check.is_withheld


def test_past_its_deadline_a_yes_or_no_reply_is_judged_by_its_first_sentence() -> None:
    now = [0.0]
    check = OpeningCheck(lambda text: "No" not in text, is_held_whole=True)
    check.hold_until(9.0, clock=lambda: now[0])
    opening = "Yes, the caffeine cut-off at 14:00 helped: falling asleep took 15 minutes, down from about 35.\n"
    assert check.feed(opening) == ""  # held whole before the deadline
    now[0] = 9.5
    assert check.feed("It") == opening + "It"


def test_one_copied_sentence_given_for_both_parts_is_withheld() -> None:
    # The 0.5B over sample_vault (stop 62), tried as a user: a sentence about the compost bays for both parts.
    committee = Passage(
        "[[2026-11-10 Allotment Committee#Points for Plot 47]]",
        "- The inspection walk noted that my compost bays are 0.4 m from the boundary with plot 46; the rule is 0.5 m."
        " Move them 10 cm before spring. No fine.",
    )
    check = answer_check(
        "What does the allotment committee require before building raised beds, and how high may they be?", [committee]
    )
    said = (
        "The allotment committee requires before building raised beds 0.4 m from the boundary with plot 46; the rule "
        "is 0.5 m. Move them 10 cm before spring. No fine."
    )
    reply = f"1. {said}\n2. {said}"
    assert check.feed(reply) + check.finish() == ""
    assert check.is_withheld
