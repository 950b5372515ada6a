"""A note's properties join its passages when the question asks for them by name (rag/answer/property_records.py)."""

from __future__ import annotations

from core.domain import Chunk, SearchHit
from rag.answer.context import build_context
from rag.answer.property_records import RECORD_INDEX, PropertyRecords

NOTES = {
    "Areas/Garden/Garlic.md": (
        "---\ntags:\n  - area/garden\nplanted: 2026-11-08\nvariety: Germidour\ncloves: 42\n---\n"
        "# Garlic\n\n42 cloves planted in bed 3, pointy end up.\n"
    ),
    "Books/The Machine Stops.md": (
        "---\ncategory: '[[Books]]'\nauthor: '[[E. M. Forster]]'\nyear: 1909\ncreated: 2023-09-12\n---\n"
        "## Quotes\n\n> The Machine stops.\n"
    ),
    "Daily/2026-11-08.md": "---\ndate: 2026-11-08\nenergy: 4\n---\n## Plan\n\nPlant the garlic.\n",
    "Projects/Balcony Irrigation.md": (
        "---\nstatus: paused\nstarted: 2026-05-03\npump_runs: 14\nrun_seconds: 20\n---\n## Pump\n\nBelow 38 %.\n"
    ),
    "Areas/Cooking/Sourdough.md": "# Sourdough\n\nNo properties here: bake at 250 °C.\n",
    "Homelab/Keys.md": (
        "---\nopenai_token: sk-live-51HXtq9Zr3VbN0aQw8LmP2sD7fK4uY6c\n---\n## Setup\n\nThe key is below.\n"
    ),
    "Books/Out of Control.md": "---\nauthor: '[[Kevin Kelly]]'\nyear: 1992\n---\n",
    "Meetings/2026-11-10 Allotment Committee.md": (
        "---\nattendees:\n  - Brigitte Sommer (chair)\n  - Piotr Kowalski (treasurer)\n  - about 30 members\n"
        "location: Vereinsheim, KGV Sonnenhang\n---\n# 2026-11-10 Allotment Committee\n\nAutumn general meeting.\n"
    ),
    "TaskNotes/File the tax return.md": (
        "---\ntitle: File the tax return\nstatus: in-progress\ndue: 2099-07-31\ntags:\n  - task\n---\n\n"
        "Through ELSTER.\n\n- [x] Download the annual statement from the bank ✅ 2026-11-12\n"
    ),
}


def hit(path: str, heading: str, text: str, index: int = 0) -> SearchHit:
    title = path.rsplit("/", 1)[-1].removesuffix(".md")
    return SearchHit(Chunk(path, title, (heading,), f"[[{title}#{heading}]]", text, index=index), 0.5)


def records(question: str, hits: list[SearchHit], **kwargs: bool) -> list[SearchHit]:
    return PropertyRecords(NOTES.get, **kwargs).add(hits, question)


def test_the_rows_a_question_asks_for_follow_the_last_passage_of_their_note() -> None:
    hits = [
        hit("Areas/Garden/Garlic.md", "Garlic", "42 cloves planted in bed 3, pointy end up."),
        hit("Daily/2026-11-08.md", "Plan", "Plant the garlic."),
    ]

    found = records("How many garlic cloves did I plant, of which variety, and on what date?", hits)

    assert [h.chunk.anchor for h in found] == ["[[Garlic#Garlic]]", "[[Garlic]]", "[[2026-11-08#Plan]]"]
    record = found[1].chunk
    assert record.text == "Garlic\nplanted: 2026-11-08\nvariety: Germidour\ncloves: 42"
    assert (record.path, record.index) == ("Areas/Garden/Garlic.md", RECORD_INDEX)
    # The daily note's "date: 2026-11-08" says its title again: no record of it for "on what date".


def test_only_the_asked_rows_are_shown_and_a_title_word_asks_for_none() -> None:
    quotes = [hit("Books/The Machine Stops.md", "Quotes", "> The Machine stops.")]

    found = records("Who wrote The Machine Stops, and in which year was it published?", quotes)
    # "who wrote" asks for the author; not its category, nor the date it was created.
    assert found[-1].chunk.text == "The Machine Stops\nauthor: [[E. M. Forster]]\nyear: 1909"

    # "machine" is the title's word, not a key's: nothing asked of the properties.
    assert records("What does the machine do in The Machine Stops?", quotes) == quotes


def test_a_value_holding_a_question_word_does_not_make_it_asked() -> None:
    quotes = [hit("Books/The Machine Stops.md", "Quotes", "> The Machine stops.")]

    assert records("What did Forster write about the Machine?", quotes) == quotes  # "author: [[E. M. Forster]]"


def test_a_note_without_properties_or_with_its_record_as_passage_gets_none() -> None:
    plain = [hit("Areas/Cooking/Sourdough.md", "Sourdough", "No properties here: bake at 250 °C.")]
    assert records("At which temperature and year do I bake it?", plain) == plain

    # A note without body text is chunked with its properties: the passage is its record already.
    record = SearchHit(
        Chunk("Books/Out of Control.md", "Out of Control", (), "[[Out of Control]]", "Out of Control\n"
              "author: [[Kevin Kelly]]\nyear: 1992"),
        0.5,
    )  # fmt: skip
    assert records("In which year was Out of Control published?", [record]) == [record]


def test_credentials_in_property_values_are_masked_unless_redaction_is_off() -> None:
    hits = [hit("Homelab/Keys.md", "Setup", "The key is below.")]

    masked = records("What is my OpenAI token?", hits)[-1].chunk.text
    assert "sk-live" not in masked and masked.startswith("Keys\nopenai_token: ")
    shown = records("What is my OpenAI token?", hits, redact=False)[-1].chunk.text
    assert shown == "Keys\nopenai_token: sk-live-51HXtq9Zr3VbN0aQw8LmP2sD7fK4uY6c"


def test_a_record_is_a_passage_of_its_own_with_the_note_link_as_source() -> None:
    hits = [hit("Books/The Machine Stops.md", "Quotes", "> The Machine stops.")]
    found = records("In which year was The Machine Stops published?", hits)

    question = "In which year was The Machine Stops published?"

    plain = build_context(found, question, max_chars=4000, with_location=False)
    assert '<note source="[[The Machine Stops#Quotes]]">' in plain
    assert '<note source="[[The Machine Stops]]">\nThe Machine Stops\nyear: 1909\n</note>' in plain
    # Offered tools, a model reads where a passage is: the record is the note's properties, lines 1 to 6.
    located = build_context(found, question, max_chars=4000)
    assert '<note source="[[The Machine Stops]]" path="Books/The Machine Stops.md" lines="1-6">' in located


def test_a_date_is_shown_when_a_day_is_asked_and_a_longer_key_s_figure_when_an_amount_is() -> None:
    pump = [hit("Projects/Balcony Irrigation.md", "Pump", "Below 38 %.")]

    # "start" is in `started:`, but nothing asks for a day; "runs" is in `pump_runs:`, but nothing asks how many.
    assert records("Below which moisture does the pump start, and why does it run?", pump) == pump
    assert records("When did the irrigation start?", pump)[-1].chunk.text == "Balcony Irrigation\nstarted: 2026-05-03"
    counted = records("How many runs did the pump make?", pump)[-1].chunk.text
    assert counted == "Balcony Irrigation\npump_runs: 14"
    # A key that is the question's word itself is asked whatever its value.
    assert records("What is the status of the irrigation?", pump)[-1].chunk.text == "Balcony Irrigation\nstatus: paused"


def test_a_question_asking_yes_or_no_asks_how_its_note_stands() -> None:
    # sample_vault's task note: the 1.5B read "[x] Download the annual statement" and said "Yes" (stop 54).
    body = "Through ELSTER.\n\n- [x] Download the annual statement from the bank ✅ 2026-11-12"
    task = [hit("TaskNotes/File the tax return.md", "File the tax return", body)]

    found = records("Did I file the tax return?", task)

    assert found[-1].chunk.text == "File the tax return\nstatus: in-progress"
    assert records("What do I download for the tax return?", task) == task  # no yes or no: how it stands not asked


def test_asked_who_a_role_in_brackets_after_a_name_asks_for_its_row() -> None:
    # sample_vault, the 0.5B (stop 62): asked who chairs the association, it refused with the meeting's opening read
    meeting = [hit("Meetings/2026-11-10 Allotment Committee.md", "2026-11-10 Allotment Committee", "Autumn meeting.")]

    found = records("Who chairs the allotment association?", meeting)

    assert found[1].chunk.text == (
        "2026-11-10 Allotment Committee\n"
        "attendees: Brigitte Sommer (chair), Piotr Kowalski (treasurer), about 30 members"
    )
    # not asked who, a value's words ask for nothing; nor a role not asked for
    assert len(records("Which members chair the allotment association?", meeting)) == 1
    assert len(records("Who hosts the allotment meetings?", meeting)) == 1
