"""A note whose `status:` says what a question asks was done is not done (rag/answer/undone_notes.py)."""

from __future__ import annotations

import pytest

from agent.opening_check import answer_check
from rag.answer.attribution import Passage
from rag.answer.undone_notes import open_tasks_asked, undone_notes_asked
from rag.answer.yes_no import NOT_SO

TAX = Passage("[[File the tax return]]", "File the tax return\nstatus: in-progress")


@pytest.mark.parametrize(
    "question",
    ["Did I file the tax return?", "Have I filed my tax return yet?", "Is the tax return done?"],
)
def test_a_question_whether_the_note_named_was_done_reads_its_status(question: str) -> None:
    rows = undone_notes_asked([TAX], question=question)

    assert [(row.figure, row.sentence, row.source) for row in rows] == [
        ("status: in-progress", "status: in-progress", "[[File the tax return]]")
    ]


def test_a_finished_status_another_note_or_another_question_deny_nothing() -> None:
    done = Passage("[[File the tax return]]", "File the tax return\nstatus: Done")
    other = Passage("[[Renew passport]]", "Renew passport\nstatus: open")
    paused = Passage("[[Balcony Irrigation]]", "Balcony Irrigation\nstatus: paused")

    assert undone_notes_asked([done], question="Did I file the tax return?") == []
    assert undone_notes_asked([other], question="Did I file the tax return?") == []  # not the note named
    assert undone_notes_asked([TAX], question="What is left to do for the tax return?") == []  # not "was it done"
    # Asked whether it is in the state its status names: that is no denial.
    assert undone_notes_asked([paused], question="Has the balcony irrigation been paused?") == []


def test_a_follow_up_is_read_by_its_last_line() -> None:
    assert undone_notes_asked([TAX], question="What do I owe?\nDid I file the tax return?")


# sample_vault's open tasks, as the passages showed them to the 1.5B (stop 60), which answered "Yes" to each question
LEFT_TO_DO = Passage(
    "[[Home Server Migration#Left to do]]",
    "… - [ ] Wipe the old SD card and sell the spare Pi case 📅 2026-11-30 …",  # a passage cut to its lines
)
MILESTONES = Passage(
    "[[Vault Librarian#Milestones]]", "- [x] Index sample vault\n- [ ] Demo to Jonas and Tomasz 📅 2026-12-15"
)


@pytest.mark.parametrize(
    ("question", "task"),
    [
        ("Did I sell the spare Pi case?", "[ ] Wipe the old SD card and sell the spare Pi case 📅 2026-11-30 …"),
        ("Did I demo the librarian to Jonas and Tomasz?", "[ ] Demo to Jonas and Tomasz 📅 2026-12-15"),  # the title
        ("Have I sold the Pi case yet?", None),  # "sold" is not "sell": one of two words named
    ],
)
def test_an_open_task_naming_what_was_asked_denies_that_it_was_done(question: str, task: str | None) -> None:
    denying = open_tasks_asked([LEFT_TO_DO, MILESTONES], question=question)
    assert [rival.sentence for rival in denying] == ([task] if task else [])


def test_a_task_cancelled_or_in_progress_was_not_done_either() -> None:
    dropped = Passage("[[Garden Jobs#Autumn]]", "- [-] Paint the shed — too cold, next spring")
    started = Passage("[[Deployment Notes#Open tasks]]", "- [/] Write the compose file for the production profile")
    custom = Passage("[[Deployment Notes#Open tasks]]", "- [?] Write the compose file for the production profile")
    question = "Did I paint the garden shed?"
    assert [r.sentence for r in open_tasks_asked([dropped], question=question)] == [f"[-] {dropped.text[6:]}"]
    compose = "Did I write the compose file for the production profile?"
    assert [r.sentence[:3] for r in open_tasks_asked([started], question=compose)] == ["[/]"]
    assert open_tasks_asked([custom], question=compose) == []  # a status of the user's own

    # the 0.5B's bare "No" to every yes-or-no question: shown over the task alone
    check = answer_check(question, [dropped])
    assert check.feed("No.") + check.finish() == "No."


def test_a_done_task_another_task_or_another_question_deny_nothing() -> None:
    done = Passage("[[Home Server Migration#Done]]", "- [x] Sell the spare Pi case ✅ 2026-12-01")
    assert open_tasks_asked([LEFT_TO_DO, done], question="Did I sell the spare Pi case?") == []  # both said
    assert open_tasks_asked([LEFT_TO_DO], question="Did I sell the old laptop?") == []  # one word shared
    assert open_tasks_asked([LEFT_TO_DO], question="What is left to do on the Pi case?") == []  # not asked if done
    assert open_tasks_asked([MILESTONES], question="Did I index the sample vault?") == []  # done


def test_a_yes_over_an_open_task_is_withheld_and_a_bare_no_shown_over_it() -> None:
    question = "Did I sell the spare Pi case?"
    check = answer_check(question, [LEFT_TO_DO])
    assert check.feed('Yes\nThe note states: "sell the spare Pi case 📅 2026-11-30".') + check.finish() == ""
    assert check.withheld_reply.startswith(NOT_SO) and "[ ] Wipe the old SD card" in check.withheld_reply

    check = answer_check(question, [LEFT_TO_DO])
    assert check.feed("No.") + check.finish() == "No."
