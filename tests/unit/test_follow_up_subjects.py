"""Echoed answers: a follow-up naming something new, answered with what an earlier reply said of something else.

The conversation is one the 1.5B had over vaultofknowledge (llama.cpp, Qwen2.5-Coder 1.5B): asked about Shortcut
after Linear, it gave Linear's features again.
"""

from __future__ import annotations

from agent.answer_footer import checked_question
from agent.opening_check import answer_check, earlier_turns
from agent.state import MessageRecord
from rag.answer.attribution import Passage
from rag.answer.follow_up_subjects import EarlierTurn, answers_elsewhere, may_answer_elsewhere

LINEAR = Passage(
    "[[Linear.app#Features]]",
    "- Issues\n- Import from Jira/Trello\n- Sprints - known as Cycles\n- Labels\n- Unique methodology\n- Roadmap\n"
    "- Scope vs Velocity graph\n- Projects\n- Teams\n- Workspaces\n- Integrations: Github, Figma, Slack, Zapier\n"
    "- Has a GraphQL API",
)
SHORTCUT = Passage(
    "[[Shortcut.com#Features]]",
    "- Stories\n- Import from Jira/Trello\n- Sprints\n- Epics\n- Teams\n- Projects ~Epics\n- Labels\n"
    "- Roadmaps (paid only - Team)\n- Milestones (paid only - Business)\n- Reports (paid only - Team)\n"
    "- Workflows (paid only - Business)",
)
LINEAR_QUESTION = "What features does Linear have?"
LINEAR_REPLY = (
    "Linear has Import from Jira/Trello, Sprints - known as Cycles, Labels, Unique methodology, Roadmap, Scope vs "
    "Velocity graph, Projects, Teams, Workspaces, Integrations: Github, Figma, Slack, Zapier, Has a GraphQL API.\n\n"
    "Sources:\n- [[Linear.app#Features]]"
)
ECHO = (
    "Shortcut has Import from Jira/Trello, Sprints - known as Cycles, Labels, Unique methodology, Roadmap, Scope vs "
    "Velocity graph, Projects, Teams, Workspaces, Integrations: Github, Figma, Slack, Zapier, Has a GraphQL API."
)
SHORTCUTS_OWN = (
    "Shortcut has Stories, Import from Jira/Trello, Sprints, Epics, Teams, Projects, Labels, and, on paid plans, "
    "Roadmaps, Milestones, Reports and Workflows [[Shortcut.com#Features]]."
)
FOLLOW_UP = "And what about Shortcut?"
TURNS = [EarlierTurn(LINEAR_QUESTION, LINEAR_REPLY)]


def shown(question: str, answer: str, passages: list[Passage], turns: list[EarlierTurn]) -> str:
    """Return what the check shows of `answer`, streamed in pieces of five characters as a model writes it."""
    earlier = [
        Passage("(earlier in this conversation)", text) for turn in turns for text in (turn.question, turn.reply)
    ]
    check = answer_check(question, passages, earlier, turns=turns)
    text = "".join(check.feed(answer[start : start + 5]) for start in range(0, len(answer), 5))
    return text + check.finish()


def test_an_earlier_answer_given_again_for_what_the_follow_up_newly_names_is_withheld() -> None:
    # Every word of it is in Linear's passage and in the conversation: only what it is about tells it apart.
    assert answers_elsewhere(ECHO, FOLLOW_UP, [SHORTCUT, LINEAR], TURNS)
    assert shown(FOLLOW_UP, ECHO, [SHORTCUT, LINEAR], TURNS) == ""
    assert shown("Which features does Shortcut have?", ECHO, [SHORTCUT, LINEAR], TURNS) == ""


def test_the_follow_ups_answer_from_the_passages_on_what_it_names_is_shown() -> None:
    assert not answers_elsewhere(SHORTCUTS_OWN, FOLLOW_UP, [SHORTCUT, LINEAR], TURNS)
    assert shown(FOLLOW_UP, SHORTCUTS_OWN, [SHORTCUT, LINEAR], TURNS) == SHORTCUTS_OWN


def test_the_same_answer_to_the_same_question_asked_again_is_shown() -> None:
    again = ECHO.replace("Shortcut", "Linear")
    assert shown(LINEAR_QUESTION, again, [SHORTCUT, LINEAR], TURNS) == again


def test_an_echo_is_judged_only_by_passages_holding_what_the_follow_up_newly_names() -> None:
    # No passage found holds "race": the notes say it in other words, and the answer is read as any other.
    goal = Passage(
        "[[Half Marathon Plan#Goal]]",
        "Run the Leipzig Half Marathon on 11 April 2027 in under 1:49:00, an even 5:10 per kilometre.",
    )
    turns = [EarlierTurn("What is my goal for the half marathon?", "Under 1:49:00 at the Leipzig Half Marathon.")]
    answer = "The Leipzig Half Marathon, run in under 1:49:00 on 11 April 2027."

    assert not answers_elsewhere(answer, "When is the race?", [goal], turns)
    assert shown("When is the race?", answer, [goal], turns) == answer


def test_a_short_answer_sharing_a_few_words_with_an_earlier_reply_is_no_echo() -> None:
    assert not answers_elsewhere("Shortcut has Labels and Teams.", FOLLOW_UP, [SHORTCUT, LINEAR], TURNS)


def test_the_start_of_an_answer_saying_only_what_an_earlier_reply_said_is_not_shown_early() -> None:
    chili = [EarlierTurn("What is in my chili oil?", "40 g Sichuan chili flakes, 1 tsp salt and 250 ml rapeseed oil.")]
    dal = "And in the red lentil dal?"

    assert may_answer_elsewhere("It has 40 g Sichuan chili flakes", dal, chili)
    assert not may_answer_elsewhere("It has 250 g red lentils", dal, chili)
    assert not may_answer_elsewhere("It has 40 g Sichuan chili flakes", "What is in my chili oil?", chili)  # again


def test_the_start_of_an_answer_to_a_follow_up_naming_a_new_name_is_not_shown_early() -> None:
    assert may_answer_elsewhere("Shortcut has Stories, Epics", FOLLOW_UP, TURNS)
    assert not may_answer_elsewhere("Linear has Import from Jira/Trello", LINEAR_QUESTION, TURNS)  # nothing new asked


def test_a_follow_up_naming_a_new_name_answered_from_another_notes_passages_is_withheld() -> None:
    # Asked without the conversation, the 1.5B gave the sourdough's steps for Käsespätzle: no echo, but not about it.
    sourdough = Passage(
        "[[Sourdough#Method]]",
        "1. Autolyse: mix the flours and 350 g of the water, rest 45 minutes.\n"
        "2. Mix: add the levain, the salt and the remaining 25 g water.",
    )
    spaetzle = Passage("[[Käsespätzle#Zubereitung]]", "Mehl, Eier, Salz und Wasser zu einem zähen Teig schlagen.")
    turns = [EarlierTurn("How do I bake my sourdough?", "Follow the final recipe [[Sourdough#Final recipe]].")]
    steps = "To make it: autolyse the flours with 350 g of the water for 45 minutes, then add the levain and salt."

    assert answers_elsewhere(steps, "And how do I make Käsespätzle?", [sourdough, spaetzle], turns)
    assert not answers_elsewhere(steps, "And how do I make the sourdough's levain?", [sourdough, spaetzle], turns)


def test_each_question_is_paired_with_the_reply_shown_after_its_tool_rounds() -> None:
    messages: list[MessageRecord] = [
        {"role": "user", "content": LINEAR_QUESTION},
        {"role": "assistant", "content": "Let me look.", "tool_calls": []},
        {"role": "tool", "content": "…", "tool_call_id": "1"},
        {"role": "assistant", "content": LINEAR_REPLY},
        {"role": "user", "content": "Thanks."},
        {"role": "user", "content": FOLLOW_UP},
    ]

    assert earlier_turns(messages) == [EarlierTurn(LINEAR_QUESTION, LINEAR_REPLY)]


def test_a_follow_ups_answer_is_read_with_the_question_it_follows() -> None:
    # Recorded from the 1.5B: "The race is on 11 April 2027." shares no word with "When is the race?", and none of
    # the goal's sentences does; "Half Marathon" ties the goal's sentence to the question it follows.
    goal = Passage(
        "[[Half Marathon Plan#Goal]]",
        "Run the Leipzig Half Marathon on **11 April 2027** in **under 1:49:00**, an even 5:10 per kilometre.",
    )
    answer = "The race is on **11 April 2027**."

    def shown_for(follows: str) -> str:
        check = answer_check("When is the race?", [goal], follows=follows)
        return check.feed(answer) + check.finish()

    assert shown_for("") == ""
    assert shown_for("What is my goal for the half marathon?") == answer


def test_a_name_in_one_passage_of_a_note_stands_for_all_of_its_passages() -> None:
    # "Kleppmann" is in his book note's first lines, not in the section on storage engines that answers.
    intro = Passage(
        "[[Designing Data-Intensive Applications#Designing Data-Intensive Applications]]",
        "Martin Kleppmann, O'Reilly 2017. Second read, this time with the librarian's storage layer in mind.",
    )
    storage = Passage(
        "[[Designing Data-Intensive Applications#Storage engines (chapter 3)]]",
        "Rule of thumb from the chapter: LSM trees are typically faster for writes, B-trees for reads.",
    )
    turns = [EarlierTurn("What is The Overstory about?", "Nine people whose lives are shaped by trees.")]
    answer = "He says LSM trees are typically faster for writes, and B-trees for reads."

    assert not answers_elsewhere(answer, "And what does Kleppmann say about LSM trees?", [intro, storage], turns)
    assert answers_elsewhere(answer, "And what does Kleppmann say about LSM trees?", [intro], turns)


def test_the_answer_to_a_follow_up_is_quoted_and_attributed_as_read_after_the_question_it_follows() -> None:
    goal = "What is my goal for the half marathon?"
    messages: list[MessageRecord] = [
        {"role": "user", "content": goal},
        {"role": "assistant", "content": "Under 1:49:00."},
        {"role": "user", "content": "When is the race?"},
    ]

    assert checked_question({"messages": messages, "follows": goal}) == f"{goal}\nWhen is the race?"
    assert checked_question({"messages": messages, "follows": ""}) == "When is the race?"  # a topic switch


def test_an_earlier_reply_given_again_for_a_name_no_passage_holds_is_withheld() -> None:
    # Over obsidian-tasks-demo the 0.5B answered "Which of them mention Priya?" with the task list before it.
    listing = (
        "1 open task of low or lowest priority due before 2026-12-05 (overdue):\n- [ ] Feed the baby 🔽 📅 2021-11-21"
    )
    turns = [EarlierTurn("And the low priority ones?", listing)]
    baby = Passage("[[ACME#Steps to world domination]]", "- [ ] #task Feed the baby 🔽 📅 2021-11-21")

    assert answers_elsewhere(listing, "Which of them mention Priya?", [baby], turns)
    # A word in lower case may be put otherwise in the notes, or ask for the reply again: that answer stands.
    assert not answers_elsewhere(listing, "Can you repeat that list?", [baby], turns)


def test_a_question_asking_something_new_of_the_same_subject_may_say_again_what_an_earlier_reply_said() -> None:
    # kepano-obsidian with the 0.5B: a properties list by code, then "Who directed it?". "directed" is new, and the
    # only passage holding its stem held "directly", by chance.
    turns = [
        EarlierTurn(
            "What properties does Blade Runner have?",
            "[[Blade Runner]] has 3 properties:\n- genre: [[Sci-fi]]\n- director: [[Ridley Scott]]\n- year: 1982",
        )
    ]
    passages = [
        Passage("[[Blade Runner]]", "Blade Runner\ngenre: [[Sci-fi]]\ndirector: [[Ridley Scott]]\nyear: 1982"),
        Passage("[[68 Bits of Unsolicited Advice]]", "- Don't say anything you would not say to them directly."),
    ]
    answer = "Ridley Scott directed Blade Runner."

    assert not answers_elsewhere(answer, "Who directed it?", passages, turns)
    assert not may_answer_elsewhere(answer, "Who directed it?", turns)
    # Without the pronoun the new word names what it is about, and the echo is judged by the passages holding it.
    assert answers_elsewhere(answer, "Who directed the other film?", passages, turns)
