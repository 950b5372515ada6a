"""The prompt's "Question: …" line a small model repeats, and its "Answer:" label, kept from the user."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent.echo_trim import MAX_HELD, EchoTrim


def trimmed(pieces: list[str]) -> str:
    trim = EchoTrim()
    return "".join(trim.feed(piece) for piece in pieces) + trim.finish()


def by_character(text: str) -> list[str]:
    return list(text)


@pytest.mark.parametrize("split", [lambda text: [text], by_character], ids=["whole", "by-character"])
@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        ("Question: How long does it rest?\nAnswer: 45 minutes [[Sourdough]].", "45 minutes [[Sourdough]]."),
        ("Question: How long does it rest?\n\n45 minutes.", "45 minutes."),
        ("Answer: 45 minutes.", "45 minutes."),
        ("  It rests 45 minutes.", "  It rests 45 minutes."),
        ("Questions like this one: 45 minutes.", "Questions like this one: 45 minutes."),
        ("Question marks aside, 45 minutes.", "Question marks aside, 45 minutes."),
        ("45 minutes.\nQuestion: anything else?", "45 minutes.\nQuestion: anything else?"),
        ("Question: How long does it rest?", "Question: How long does it rest?"),  # the echo is all there is
        ('{"name": "read_note"}', '{"name": "read_note"}'),
    ],
)
def test_an_echoed_question_line_and_answer_label_are_dropped(
    reply: str, shown: str, split: Callable[[str], list[str]]
) -> None:
    assert trimmed(split(reply)) == shown


def test_text_after_the_opening_is_released_as_it_comes() -> None:
    trim = EchoTrim()

    assert trim.feed("Ques") == ""  # may still be the label
    assert trim.feed("t") == ""
    assert trim.feed("ionable, but 45") == "Questionable, but 45"
    assert trim.feed(" minutes.") == " minutes."


def test_a_long_first_line_is_not_held_for_ever() -> None:
    trim = EchoTrim()
    line = "Question: " + "x" * MAX_HELD

    assert trim.feed(line) == line
