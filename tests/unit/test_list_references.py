"""A message naming an item of the list before it by its place (rag/answer/list_references.py, latest_question)."""

from __future__ import annotations

import pytest

from agent.answer_footer import latest_question
from agent.state import MessageRecord
from rag.answer.list_references import listed_items, with_item_named

CLIPPINGS = (
    "3 notes in the folder Clippings (sub-folders included):\n- [[68 Bits of Unsolicited Advice]]\n- [[Buy wisely]]\n"
    "- [[In good hands]] (2026-12-05 10:30)"
)


@pytest.mark.parametrize(
    ("message", "read_as"),
    [
        ("Summarize the first one", "Summarize [[68 Bits of Unsolicited Advice]]"),
        ("What does the second say?", "What does [[Buy wisely]] say?"),
        ("Tell me about the last note", "Tell me about [[In good hands]]"),
        ("Summarize the 3rd", "Summarize [[In good hands]]"),
        ("Which of these is the second of them?", "Which of these is [[Buy wisely]]?"),
        ("Open the first on the list please", "Open [[68 Bits of Unsolicited Advice]] please"),
        ("Add the tag reread to the second one", "Add the tag reread to [[Buy wisely]]"),
        ("What tags does the first one have?", "What tags does [[68 Bits of Unsolicited Advice]] have?"),
    ],
)
def test_a_place_in_the_list_before_is_read_as_the_item_there(message: str, read_as: str) -> None:
    assert with_item_named(message, CLIPPINGS) == read_as


@pytest.mark.parametrize(
    "message",
    [
        "What is the first step?",  # a place of something else
        "What did I do the last time?",
        "Compare the first and the second",  # two places: as written
        "And the 4th one?",  # the list has three
        "Summarize my notes on advice",
    ],
)
def test_a_message_naming_no_single_item_of_the_list_is_left_as_written(message: str) -> None:
    assert with_item_named(message, CLIPPINGS) == message


def test_only_a_list_of_two_links_or_more_has_places() -> None:
    assert with_item_named("Summarize the first one", "1 note links to [[Books]]:\n- [[Dune]]") == (
        "Summarize the first one"
    )
    assert with_item_named("Summarize the first one", "The sourdough rests 14 hours.") == "Summarize the first one"
    assert listed_items("1. [[Dune]]: 9\n2. ![[Solaris]]\n- see [[Books]]\n- [[Kyoto#Days]] (2026-12-01)") == [
        "[[Dune]]",
        "[[Solaris]]",
        "[[Kyoto#Days]]",
    ]


def test_the_list_is_the_latest_reply_listing_notes_its_own_or_the_notes_code_put_under_it() -> None:
    refusal = (
        "I couldn't find this in your notes.\n\nClosest in your notes:\n"
        '- "Use Telescope.nvim to filter your notes." [[Replacing Obsidian with Vim#A Possible Workflow]]\n\n'
        "Notes searched:\n- [[Search Engines#Features]]\n- [[Replacing Obsidian with Vim#A Possible Workflow]]\n"
        "- [[Optical Filters]]"
    )
    conversation: list[MessageRecord] = [
        {"role": "user", "content": "Which notes are in the Clippings folder?"},
        {"role": "assistant", "content": CLIPPINGS},
        {"role": "user", "content": "Summarize the first one"},
        {"role": "assistant", "content": "Advice for the young.\n\nSources:\n- [[68 Bits of Unsolicited Advice]]"},
        {"role": "user", "content": "What does the second say?"},
    ]
    assert latest_question(conversation) == "What does [[Buy wisely]] say?"  # two replies back: one source is no list
    conversation += [
        {"role": "assistant", "content": refusal},
        {"role": "user", "content": "What does the third one say about when to use it?"},
    ]
    # Over vaultofknowledge, searched as written, this found a passage on slaves, which the 0.5B copied.
    assert latest_question(conversation) == "What does [[Optical Filters]] say about when to use it?"


def test_a_task_of_a_task_list_is_named_as_the_task_in_its_note() -> None:
    tasks = (
        "4 tasks in [[Important Project]], 3 open:\n"
        "- [open] Renew passport (due 2020-03-15, priority high) [[Renew passport]]\n"
        "- [ ] #task Something about interwebs 📅 2021-11-22 [[Important Project#Important Project]]\n"
        "- [x] #task Something about s.th. ⏳ 2021-11-21 ✅ 2021-11-21 [[Important Project#Important Project]]\n"
        "- [ ] Pay [[Dentist]] bill [due:: 2021-12-01] [[Important Project#Trash is important]]"
    )
    assert listed_items(tasks) == [
        "the task “Renew passport” in [[Renew passport]]",  # a task note: its title, not its facts
        "the task “Something about interwebs” in [[Important Project]]",  # no tag, no Tasks fields
        "the task “Something about s.th.” in [[Important Project]]",
        "the task “Pay [[Dentist]] bill” in [[Important Project]]",
    ]
    assert with_item_named("Mark the second one as done", tasks) == (
        "Mark the task “Something about interwebs” in [[Important Project]] as done"
    )
    # A list of one task is a list: sample_vault's "Mark the first one as done" after it named a task of another note.
    one = (
        "1 open task in [[Home Server Migration]] (4 tasks in all, 1 open):\n"
        "- [ ] Wipe the old SD card 📅 2026-11-30 [[Home Server Migration#Left to do]]"
    )
    assert with_item_named("Mark the first one as done", one) == (
        "Mark the task “Wipe the old SD card” in [[Home Server Migration]] as done"
    )
    assert with_item_named("Mark the second one as done", one) == "Mark the second one as done"
