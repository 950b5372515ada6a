"""Which questions ask for the vault's links or tags, and of which note or tag (rag/answer/vault_questions.py)."""

from __future__ import annotations

import pytest

from rag.answer.vault_questions import VaultAsk, vault_ask


@pytest.mark.parametrize(
    ("question", "ask"),
    [
        ("Which notes link to Books?", VaultAsk("backlinks", name="Books")),
        ("What links to [[Books]]?", VaultAsk("backlinks", name="[[Books]]")),
        ("Show me the backlinks of the Books note", VaultAsk("backlinks", name="Books")),
        ("How many notes link to Kevin Kelly?", VaultAsk("backlinks", name="Kevin Kelly")),
        ("List the notes that link to Evergreen notes", VaultAsk("backlinks", name="Evergreen notes")),
        ("Welche Notizen verlinken auf Books?", VaultAsk("backlinks", name="Books")),
        ("What does Kevin Kelly link to?", VaultAsk("outgoing", name="Kevin Kelly")),
        ("List the links in my Books note", VaultAsk("outgoing", name="Books")),
        ("Which notes are tagged clippings?", VaultAsk("tagged", tag="clippings")),
        ("How many notes have the tag #evergreen?", VaultAsk("tagged", tag="evergreen")),
        ("List the notes with #area/garden", VaultAsk("tagged", tag="area/garden")),
        ("Welche Notizen haben den Tag #reise?", VaultAsk("tagged", tag="reise")),
        ("What tags do I use most?", VaultAsk("tags")),
        ("Which tags are in my vault?", VaultAsk("tags")),
        ("List my tags", VaultAsk("tags")),
        ("How many tags do I have?", VaultAsk("tags")),
        ("Which notes did I change this week?", VaultAsk("recent")),
        ("What did I edit yesterday?", VaultAsk("recent")),
        ("Show my recently modified notes", VaultAsk("recent")),
        ("What was the last note I edited?", VaultAsk("recent")),
        ("What did I write most recently?", VaultAsk("recent")),
        ("Which notes are in the Clippings folder?", VaultAsk("folder", name="Clippings")),
        ("How many notes are in my Projects/Librarian folder?", VaultAsk("folder", name="Projects/Librarian")),
        ("What's in the How To folder?", VaultAsk("folder", name="How To")),
        ("How many notes do I have?", VaultAsk("count")),
        ("How many notes are in my vault?", VaultAsk("count")),
        ("Which notes have status active?", VaultAsk("property", name="status", value="active")),
        ("Which notes have a rating of 7 or higher?", VaultAsk("property", name="rating", value="7 or higher")),
        ("List the notes with status: done", VaultAsk("property", name="status", value="done")),
        ('Which notes have status set to "in progress"?', VaultAsk("property", name="status", value="in progress")),
        ("Which notes have the property due?", VaultAsk("property", name="due")),
        ("Which movies did I rate 7 or higher?", VaultAsk("property", name="rating", value="7 or higher", of="movies")),
        ("Show me my recipes", VaultAsk("of_kind", of="recipes")),
        ("What movies do I have?", VaultAsk("of_kind", of="movies")),
        ("Which projects are still open?", VaultAsk("of_kind", of="projects", value="open")),
        ("Which board games do I have?", VaultAsk("of_kind", of="board games")),  # a kind in two words
        ("What board games do I like?", VaultAsk("of_kind", of="board games", value="liked")),
        ("Which movies did I enjoy most?", VaultAsk("of_kind", of="movies", value="liked")),
        (
            "What books am I reading right now?",
            VaultAsk("of_kind", name="reading", of="books", value="in progress"),
        ),
        ("Which projects am I working on?", VaultAsk("of_kind", name="working", of="projects", value="in progress")),
        (
            "What series are we currently watching?",
            VaultAsk("of_kind", name="watching", of="series", value="in progress"),
        ),
        ("Summarize the Clippings folder", VaultAsk("folder", name="Clippings", value="openings")),
        ("What books have I rated 8 or more?", VaultAsk("property", name="rating", value="8 or more", of="books")),
        ("Which places are rated over 6?", VaultAsk("property", name="rating", value="over 6", of="places")),
        ("Which notes did I rate 7?", VaultAsk("property", name="rating", value="7")),
        ("What tags does the Books note have?", VaultAsk("note_tags", name="Books")),
        ("What are the tags of [[Dune]]?", VaultAsk("note_tags", name="[[Dune]]")),
        ("How is my Dune note tagged?", VaultAsk("note_tags", name="Dune")),
        ("Which tags are on Dune?", VaultAsk("note_tags", name="Dune")),
        ("Welche Tags hat Dune?", VaultAsk("note_tags", name="Dune")),
        ("What properties does Dune have?", VaultAsk("note_properties", name="Dune")),
        ("Show me the frontmatter of the Dune note", VaultAsk("note_properties", name="Dune")),
        ("What is in the metadata of Dune?", VaultAsk("note_properties", name="Dune")),
        ("Which notes did I create today?", VaultAsk("created")),
        ("What notes were created in 2023?", VaultAsk("created")),
        ("List the notes I made last month", VaultAsk("created")),
        ("How many notes did I add in March?", VaultAsk("created")),
        ("Which notes did I create recently?", VaultAsk("created")),
        ("When did I create the Kyoto note?", VaultAsk("note_created", name="Kyoto")),
        ("When was [[Kyoto]] created?", VaultAsk("note_created", name="[[Kyoto]]")),
        ("Which notes did I create in the Clippings folder in 2023?", VaultAsk("created", name="Clippings")),
        (
            "Which notes did I change in my Projects/Librarian folder this week?",
            VaultAsk("recent", name="Projects/Librarian"),
        ),
        ("What are the tags in my vault?", VaultAsk("tags")),  # the vault's, not a note's
        ("What tags does my vault have?", VaultAsk("tags")),
        (
            "What books have the author Kevin Kelly?",
            VaultAsk("property", name="author", value="Kevin Kelly", of="books"),
        ),
    ],
)
def test_questions_about_links_and_tags_are_read_with_the_note_or_tag_they_name(question: str, ask: VaultAsk) -> None:
    assert vault_ask(question) == ask


@pytest.mark.parametrize(
    "question",
    [
        "Which notes mention the Tasks plugin?",  # words, not links: the search's
        "Which notes link ideas together?",
        "What does the author say about links?",
        "What is tagged as important in my work notes?",
        "How do tags work in Obsidian?",
        "What did I change in the Sourdough note?",  # what the note says
        "What did I do yesterday?",  # the day's notes
        "What did I write yesterday?",  # what they say
        "Which notes did I write about Kyoto?",  # a topic: the search's
        "When was Out of Control published?",  # a fact of the note, not when it was made
        "When did I start running?",
        "Which notes did I create for the garden last year?",
        "Which tasks have priority high?",  # the task lists': checkboxes and task notes
        "List my tasks",  # the task lists' too
        "What are my notes on Python?",  # the notes about a topic
        "What books did I read in 2023?",  # a question of them, not the list of a kind
        "What books am I planning to read?",  # not those in hand now
        "What recipes am I making for Christmas?",
        "What notes am I editing right now?",  # any note: no kind
        "List my daily notes",  # notes: the vault's own word, no kind
        "What are my weekly tasks?",  # tasks: the task lists'
        "What do I like?",
    ],
)
def test_other_questions_are_left_to_the_search_and_the_model(question: str) -> None:
    assert vault_ask(question) is None
