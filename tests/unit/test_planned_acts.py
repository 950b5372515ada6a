"""What the notes say is still to come, asked whether it was done (rag/answer/planned_acts.py)."""

from __future__ import annotations

from agent.opening_check import answer_check
from rag.answer.attribution import Passage
from rag.answer.planned_acts import planned_not_done
from rag.answer.yes_no import NOT_SO, denies_itself

# sample_vault's bike note, as the 1.5B read it for the cassette (stops 59 and 60: it answered "Yes")
BIKE = Passage(
    "[[Bike Repair Notes#For next time]]",
    "- Measure the chain every 1,000 km. A €10 chain checker saves a €40 cassette.\n"
    "- Cassette replacement is probably due next spring anyway (Shimano HG400, 11–34).",
)
QUESTION = "Did I replace the cassette when my commuter bike skipped gears?"


def test_an_act_named_as_one_to_come_was_not_done() -> None:
    found = planned_not_done([BIKE], question=QUESTION)
    assert [rival.sentence for rival in found] == [
        "- Cassette replacement is probably due next spring anyway (Shimano HG400, 11–34)."
    ]
    assert planned_not_done([BIKE], question="Do I replace the cassette every spring?") == []  # a habit, not an act
    assert planned_not_done([BIKE], question="Did I replace the chain?") == []  # no sentence names both
    # one clause names the chain's replacement, another the cassette's wear: neither names the act asked
    rule = Passage("[[Bike Repair Notes#Diagnosis]]", "It's time to replace, above 0.75 % the cassette starts wearing.")
    assert planned_not_done([rule], question=QUESTION) == []
    # a sentence naming the act without a word of time to come may say it was done: none denies then
    done = Passage("[[Log]]", "Replaced the cassette on 3 May, the old one had shark fins.")
    assert planned_not_done([BIKE, done], question=QUESTION) == []


def test_a_yes_is_denied_and_a_bare_no_borne_out() -> None:
    check = answer_check(QUESTION, [BIKE])
    assert check.feed("Yes, I replaced the cassette.") + check.finish() == ""
    assert check.withheld_reply.startswith(f"{NOT_SO}\n\n")
    assert "due next spring" in check.withheld_reply
    check = answer_check(QUESTION, [BIKE])
    assert check.feed("No.") + check.finish() == "No."


def test_a_yes_whose_own_reason_says_the_act_is_still_to_come_denies_itself() -> None:
    # the 1.5B over sample_vault's diagnosis section alone (stop 61, tried as a user)
    said = (
        "Yes\nThe note [[Bike Repair Notes#Diagnosis]] states: \"Above 0.5 % on a 9-speed it's time to replace, above"
        ' 0.75 % the cassette starts wearing too." Since the chain checker showed 0.75% elongation, which is above'
        " 0.5%, it is time to replace the cassette."
    )
    assert denies_itself(said, question=QUESTION)
    assert not denies_itself("Yes\nI replaced the cassette on 10 November.", question=QUESTION)
    diagnosis = Passage(
        "[[Bike Repair Notes#Diagnosis]]",
        "Above 0.5 % on a 9-speed it's time to replace, above 0.75 % the cassette starts wearing too.",
    )
    check = answer_check(QUESTION, [diagnosis])
    assert check.feed(said) + check.finish() == ""
