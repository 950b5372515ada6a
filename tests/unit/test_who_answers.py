"""A name given for "who" that the sentence saying the claim does not name (rag/answer/who_answers.py)."""

from __future__ import annotations

from agent.answer_footer import refusal_footer
from agent.opening_check import answer_check
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL, format_note
from rag.answer.evidence import is_borne_out
from rag.answer.who_answers import given_by_another

# vaultofknowledge's Metal Gear Saga, as the 0.5B read it (stop 61)
PLOT = Passage(
    "[[Metal Gear Saga#Plot]]",
    "… He was code named Naked Snake.\n"
    "Snake was ordered to kill The Boss by the US to make her a scapegoat for the explosion.\n"
    "The Boss told Snake that she had a vision of a world without borders shortly before they fought.\n"
    "After killing The Boss, he got the title of Big Boss by Zero, a member of the American Philosophers.\n\n"
    "So The Boss is the boss of Big Boss.\n"
    "Solid Snake and Liquid Snake are the first two clones of Big Boss. …",
)
QUESTION = "In my Metal Gear notes, who gives Naked Snake the title Big Boss, and after what?"
WRONG = "In my Metal Gear notes, Solid Snake gives Naked Snake the title Big Boss after killing The Boss."


def test_a_person_the_sentence_saying_the_claim_does_not_name_is_given_by_another() -> None:
    rivals = given_by_another(WRONG, [PLOT], question=QUESTION)
    assert [(rival.figure, rival.sentence[:20]) for rival in rivals] == [("Solid Snake", "After killing The Bo")]
    assert not is_borne_out(WRONG, [PLOT], question=QUESTION)


def test_the_person_the_sentence_names_or_an_answer_claiming_nothing_else_is_not() -> None:
    right = "Zero gives Naked Snake the title Big Boss after killing The Boss."
    assert given_by_another(right, [PLOT], question=QUESTION) == []
    assert is_borne_out(right, [PLOT], question=QUESTION)
    assert given_by_another("Solid Snake.", [PLOT], question=QUESTION) == []  # nothing claimed beside the name
    not_who = "When did Naked Snake get the title Big Boss?"
    assert given_by_another("Solid Snake gave it after killing The Boss.", [PLOT], question=not_who) == []
    # named in the sentence before the one saying it
    before = Passage("[[Saga]]", "Zero found him in the jungle.\nAfter killing The Boss, he got the title of Big Boss.")
    assert given_by_another("Zero gave it after killing The Boss.", [before], question=QUESTION) == []


def test_the_answer_is_withheld_and_the_sentence_naming_who_quoted_first() -> None:
    check = answer_check(QUESTION, [PLOT])
    assert check.feed(WRONG) + check.finish() == ""

    state: AgentState = {
        "messages": [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": REFUSAL}],
        "context": format_note(source=PLOT.source, path="Metal Gear Saga.md", text=PLOT.text),
        "allowed": [PLOT.source],
    }
    footer = refusal_footer(REFUSAL, state, withheld=WRONG)
    first = footer.split("Closest in your notes:\n")[1].splitlines()[0]
    assert "by Zero" in first and first.endswith("[[Metal Gear Saga#Plot]]")


def test_a_relative_whose_asks_no_one_and_a_no_names_no_one() -> None:
    # sample_vault's Sela note: "a site whose theme I already changed" is no question who (the suite, stop 61)
    sela = Passage(
        "[[How I revived Sela#For a new site (my trick)]]",
        "If you do change the theme even once, then you cannot get it back. Only old sites can use the other methods.",
    )
    question = "Can the new-site trick bring Sela back to a site whose theme I already changed?"
    answer = "No. The new-site trick cannot bring Sela back to a site whose theme I already changed."
    assert given_by_another(answer, [sela], question=question) == []
    assert given_by_another("No. Zero did it after killing The Boss.", [PLOT], question=QUESTION) == []


# sample_vault's allotment meeting, its attendees as the properties record shows them (stop 62)
ATTENDEES = Passage(
    "[[2026-11-10 Allotment Committee]]",
    "2026-11-10 Allotment Committee\n"
    "attendees: Brigitte Sommer (chair), Piotr Kowalski (treasurer), Herr Albrecht (nature officer), about 30 members",
)
TREASURER = "Who is the treasurer of the allotment association?"


def test_a_name_given_for_a_role_the_notes_give_another_is_not_borne_out() -> None:
    # the 0.5B, tried as a user: every name stands in the one row, so the word test bore it out
    wrong = "The treasurer of the allotment association is Herr Albrecht."
    assert not is_borne_out(wrong, [ATTENDEES], question=TREASURER)
    assert given_by_another(wrong, [ATTENDEES], question=TREASURER)[0].figure == "Piotr Kowalski"
    assert is_borne_out("Piotr Kowalski is the treasurer.", [ATTENDEES], question=TREASURER)
    assert is_borne_out("Brigitte Sommer (chair)", [ATTENDEES], question="Who chairs the allotment association?")
    check = answer_check(TREASURER, [ATTENDEES])
    assert check.feed(wrong) + check.finish() == "" and check.is_withheld
