"""A count answering "how many X" that the notes give only as a count of other things."""

from __future__ import annotations

from agent.answer_footer import refusal_footer
from agent.state import AgentState
from rag.answer.attribution import Passage
from rag.answer.context import REFUSAL, format_note
from rag.answer.counted_nouns import counted_elsewhere
from rag.answer.evidence import is_borne_out
from rag.answer.quoted_evidence import CLOSEST_HEADING

# As vaultofknowledge's passages read for the question (stop 44), shortened.
GUIDE = Passage(
    "[[Productivity Frameworks#Guide]]",
    "- Tickler List: 43 folders (31+12)\n"
    "\t- Put a reminder item in each day of the month + group others in the month specific folders.",
)
WEBSITE = Passage(
    "[[Personal Website Ideas#Organization ideas]]",
    "- If we limit to a maximum of 6 folders, 10^6 = 1mi files. Pretty cool.",
)
DECIMAL = Passage(
    "[[Productivity Frameworks#Analogies with computer file systems]]",
    "D: (System) > 10 Category Lists > Folders (10 Categories) > Folders (IDs) > Content",
)
READ = [GUIDE, WEBSITE, DECIMAL]
QUESTION = "How many folders does the reminder filing system with one folder per day and one per month need?"


def test_a_number_the_notes_give_only_counting_other_things_is_withheld_with_the_counts_asked() -> None:
    rivals = counted_elsewhere("10", READ, question=QUESTION)  # Qwen2.5-Coder 0.5B's

    assert [(rival.figure, rival.source) for rival in rivals] == [
        ("43", "[[Productivity Frameworks#Guide]]"),
        ("6", "[[Personal Website Ideas#Organization ideas]]"),
    ]
    assert not is_borne_out("10", READ, question=QUESTION)
    assert not is_borne_out("You need 10 folders.", READ, question=QUESTION)


def test_a_count_of_the_thing_asked_a_bare_one_or_one_no_note_gives_is_not_judged() -> None:
    assert not counted_elsewhere("43", READ, question=QUESTION)
    assert is_borne_out("43 folders (31+12).", READ, question=QUESTION)
    assert not counted_elsewhere("6", READ, question=QUESTION)  # "6 folders" counts folders
    table = Passage("[[Filing#Counts]]", "| System | Folders |\n| --- | --- |\n| Johnny Decimal | 10 |")
    assert not counted_elsewhere("10", [*READ, table], question=QUESTION)  # a bare 10 may count folders
    assert not counted_elsewhere("12", READ, question=QUESTION)  # no count: the unread-number caution's
    of_them = Passage("[[Filing]]", "I made 10 of them last year.")
    assert not counted_elsewhere("10", [GUIDE, of_them], question=QUESTION)


def test_only_a_question_asking_how_many_is_judged_and_its_own_numbers_are_not() -> None:
    assert not counted_elsewhere("10", READ, question="What is the Johnny Decimal system?")
    assert not counted_elsewhere("10 categories", READ, question="How many folders hold the 10 categories?")
    # What is counted is named by the two words after "how many": "TENS sessions".
    sessions = Passage("[[Neck#Therapy]]", "2 TENS sessions with Dr. Rao; 3 prayer times a day.")
    assert counted_elsewhere("3", [sessions], question="How many TENS sessions did I have?")
    assert not counted_elsewhere("2", [sessions], question="How many TENS sessions did I have?")


def test_the_refusal_opens_with_the_counts_of_the_thing_asked() -> None:
    state: AgentState = {
        "messages": [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": REFUSAL}],
        "context": "\n\n".join(format_note(source=p.source, path="x.md", text=p.text) for p in READ),
        "allowed": [p.source for p in READ],
    }

    footer = refusal_footer(REFUSAL, state, withheld="10")

    assert footer.startswith(
        f'\n\n{CLOSEST_HEADING}\n- "Tickler List: 43 folders (31+12)" [[Productivity Frameworks#Guide]]'
    )


def test_a_count_of_one_in_the_singular_counts_the_thing_asked_in_the_plural() -> None:
    # From the review of stop 44.
    cats = Passage("[[Pets]]", "I have 1 cat, Mia. The shelter houses 3 cats.")

    assert not counted_elsewhere("You have 1 cat, Mia.", [cats], question="How many cats do I have?")
