"""An answer's links to notes it read none of are judged as the words they show."""

from __future__ import annotations

from rag.answer.attribution import Passage
from rag.answer.evidence import is_borne_out
from rag.answer.link_answers import unread_links_as_text

STEPH = Passage("[[Steph Ango]]", "Steph Ango\ncategories: [[People]]\norg: [[Obsidian]]\ntwitter: kepano")
QUESTION = "What is Steph Ango's Twitter handle?"


def test_a_value_in_link_brackets_is_judged_as_its_text() -> None:
    # Qwen2.5-Coder 0.5B's, over kepano-obsidian (stop 44).
    assert unread_links_as_text("[[kepano]]", [STEPH]) == "kepano"
    assert is_borne_out("[[kepano]]", [STEPH], question=QUESTION)
    assert not is_borne_out("[[stephango]]", [STEPH], question=QUESTION)  # no note gives it


def test_links_to_notes_read_embeds_and_aliases_keep_their_form() -> None:
    assert unread_links_as_text("[[Steph Ango#Links]] and ![[photo.png]]", [STEPH]) == (
        "[[Steph Ango#Links]] and ![[photo.png]]"
    )
    assert unread_links_as_text("[[kepano|@kepano]] on [[Twitter#Handles]]", [STEPH]) == "@kepano on Twitter"


def test_a_link_to_a_heading_of_the_same_note_shows_its_heading() -> None:
    assert unread_links_as_text("See [[#Handles]].", [STEPH]) == "See Handles."
