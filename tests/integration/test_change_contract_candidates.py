"""Gathering a change contract's candidate targets by code, over a copy of sample_vault."""

from __future__ import annotations

from datetime import date

import pytest

from agent.change_contract.candidates import gather, given_names, named_days, named_notes, requested_folder
from agent.tools.reader import VaultReader
from core.settings import Settings
from tests.edit_fakes import NoSearch

GARLIC = "Areas/Garden/Garlic.md"
SOURDOUGH = "Areas/Cooking/Sourdough.md"


def reader_of(settings: Settings) -> VaultReader:
    return VaultReader(settings.vault, NoSearch())


def test_notes_named_by_title_alias_link_or_path_are_found_and_only_they_are_candidates(settings: Settings) -> None:
    reader = reader_of(settings)
    snapshot = reader.snapshot()

    assert named_notes(snapshot, "Add the tag x to the garlic note") == [GARLIC]
    assert named_notes(snapshot, "tag my Country loaf recipe") == [SOURDOUGH]  # an alias
    assert named_notes(snapshot, "append to [[Sourdough#Final recipe|the loaf]]") == [SOURDOUGH]
    assert named_notes(snapshot, "append to Areas/Garden/Garlic.md please") == [GARLIC]
    found = gather(reader, "Add a task to the Garlic note", hits=[SOURDOUGH])
    assert found.paths == (GARLIC,) and found.is_named  # a retrieval hit is no candidate once a note is named


def test_a_longer_name_wins_over_a_shorter_one_inside_it(settings: Settings) -> None:
    snapshot = reader_of(settings).snapshot()
    named = named_notes(snapshot, "Add a row to the Garden Plan 2027 note")
    assert named[0] == "Areas/Garden/Garden Plan 2027.md"


def test_without_a_named_note_the_retrieval_hits_are_the_candidates_with_their_headings(settings: Settings) -> None:
    reader = reader_of(settings)
    found = gather(reader, "add a line about watering", hits=[SOURDOUGH, SOURDOUGH, GARLIC, "Gone.md"])
    today = f"Daily/{reader.today().isoformat()}.md"
    assert found.paths == (SOURDOUGH, GARLIC, today) and not found.is_named  # today's daily note comes last
    sourdough = found.candidate(SOURDOUGH)
    assert sourdough is not None and "Failures worth remembering" in sourdough.headings


def test_a_named_day_adds_its_daily_note_first_even_when_it_does_not_exist_yet(settings: Settings) -> None:
    reader = reader_of(settings)
    today = reader.today()
    assert named_days("log it in yesterday's journal and 2026-11-03", today)[1] == date(2026, 11, 3)
    assert [c.day for c in gather(reader, "move it from 2026-11-03 to 2026-11-04", hits=[]).candidates] == [
        date(2026, 11, 3),
        date(2026, 11, 4),
    ]
    found = gather(reader, "Add a task to today's daily note", hits=[GARLIC])
    daily = found.candidates[0]
    assert daily.path == f"Daily/{today.isoformat()}.md" and daily.day == today
    assert daily.exists is (daily.path in reader.snapshot().notes)
    assert found.paths == (daily.path,)  # the retrieval hits for its words are no candidates (an old daily note)
    named = gather(reader, "Add a task to the Garlic note and to today's daily note", hits=[SOURDOUGH])
    assert named.paths == (daily.path, GARLIC)


@pytest.mark.parametrize(
    ("request_text", "folder"),
    [
        ('Create a note called Plum Pruning in the Garden folder with the text "x"', "Areas/Garden"),
        ("In the Inbox folder, create a note called Plum Pruning", "Inbox"),
        ("Create a note called Ideas about Inbox zero", ""),  # the folder's name inside the note's name
        ('Create a note called Plum Pruning with the text "Ask at the Garden centre"', ""),  # inside the text
        ("Create a note called Plum Pruning", ""),
        ("Create a note about my garden called Plan", ""),  # a folder's name, but no "folder": no placement
        ("Create a note called Meeting with Bob in the Inbox folder", "Inbox"),
        ("Create a note called Plum Pruning in the folder Inbox", "Inbox"),
        ("Erstelle eine Notiz namens Pflaumen im Ordner Inbox", "Inbox"),
    ],
)
def test_the_folder_a_request_puts_a_new_note_in_is_found_by_code(
    settings: Settings, request_text: str, folder: str
) -> None:
    snapshot = reader_of(settings).snapshot()
    assert requested_folder(snapshot, request_text, given_names(request_text)) == folder


def test_a_request_referring_back_has_the_notes_the_previous_answer_cited(settings: Settings) -> None:
    reader = reader_of(settings)
    today = f"Daily/{reader.today().isoformat()}.md"

    assert gather(reader, "Tag that note with mulch", hits=[SOURDOUGH], cited=["Garlic", "Gone"]).paths == (GARLIC,)
    assert gather(reader, "Add it to today's daily note", hits=[], cited=["Garlic"]).paths == (today,)  # the day's
    assert gather(reader, "Add the tag x to the Sourdough note", hits=[], cited=["Garlic"]).paths == (SOURDOUGH,)
    assert GARLIC not in gather(reader, "Add a task to buy straw", hits=[SOURDOUGH], cited=["Garlic"]).paths
