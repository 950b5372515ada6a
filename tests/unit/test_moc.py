"""Maps of content: the request read by code, and the notes on a topic chosen by code, not by a model."""

from __future__ import annotations

import pytest

from agent.change_contract.moc import (
    MAX_MOC_NOTES,
    MocRequest,
    TopicSearch,
    moc_folder,
    moc_members,
    moc_request,
    names_topic,
    topic_stems,
)
from core.domain import Note


@pytest.mark.parametrize(
    ("request_text", "moc"),
    [
        ("Make a MOC of my notes on gardening", MocRequest("gardening")),
        ("Please create a map of content for bread.", MocRequest("bread")),
        ("Create a new MOC about science fiction", MocRequest("science fiction")),
        ("Make a MOC of all my notes about the librarian project", MocRequest("librarian project")),
        ("Create a MOC of my notes on cooking called Kitchen Index", MocRequest("cooking", "Kitchen Index")),
        ("Make a MOC on running in the Inbox folder", MocRequest("running")),
        (
            "Create a note called Sci-fi MOC linking my notes about science fiction",
            MocRequest("science fiction", "Sci-fi MOC"),
        ),
        ('Create a note called "Reading" that links to my notes on books', MocRequest("books", "Reading")),
        ("Erstelle eine Übersicht zu Garten", MocRequest("Garten")),
        ("Build an index note of my notes on cooking", MocRequest("cooking")),
        ("Make a hub note for my travel notes", MocRequest("travel")),
        ("Add the index to my note", None),
        ("Can you make a MOC of my notes on gardening?", MocRequest("gardening")),
        ("Make a gardening MOC", MocRequest("gardening")),
        ("Make a MOC of my notes on gardening and tag it moc", MocRequest("gardening")),
        ("Make a MOC of my notes on gardening and move it to Inbox", MocRequest("gardening")),
        ("Make a MOC of my notes on Tom and Mark", MocRequest("Tom and Mark")),  # names, not a second change
        ("Make a MOC of the notes in my Garden folder", MocRequest("Garden", in_folder=True)),
        ("Create an index on the Kyoto note", None),  # an index in one note
        ("Make a MOC of the", None),
        ("Add the tag moc to the Garden MOC note", None),
        ("What is in my Garden MOC?", None),
        ("Create a note called Plum Pruning", None),
    ],
)
def test_a_request_for_a_map_of_content_is_read_by_code(request_text: str, moc: MocRequest | None) -> None:
    assert moc_request(request_text) == moc


def test_the_note_is_named_as_asked_or_after_its_topic_without_characters_obsidian_refuses() -> None:
    assert MocRequest("gardening").note_name == "Gardening MOC"
    assert MocRequest("cooking", "Kitchen Index").note_name == "Kitchen Index"
    assert MocRequest("C# and F#").note_name == "C and F MOC"


def test_how_a_note_is_filed_names_its_topic_and_its_text_does_not() -> None:
    garden = topic_stems("my notes on gardening")
    assert garden == ({"garden"},)
    assert topic_stems("AI tools") == ({"ai"}, {"tool"})

    assert names_topic(Note("Areas/Garden/Garlic.md", "Garlic"), garden)  # its folder
    assert names_topic(Note("Inbox/Mulch.md", "Mulch", tags=("area/garden",)), garden)  # a nested tag
    beds = Note("Beds.md", "Beds", frontmatter={"up": "[[Garden MOC]]", "n": [1, {"x": "gardens"}]})
    assert names_topic(beds, garden)
    assert not names_topic(Note("Projects/Server.md", "Server", frontmatter={"garden": "no"}), garden)  # a key only
    sci_fi = topic_stems("science fiction")
    blade_runner = Note("References/Blade Runner.md", "Blade Runner", frontmatter={"genre": "[[Sci-fi]]"})
    assert not names_topic(blade_runner, sci_fi)


def test_a_topic_word_matches_a_note_by_its_stem_in_either_stemming() -> None:
    travelling = topic_stems("my notes on travelling")
    assert names_topic(Note("Travel/Kyoto.md", "Kyoto"), travelling)  # Snowball: travel = travel
    assert names_topic(Note("Log/Runs.md", "Runs", tags=("running",)), topic_stems("running"))
    assert names_topic(Note("Notes/Meditating daily.md", "Meditating daily"), topic_stems("meditation"))
    assert not names_topic(Note("Travel/Kyoto.md", "Kyoto"), topic_stems("running"))


def notes(*paths: str) -> list[Note]:
    return [Note(path, path.rsplit("/", 1)[-1].removesuffix(".md")) for path in paths]


def by_name(target: str, _source: str) -> str | None:
    """Resolve a link as these tests' vaults would: every note is at References/<name>.md."""
    return f"References/{target}.md"


def test_notes_naming_the_topic_are_members_wherever_the_search_ranks_them() -> None:
    vault = notes("Areas/Garden/Garlic.md", "Areas/Garden/Composting.md", "Projects/Home Server.md", "README.md")
    judged: list[str] = []
    search = TopicSearch(["README.md", "Areas/Garden/Composting.md"], lambda path: judged.append(path) or True)

    members = moc_members(vault, "gardening", search, resolve=by_name)

    assert members.paths == ("Areas/Garden/Composting.md", "Areas/Garden/Garlic.md")  # ranked first, then by path
    assert members.by_name and members.found == 2 and judged == []  # the gate is not asked when names decide


def test_without_a_note_naming_it_the_gate_judges_the_searched_notes() -> None:
    vault = notes("References/Blade Runner.md", "References/Futurama.md", "Clippings/Advice.md")
    search = TopicSearch(
        ["Clippings/Advice.md", "References/Futurama.md", "Gone.md", "References/Blade Runner.md"],
        lambda path: path.startswith("References/"),
    )

    members = moc_members(vault, "science fiction", search, resolve=by_name)

    assert members.paths == ("References/Futurama.md", "References/Blade Runner.md") and not members.by_name


def test_a_map_links_at_most_the_best_ranked_notes_and_counts_the_rest() -> None:
    vault = notes(*(f"Garden/Note {number:03}.md" for number in range(MAX_MOC_NOTES + 7)))

    members = moc_members(vault, "garden", TopicSearch([], lambda _path: True), resolve=by_name)

    assert len(members.paths) == MAX_MOC_NOTES and members.found == MAX_MOC_NOTES + 7


def test_a_folder_for_maps_is_used_only_when_there_is_one() -> None:
    assert moc_folder(["Areas", "MOCs", "Areas/Garden"]) == "MOCs"
    assert moc_folder(["Maps", "Work/MOCs"]) == ""
    assert moc_folder(["Areas"]) == ""


def test_notes_filed_under_a_member_by_their_properties_are_members_too() -> None:
    # kepano-obsidian: the movies say genre: "[[Sci-fi]]", and only the Sci-fi note is about "science fiction".
    sci_fi = Note("References/Sci-fi.md", "Sci-fi")
    blade_runner = Note("References/Blade Runner.md", "Blade Runner", frontmatter={"genre": ["[[Sci-fi]]", "[[Noir]]"]})
    mentions = Note("References/Dune.md", "Dune", frontmatter={"note": "unlike [[Noir]]"})
    search = TopicSearch(["References/Sci-fi.md"], lambda path: path == "References/Sci-fi.md")

    members = moc_members([sci_fi, blade_runner, mentions], "science fiction", search, resolve=by_name)

    assert members.paths == ("References/Sci-fi.md", "References/Blade Runner.md") and members.found == 2
