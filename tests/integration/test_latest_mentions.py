"""How something stands now: its latest dated mentions, listed by code (agent/tools/latest_mentions.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.tools.latest_mentions import LatestMentions
from agent.tools.reader import VaultReader
from tests.code_list_vault import code_list_lines, code_list_reader
from tests.vault_state import write_notes

NOTES = {
    "Knee Rehab.md": (
        "---\naliases: [Runner's knee]\n---\n# Knee Rehab\n\nDiagnosis on 22 September 2026: **patellofemoral pain**."
        "\n\n## Progress\n\n| Date | Pain (0–10) | Notes |\n| --- | --- | --- |\n| 2026-09-22 | 5 | First session |\n"
        "| 2026-11-10 | 1 | Slight tightness after long runs only |\n\n## Next\n\nCheck-up on 2027-01-12.\n"
    ),
    "Daily/2026-11-04.md": "# 4 November\n\n#daily #knee\n\n- [x] Knee routine\n- 17:30 Groceries.\n",
    "Daily/2026-11-12.md": (
        "# 12 November\n\n- Knee pain on the stairs: 1 out of 10. See [[2026-11-10 Physio knee]].\n"
        "- Rebook the knee physio for 2027-01-12.\n"
    ),
    "Daily/2026-11-13.md": "# 13 November\n\nNothing about it today.\n",
    "Cycling.md": "# Cycling\n\nThe knee was quiet on the long ride.\n",  # undated: says nothing of when
    "Templates/Daily.md": "# {{date}}\n\n- [ ] Knee routine 2026-11-30\n",
}


@pytest.fixture
def reader(tmp_path: Path) -> VaultReader:
    return code_list_reader(tmp_path, NOTES)


lines = code_list_lines


def test_the_latest_dated_mentions_of_the_subject_come_first(reader: VaultReader) -> None:
    # sample_vault: the 0.5B answered "How is my knee doing?" with September's diagnosis, a daily note of November
    # with the pain at 1 out of 10 in its prompt.
    assert lines(reader, "How is my knee doing?") == [
        "What your notes say about “knee”, latest first (5 dated lines; each dated by a date it gives, else by its"
        " note's day):",
        # a daily note's line by its day: a date in a link is a note's name, a date after today a plan
        "- 2026-11-12: Knee pain on the stairs: 1 out of 10. See 2026-11-10 Physio knee. [[2026-11-12#12 November]]",
        # the note about the knee (its title) speaks of it in every row; a row with its column names
        "- 2026-11-10: Date: 2026-11-10 · Pain (0–10): 1 · Notes: Slight tightness after long runs only"
        " [[Knee Rehab#Progress]]",
        "- 2026-11-04: [x] Knee routine [[2026-11-04#4 November]]",  # not its line of tags, nor the groceries
        "- 2026-09-22: Diagnosis on 22 September 2026: **patellofemoral pain**. [[Knee Rehab#Knee Rehab]]",
        "- 2026-09-22: Date: 2026-09-22 · Pain (0–10): 5 · Notes: First session [[Knee Rehab#Progress]]",
    ]  # not the template's task, nor the check-up of 2027 ("Next"), nor the undated run


def test_the_list_is_capped_and_its_links_are_those_shown(reader: VaultReader) -> None:
    found = LatestMentions(reader, max_listed=2).reply_for("What's the latest on my knee?")
    assert found is not None
    assert found.text.splitlines()[1:] == [
        "- 2026-11-12: Knee pain on the stairs: 1 out of 10. See 2026-11-10 Physio knee. [[2026-11-12#12 November]]",
        "- 2026-11-10: Date: 2026-11-10 · Pain (0–10): 1 · Notes: Slight tightness after long runs only"
        " [[Knee Rehab#Progress]]",
        "… and 3 more.",
    ]
    assert found.anchors == ("[[2026-11-12#12 November]]", "[[Knee Rehab#Progress]]")


def test_a_note_named_before_the_subjects_last_word_stands_for_it(reader: VaultReader) -> None:
    # "How is the ACME project going?" of a note "ACME" that never says "project" (obsidian-tasks-demo)
    assert lines(reader, "How is the Knee Rehab project going?") == [
        "What your notes say about “Knee Rehab”, latest first (3 dated lines; each dated by a date it gives, else by"
        " its note's day):",
        "- 2026-11-10: Date: 2026-11-10 · Pain (0–10): 1 · Notes: Slight tightness after long runs only"
        " [[Knee Rehab#Progress]]",
        "- 2026-09-22: Diagnosis on 22 September 2026: **patellofemoral pain**. [[Knee Rehab#Knee Rehab]]",
        "- 2026-09-22: Date: 2026-09-22 · Pain (0–10): 5 · Notes: First session [[Knee Rehab#Progress]]",
    ]


def test_when_something_last_happened_is_its_latest_mention_and_a_task_is_of_its_done_day(reader: VaultReader) -> None:
    write_notes(
        reader.root,
        {
            "Daily/2026-11-20.md": (
                "# 20 November\n\n- [ ] Water the tomatoes 📅 2026-11-30\n- [x] Water the tomatoes ✅ 2026-11-21\n"
                "- [ ] Water the tomatoes again ➕ 2026-11-15\n"
            ),
            "Garden.md": "# Garden\n\n- [x] Watered the tomatoes ✅ 2026-11-02\n",
        },
    )
    assert lines(reader, "When did I last water the tomatoes?") == [
        "Your notes last mention “water the tomatoes” on 2026-11-21; 4 dated lines, latest first (each dated by a date"
        " it gives, else by its note's day):",
        "- 2026-11-21: [x] Water the tomatoes ✅ 2026-11-21 [[2026-11-20#20 November]]",  # the day it was done
        "- 2026-11-20: [ ] Water the tomatoes 📅 2026-11-30 [[2026-11-20#20 November]]",  # not done: its note's day
        "- 2026-11-15: [ ] Water the tomatoes again ➕ 2026-11-15 [[2026-11-20#20 November]]",  # the day written down
        "- 2026-11-02: [x] Watered the tomatoes ✅ 2026-11-02 [[Garden#Garden]]",
    ]
    # a verb saying nothing of what happened is no word the line must hold
    found = lines(reader, "When was the last time I did the knee routine?")
    assert found is not None and found[0].startswith("Your notes last mention “knee routine” on 2026-11-04;")


def test_a_days_note_dates_its_lines_and_spellings_and_misnamed_days_are_borne(reader: VaultReader) -> None:
    write_notes(
        reader.root,
        {
            # written on 2026-11-22: how the knee stands then, whatever day it looks back to
            "Daily/2026-11-22.md": "# 22 November\n\n- Knee flared up, worst since the fall on 2026-10-01.\n",
            "Daily/2026-02-31.md": "# A day no calendar has\n\n- Knee fine.\n",  # no day: its line says nothing of when
            "Daily/2026-11-23.md": "# 23 November\n\n- My neighbour fixed the fence.\n",
        },
    )
    found = lines(reader, "How is my knee doing?")
    assert found is not None
    assert found[1] == "- 2026-11-22: Knee flared up, worst since the fall on 2026-10-01. [[2026-11-22#22 November]]"
    assert not any("Knee fine" in line for line in found)
    # "neighbour" is stemmed as "neighbor": found however the note spells it
    assert lines(reader, "How's my neighbour?") == [
        "What your notes say about “neighbour”, latest first (1 dated line; each dated by a date it gives, else by its"
        " note's day):",
        "- 2026-11-23: My neighbour fixed the fence. [[2026-11-23#23 November]]",
    ]


def test_a_follow_up_naming_another_subject_asks_the_same_of_it(reader: VaultReader) -> None:
    assert lines(reader, "And the Knee Rehab?", ("How is the garden doing?",)) == lines(
        reader, "How is the Knee Rehab doing?"
    )
    found = lines(reader, "What about my knee?", ("When did I last water the tomatoes?",))
    assert found is not None and found[0].startswith("Your notes last mention “knee” on 2026-11-12;")
    assert lines(reader, "And the knee?", ("What is the capital of France?",)) is None  # no such question before
    assert lines(reader, "And what did the physio say?", ("How is my knee doing?",)) is None  # a question of its own


def test_a_subject_no_dated_line_mentions_is_for_the_search(reader: VaultReader) -> None:
    assert lines(reader, "How is the half marathon training going?") is None  # no note mentions it
    assert lines(reader, "How is my cycling going?") is None  # only an undated note does
    assert lines(reader, "How are you doing?") is None  # no question of the notes
