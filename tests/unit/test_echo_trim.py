"""The prompt's "Question: …" line a small model repeats, and its "Answer:" label, kept from the user."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent.echo_trim import MAX_HELD, EchoTrim, PartEchoTrim

ASKED = "How long does it rest?"


def trimmed(pieces: list[str], asked: str = ASKED) -> str:
    trim = EchoTrim(asked)
    return "".join(trim.feed(piece) for piece in pieces) + trim.finish()


def by_character(text: str) -> list[str]:
    return list(text)


@pytest.mark.parametrize("split", [lambda text: [text], by_character], ids=["whole", "by-character"])
@pytest.mark.parametrize(
    ("reply", "shown"),  # None: shown as it came
    [
        ("Question: How long does it rest?\nAnswer: 45 minutes [[Sourdough]].", "45 minutes [[Sourdough]]."),
        ("Question: how long does it  rest\n\n45 minutes.", "45 minutes."),
        ("**Question:** How long does it rest?\r\nAnswer:\n\n45 minutes.", "45 minutes."),
        ("Request: How long does it rest?\n45 minutes.", "45 minutes."),
        ("Question: How long does it rest? (about: the loaf)\n45 minutes.", "45 minutes."),
        ("Answer: 45 minutes.", "Answer: 45 minutes."),  # a label with no echo before it is the model's own
        ("  It rests 45 minutes.", "  It rests 45 minutes."),
        ("Questions like this one: 45 minutes.", "Questions like this one: 45 minutes."),
        ("45 minutes.\nQuestion: How long does it rest?", "45 minutes.\nQuestion: How long does it rest?"),
        ("Question: How long does it rest?", "Question: How long does it rest?"),  # the echo is all there is
        ("Question: How long does it rest?\nAnswer:", "Question: How long does it rest?\nAnswer:"),
        # A quiz made from the notes: its questions are not the one asked.
        (
            "Question: What year was the abbey founded?\nAnswer: 1132.",
            "Question: What year was the abbey founded?\nAnswer: 1132.",
        ),
        ('{"name": "read_note"}', '{"name": "read_note"}'),
    ],
)
def test_an_echoed_question_line_and_its_answer_label_are_dropped(
    reply: str, shown: str | None, split: Callable[[str], list[str]]
) -> None:
    assert trimmed(split(reply)) == (reply if shown is None else shown)


def test_text_after_the_opening_is_released_as_it_comes() -> None:
    trim = EchoTrim(ASKED)

    assert trim.feed("Ques") == ""  # may still be the label
    assert trim.feed("t") == ""
    assert trim.feed("ionable, but 45") == "Questionable, but 45"
    assert trim.feed(" minutes.") == " minutes."


def test_blank_pieces_after_the_label_are_held_until_the_answer() -> None:
    trim = EchoTrim(ASKED)
    shown = [trim.feed(piece) for piece in ["Question: How long does it rest?\n", "Answer", ":", "\n", "\n", "45."]]

    assert shown == ["", "", "", "", "", "45."]


def test_nothing_is_held_without_a_question_or_for_a_long_first_line() -> None:
    assert EchoTrim("").feed("Question: x") == "Question: x"
    line = "Question: " + "x" * MAX_HELD
    assert EchoTrim(ASKED).feed(line) == line


PARTS = ("On which port does the API listen?", "What sits in front of it?")


def parts_trimmed(pieces: list[str], parts: tuple[str, ...] = PARTS) -> str:
    trim = PartEchoTrim(parts)
    return "".join(trim.feed(piece) for piece in pieces) + trim.finish()


@pytest.mark.parametrize("split", [lambda text: [text], by_character], ids=["whole", "by-character"])
@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        (
            "1. On which port does the API listen? 8765\n2. What sits in front of it? Caddy [[Deployment Notes]]",
            "1. 8765\n2. Caddy [[Deployment Notes]]",
        ),
        ("1. **on which port does the API listen?**: 8765", "1. 8765"),
        ("- What sits in front of it? Caddy.", "- Caddy."),
        # A part alone on its line heads its answer (the 1.5B's way): kept.
        (
            "1. **On which port does the API listen?**\n   - Port 8765.\n2. What sits in front of it?\n   - Caddy.",
            None,
        ),
        ("1. On which port does the API listen?", None),  # the echo is all there is
        (
            "1. On which port does the API listen? 8765\nOn which port does it run?",
            "1. 8765\nOn which port does it run?",
        ),
        ("It listens on 8765. What sits in front of it? Caddy.", None),  # not at a line's start
        ("1. On which port? 8765", None),  # another wording is the model's own
        ("", None),
    ],
)
def test_a_part_of_the_question_copied_before_its_answer_is_not_shown(
    split: Callable[[str], list[str]], reply: str, shown: str | None
) -> None:
    assert parts_trimmed(split(reply)) == (reply if shown is None else shown)


def test_without_parts_the_reply_passes_as_it_comes() -> None:
    trim = PartEchoTrim(())

    assert trim.feed("1. On which") == "1. On which" and trim.finish() == ""


def test_a_line_start_that_may_still_be_a_part_is_held_and_released_when_it_is_not() -> None:
    trim = PartEchoTrim(PARTS)

    assert trim.feed("Sure.\n1. On which ") == "Sure.\n"
    assert trim.feed("day? ") == "1. On which day? "
    assert trim.feed("Monday.") == "Monday."
