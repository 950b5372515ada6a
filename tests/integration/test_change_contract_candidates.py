"""Gathering a change contract's candidate targets by code, over a copy of sample_vault."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from agent.change_contract.candidates import gather, named_notes, requested_folder
from agent.change_contract.request_values import named_days
from agent.change_contract.request_words import given_names
from agent.tools.reader import VaultReader
from core.settings import Settings
from tests.edit_fakes import NoSearch
from tests.vault_state import write_notes

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


# Laid out like kepano-obsidian, where an exploratory tester saw the three cases below: no .obsidian folder (new
# daily notes go beside the ones the vault keeps, Daily/), a category note named like a folder, dated notes in Daily/.
TODAY = "Daily/2026-12-04.md"
JAPAN = "Notes/2023 Japan Trip.md"
CLIPPINGS_CATEGORY = "Categories/Clippings.md"
SEPT_12 = "Daily/2023-09-12.md"
KEPANO_NOTES = {
    JAPAN: "# 2023 Japan Trip\n\nKyoto, then [[Fushimi Inari]].\n",
    CLIPPINGS_CATEGORY: "# Clippings\n\nSaved articles.\n",
    "Clippings/Buy wisely.md": "# Buy wisely\n\nOn tools.\n",
    SEPT_12: "# 2023-09-12\n\nMet Steph.\n",
    "References/Fushimi Inari.md": "# Fushimi Inari\n\nA shrine in Kyoto.\n",
    "References/Dunes.md": "# Dunes\n\nTottori.\n",
}


@pytest.fixture
def kepano_reader(tmp_path: Path) -> VaultReader:
    root = write_notes(tmp_path / "kepano", KEPANO_NOTES)
    settings = Settings(_env_file=None, vault_path=root, data_dir=tmp_path / "kepano-data")
    return VaultReader(settings.vault, NoSearch(), clock=lambda: datetime(2026, 12, 4, 9, 0))


@pytest.mark.parametrize(
    "request_text",
    [
        "move 2023 Japan Trip to the Clippings folder",
        "move the japan trip note to clippings",
        "move 2023 Japan Trip to the Daily folder",
        "Move 2023 Japan Trip into Daily",
    ],
)
def test_the_folder_a_move_names_as_its_destination_makes_no_note_a_candidate(
    kepano_reader: VaultReader, request_text: str
) -> None:
    # The 0.5B moved Categories/Clippings.md for the first two, and today's daily note for the third.
    found = gather(kepano_reader, request_text, hits=[CLIPPINGS_CATEGORY, JAPAN])
    assert found.paths == (JAPAN,) and found.folders in (("Clippings",), ("Daily",))


def test_hits_a_move_found_by_its_destination_words_are_no_candidates(kepano_reader: VaultReader) -> None:
    hits = [CLIPPINGS_CATEGORY, "Clippings/Buy wisely.md", JAPAN]  # what retrieval finds for "clippings"
    found = gather(kepano_reader, "move my travel plans to the Clippings folder", hits=hits)
    assert found.paths[0] == JAPAN and not set(hits[:2]) & set(found.paths)


@pytest.mark.parametrize(
    "request_text",
    [
        "Add the tag favorite to the Dune note",
        "Add the tag favorite to Dune",
        "Add the tag favorite to [[Dune]]",
        'Add the tag favorite to the "Dune" note',
        'Append "Read it twice" to the note called Dune',
        "Rename the Dune note to Arrakis",  # "Arrakis" is the new name, not a second note to find
    ],
)
def test_a_note_the_request_names_that_does_not_exist_is_reported_not_swapped_for_a_hit(
    kepano_reader: VaultReader, request_text: str
) -> None:
    found = gather(kepano_reader, request_text, hits=[SEPT_12])
    assert found.paths == () and found.missing == ("Dune",)
    assert found.describe_missing() == "no note called “Dune” was found (the closest: “Dunes”)"


def test_a_link_names_its_note_exactly_as_obsidian_opens_it(kepano_reader: VaultReader) -> None:
    found = gather(kepano_reader, "Add the tag favorite to [[Japan Trip]]", hits=[JAPAN])
    assert found.paths == () and found.missing == ("Japan Trip",)
    assert found.describe_missing() == "no note called “Japan Trip” was found (the closest: “2023 Japan Trip”)"


@pytest.mark.parametrize(
    ("request_text", "paths"),
    [
        ("tag my note about bread", (SEPT_12, TODAY)),  # describes a note: the hits, then today's note
        ("Add a task to buy milk", (SEPT_12, TODAY)),
        ("Set the status to Active", (SEPT_12, TODAY)),  # a value after "to", not a note
        ("Create a note called Dune", (SEPT_12, TODAY)),  # a new note's name
        ("Add the tag trip to the japan trip note", (JAPAN,)),  # a name's words inside a title name that note
    ],
)
def test_a_request_describing_a_note_keeps_its_hits_and_part_of_a_title_names_the_note(
    kepano_reader: VaultReader, request_text: str, paths: tuple[str, ...]
) -> None:
    found = gather(kepano_reader, request_text, hits=[SEPT_12])
    assert found.paths == paths and found.missing == () and found.describe_missing() == ""


@pytest.mark.parametrize(
    "request_text",
    [
        'Append "Visited Fushimi Inari" to [[2023-09-12]]',
        'Append "Visited Fushimi Inari" to the daily note of 2023-09-12',
    ],
)
def test_an_existing_note_named_by_the_date_wins_over_creating_one_in_the_daily_folder(
    kepano_reader: VaultReader, request_text: str
) -> None:
    # Obsidian opens [[2023-09-12]] by name wherever it is, in the daily folder or not.
    found = gather(kepano_reader, request_text, hits=[])
    assert found.paths == (SEPT_12,)  # the shrine named inside the text to add is no target either
    daily = found.candidates[0]
    assert daily.exists and daily.day == date(2023, 9, 12)


def test_a_day_without_a_note_anywhere_is_still_offered_in_the_daily_folder(kepano_reader: VaultReader) -> None:
    found = gather(kepano_reader, 'Append "Packed" to the daily note of 2023-09-13', hits=[])
    assert [(c.path, c.exists) for c in found.candidates] == [("Daily/2023-09-13.md", False)]


@pytest.mark.parametrize(
    ("request_text", "names", "template"),
    [
        # "from the Template Workshop" is part of the name: the vault has no template "Workshop"
        ("Create a note called Notes from the Template Workshop", ("Notes from the Template Workshop",), ""),
        ('Create a note called "Notes from the Template Workshop"', ("Notes from the Template Workshop",), ""),
        ("Create a note titled Notes from the Template Workshop in the Inbox folder",
         ("Notes from the Template Workshop",), ""),
        ("Create a note called Notes from the Template Workshop using the Meeting Template",
         ("Notes from the Template Workshop",), "Meeting Template"),
        # a template the vault has, after the name: the template the note starts from
        ("Create a note called Kickoff from the template Meeting", ("Kickoff",), "Meeting Template"),
        ("Create a note called Kickoff from the Template Meeting", ("Kickoff",), "Meeting Template"),
        ('Create a note called "Kickoff" from the template Meeting', ("Kickoff",), "Meeting Template"),
        ("Create a note Kickoff from the template Meeting", (), "Meeting Template"),
        ("Create a note called Kickoff from the template Meeting with the text hi", ("Kickoff",), "Meeting Template"),
    ],
)  # fmt: skip
def test_a_new_notes_name_holds_template_words_unless_the_vault_has_that_template(
    settings: Settings, request_text: str, names: tuple[str, ...], template: str
) -> None:
    found = gather(reader_of(settings), request_text, hits=[])
    assert (found.names, found.template) == (names, template)


def test_template_words_in_a_name_name_a_template_the_vault_has(settings: Settings, vault: Path) -> None:
    (vault / "Templates" / "Workshop.md").write_text("# {{title}}\n", encoding="utf-8")
    reader = reader_of(settings)
    found = gather(reader, "Create a note called Notes from the Template Workshop", hits=[])
    assert (found.names, found.template) == (("Notes",), "Workshop")
    quoted = gather(reader, 'Create a note called "Notes from the Template Workshop"', hits=[])
    assert (quoted.names, quoted.template) == (("Notes from the Template Workshop",), "")  # the quotes hold the name


MILK = "Inbox/Milk.md"
GROCERIES = "Inbox/Groceries.md"


@pytest.fixture
def shopping_reader(settings: Settings, vault: Path) -> VaultReader:
    """Return a reader of sample_vault (set up for daily notes) with a Milk note and a Groceries note."""
    (vault / MILK).write_text("# Milk\n\nOat milk is fine.\n", encoding="utf-8")
    (vault / GROCERIES).write_text("# Groceries\n\n- [ ] eggs\n", encoding="utf-8")
    return reader_of(settings)


@pytest.mark.parametrize("hits", [[MILK, SOURDOUGH], []])
def test_a_new_task_naming_no_note_goes_to_todays_daily_note_first(
    shopping_reader: VaultReader, hits: list[str]
) -> None:
    # "buy milk" is the task: the note titled Milk it holds, or that retrieval finds, is no note named.
    today = f"Daily/{shopping_reader.today().isoformat()}.md"
    found = gather(shopping_reader, "Add a task to buy milk", hits=hits, is_new_task=True)
    assert found.paths[0] == today and not found.is_named
    assert found.paths == (today, *hits)


def test_a_note_the_text_of_a_new_task_names_is_no_note_named(shopping_reader: VaultReader) -> None:
    today = f"Daily/{shopping_reader.today().isoformat()}.md"
    found = gather(shopping_reader, 'Add a task "Water the garlic"', hits=[GARLIC], is_new_task=True)
    assert found.paths == (today, GARLIC) and not found.is_named


@pytest.mark.parametrize(
    "request_text",
    [
        "Add a task to my Groceries note: buy milk",
        "Add a task to Groceries: buy milk",
        "add a task to groceries",
        "Add a task to Groceries note to buy milk",
    ],
)
def test_a_new_task_goes_to_the_note_the_request_names(shopping_reader: VaultReader, request_text: str) -> None:
    found = gather(shopping_reader, request_text, hits=[MILK], is_new_task=True)
    assert found.paths[0] == GROCERIES and found.is_named
    assert f"Daily/{shopping_reader.today().isoformat()}.md" not in found.paths


def test_other_changes_naming_no_note_keep_the_hits_first(shopping_reader: VaultReader) -> None:
    today = f"Daily/{shopping_reader.today().isoformat()}.md"
    assert gather(shopping_reader, "Add the tag shopping", hits=[MILK]).paths == (MILK, today)


def test_a_new_task_goes_first_to_today_in_a_vault_keeping_daily_notes_without_settings(
    kepano_reader: VaultReader,
) -> None:
    found = gather(kepano_reader, "Add a task to buy milk", hits=[SEPT_12], is_new_task=True)
    assert found.paths == (TODAY, SEPT_12)


def test_a_new_task_in_a_vault_without_daily_notes_keeps_the_hits_first(tmp_path: Path) -> None:
    root = write_notes(tmp_path / "plain", {JAPAN: KEPANO_NOTES[JAPAN]})
    reader = VaultReader(
        Settings(_env_file=None, vault_path=root, data_dir=tmp_path / "data").vault,
        NoSearch(),
        clock=lambda: datetime(2026, 12, 4, 9, 0),
    )
    found = gather(reader, "Add a task to buy milk", hits=[JAPAN], is_new_task=True)
    assert found.paths == (JAPAN, "2026-12-04.md")


@pytest.mark.parametrize(
    ("request_text", "task"),
    [
        ("Add a task to call the plumber to today's daily note", "call the plumber"),
        ("Add a task to buy milk", "buy milk"),
        ("Add a task to my Groceries note: buy oat milk", "buy oat milk"),
        ("add a reminder to renew the passport to 2026-12-05.", "renew the passport"),
        ("Add a task to email the notes to Priya", "email the notes to Priya"),  # Priya is no place a task goes
        ("Remind me to water the plants tomorrow", "water the plants"),  # tomorrow's note is where it goes
        ("add a task to buy milk for today.", "buy milk"),
        ('Add a task "Water the garlic"', ""),  # quoted: the quote is the text
        ("add a task to groceries", ""),  # a note's name, not the task's words
    ],
)
def test_a_new_tasks_own_words_are_found_by_code_up_to_the_place_it_goes(
    shopping_reader: VaultReader, request_text: str, task: str
) -> None:
    # The 0.5B wrote "call plumber today's daily note" for the first: the words are the request's, copied by code.
    assert gather(shopping_reader, request_text, hits=[], is_new_task=True).task == task


def test_a_vault_without_its_settings_gets_todays_daily_note_beside_the_ones_it_keeps(tmp_path: Path) -> None:
    # kepano's vault as exported (no `.obsidian/`): "today's daily note" was proposed as a new note in the root.
    vault = tmp_path / "vault"
    write_notes(vault, {"Daily/2023-09-12.md": "## Notes\n", "Daily/2023-09-30.md": "## Notes\n", "Readme.md": "Hi\n"})
    reader = reader_of(Settings(_env_file=None, vault_path=vault, data_dir=tmp_path / "data"))

    found = gather(reader, "Add a task to today's daily note: call the dentist", hits=["Readme.md"])

    assert found.paths == (f"Daily/{reader.today().isoformat()}.md",)
    assert not found.candidates[0].exists
