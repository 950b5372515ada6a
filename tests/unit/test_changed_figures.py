"""A figure the notes changed: what a thing had before is no answer to what it has (rag/answer/changed_figures.py)."""

from __future__ import annotations

import pytest

from rag.answer.attribution import Passage
from rag.answer.changed_figures import changed_since
from rag.answer.evidence import is_borne_out

# sample_vault's Bike Repair Notes and Sleep note, as the passages show them
FIX = Passage(
    "[[Bike Repair Notes#Fix]]",
    "- New chain on 10 November: **KMC X9**, 114 links shortened to 110 to match the old one, closed with the quick "
    "link. €18.",
)
SLEEP = Passage(
    "[[Sleep#What I changed in October]]",
    "**Caffeine cut-off at 14:00.** After two weeks of no coffee after lunch, time to fall asleep dropped from about "
    "35 minutes to 15.",
)
LINKS = "Which chain did I fit on the commuter bike, and how many links does it have?"


@pytest.mark.parametrize(
    ("answer", "passages", "question", "changed_to"),
    [
        # the 1.5B, stop 59 and stop 60
        ("The KMC X9 chain has 114 links.", [FIX], LINKS, ["110"]),
        ("About 35 minutes.", [SLEEP], "How long does it take me to fall asleep now?", ["15"]),
        ("€400.", [Passage("[[Garden Plan]]", "The budget was €400, raised to €450 in March.")], "Budget?", ["450"]),
        # the figure it was changed to, or both: nothing to say
        ("KMC X9, with 110 links.", [FIX], LINKS, []),
        ("114 links, shortened to 110.", [FIX], LINKS, []),
        ("It dropped from 35 to 15 minutes.", [SLEEP], "Did the caffeine cut-off help?", []),
        # asked what was before
        ("114.", [FIX], "How many links did the chain have originally?", []),
        # a span, not a change; a number the notes hold elsewhere as well
        ("From 9 to 12 November.", [Passage("[[Trip]]", "The trip ran from 9 to 12 November.")], "When?", []),
        ("114.", [FIX, Passage("[[Log]]", "Ride 114 of the year.")], "Which ride was it?", []),
    ],
)
def test_a_figure_the_notes_changed_is_answered_by_what_it_was_changed_to(
    answer: str, passages: list[Passage], question: str, changed_to: list[str]
) -> None:
    assert [rival.figure for rival in changed_since(answer, passages, question=question)] == changed_to


def test_an_answer_giving_what_was_before_is_not_borne_out() -> None:
    assert not is_borne_out("The KMC X9 chain has 114 links.", [FIX], question=LINKS)
    assert is_borne_out("The KMC X9 chain has 110 links.", [FIX], question=LINKS)
