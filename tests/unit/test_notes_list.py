"""A request for the notes about a topic is answered with the notes the search found about it, listed by code."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

from agent.notes_list import MAX_LISTED, notes_reply
from core.domain import Chunk, SearchHit
from rag.answer.notes_questions import asks_when_last_written, notes_topic


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("List the notes I have about Hyprland.", "Hyprland"),
        ("Which notes are about garlic?", "garlic"),
        ("Which notes mention Kevin Kelly?", "Kevin Kelly"),
        ("Can you show me my notes on composting", "composting"),
        ("Do I have any notes about Ansible?", "Ansible"),
        ("Where are my notes on garlic?", "garlic"),
        ("What notes do I have on sourdough?", "sourdough"),
        ("What are my notes on Python?", "Python"),
        ("Welche Notizen habe ich über Käsespätzle?", "Käsespätzle"),
        ("Zeig mir alle Notizen zu Kyoto", "Kyoto"),
    ],
)
def test_a_request_for_the_notes_about_a_topic(question: str, topic: str) -> None:
    assert notes_topic(question) == topic


@pytest.mark.parametrize(
    "question",
    [
        "What do my notes say about RRF?",  # their content: the model answers it
        "Which note says the bike was serviced?",  # a fact
        "Summarize my notes on composting.",
        "Which notes are tagged garden?",  # the tags tool's
        "Which notes did I write yesterday?",
        "List my tasks",
    ],
)
def test_other_questions_ask_for_no_notes_by_topic(question: str) -> None:
    assert notes_topic(question) == ""


def hit(anchor: str, text: str, rank: int) -> SearchHit:
    note = anchor.strip("[]").partition("#")[0]
    chunk = Chunk(path=f"{note}.md", title=note.rsplit("/", 1)[-1], heading_path=(), anchor=anchor, text=text)
    return SearchHit(chunk, score=1.0 - rank / 100)


HITS = [
    hit("[[My custom Hyprland config#Default Hyprland config]]", "exec-once = waybar", 0),
    hit("[[Productivity Tips#From Reddit]]", "Google Keep for lists, todo, small notes.", 1),
    hit(
        "[[Fractional Scaling#**How to** scale text and the whole screen in Sway, Hyprland and GNOME on Wayland]]",
        "For Text Scaling: nwg-look in Sway or Hyprland",
        2,
    ),
    hit("[[My custom Hyprland config#My additions]]", "Scale the monitor to 1.25.", 3),
    hit("[[My custom Hyprland config#Keys]]", "bind = SUPER, Q, exec, kitty", 4),
    hit("[[My custom Hyprland config#Rules]]", "windowrule = float, pavucontrol", 5),
    hit("[[My custom Hyprland config#Autostart]]", "exec-once = hyprpaper", 6),
    hit("[[Hyprland#Hyprland]]", "A dynamic tiling Wayland compositor.", 7),  # the title's heading: not named again
]


def test_the_notes_about_the_topic_are_listed_best_first_with_the_sections_found() -> None:
    reply = notes_reply("List the notes I have about Hyprland.", HITS)

    assert reply is not None
    assert reply.text.splitlines() == [
        "3 notes about Hyprland, the best match first:",
        "- [[My custom Hyprland config]] (Default Hyprland config, My additions, Keys)",  # three sections at most
        "- [[Fractional Scaling]] (How to scale text and the whole screen in Sway, Hyprland and …)",  # cut, plain
        "- [[Hyprland]]",
    ]
    assert reply.anchors == ("[[My custom Hyprland config]]", "[[Fractional Scaling]]", "[[Hyprland]]")


def test_no_note_about_the_topic_or_no_such_request_gives_no_list() -> None:
    assert notes_reply("Which notes mention Kubernetes?", HITS) is None
    assert notes_reply("What does my Hyprland config bind SUPER Q to?", HITS) is None


def test_a_long_list_says_how_many_more() -> None:
    many = [hit(f"[[Garlic {index}]]", "Garlic planted.", index) for index in range(MAX_LISTED + 3)]

    reply = notes_reply("Which notes are about garlic?", many)

    assert reply is not None
    lines = reply.text.splitlines()
    assert lines[0] == f"{MAX_LISTED + 3} notes about garlic, the best match first:"
    assert lines[1] == "- [[Garlic 0]]" and lines[-1] == "… and 3 more."
    assert len(reply.anchors) == MAX_LISTED


def test_asked_when_last_written_the_notes_come_the_latest_changed_first_with_their_times() -> None:
    changed = {
        "My custom Hyprland config.md": datetime(2025, 3, 2, 9, 30),
        "Fractional Scaling.md": datetime(2025, 6, 1, 18, 5),
        "Hyprland.md": datetime(2024, 12, 24, 8, 0),
    }

    def changed_at(paths: Sequence[str]) -> dict[str, datetime]:
        return {path: changed[path] for path in paths if path in changed}

    reply = notes_reply("When did I last write about Hyprland?", HITS, changed_at=changed_at)

    assert reply is not None
    assert reply.text.splitlines() == [
        "3 notes about Hyprland, the latest changed first (by the files' modification times):",
        "- [[Fractional Scaling]] (2025-06-01 18:05)",
        "- [[My custom Hyprland config]] (2025-03-02 09:30)",
        "- [[Hyprland]] (2024-12-24 08:00)",
    ]
    assert reply.anchors[0] == "[[Fractional Scaling]]"
    # Not asked when: the best match first, as before.
    listed = notes_reply("List the notes I have about Hyprland.", HITS, changed_at=changed_at)
    assert listed is not None and listed.text.startswith("3 notes about Hyprland, the best match first:")


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("When did I last write about cryptography?", "cryptography"),
        ("When was the last time I mentioned Priya?", "Priya"),
        ("When did I last update the Garden Plan?", "the Garden Plan"),
    ],
)
def test_asking_when_the_notes_about_a_topic_were_last_written_is_read(question: str, topic: str) -> None:
    assert notes_topic(question) == topic and asks_when_last_written(question)
    assert not asks_when_last_written("When did I last water the tomatoes?")  # a fact the notes may give
