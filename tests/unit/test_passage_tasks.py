"""Passage-only replies (no model) keep task list markers: whether a task is open or done is part of the answer."""

from __future__ import annotations

from core.domain import Chunk, SearchHit
from rag.answer.passages import retrieval_only_reply, snippet

TASKS = (
    "## Open tasks\n"
    "- [ ] Call the vet about Bruno's vaccination.\n"
    "- [x] Buy rye flour for the starter.\n"
    "* [/] Repot the basil on the balcony.\n"
    "1. [ ] Renew the passport before May.\n"
    "> - [-] Cancelled: the gym membership."
)


def test_a_snippet_keeps_each_tasks_checkbox() -> None:
    shown = snippet(TASKS, "which tasks about the vet, flour, basil, passport and gym are open?", max_chars=400)

    assert shown == (
        "Open tasks [ ] Call the vet about Bruno's vaccination. [x] Buy rye flour for the starter. "
        "[/] Repot the basil on the balcony. [ ] Renew the passport before May. [-] Cancelled: the gym membership."
    )


def test_a_plain_list_loses_only_its_bullets() -> None:
    shown = snippet("- Mix flour and water.\n+ Rest one hour.\n2. Bake [at 250 °C].", "flour water rest bake")

    assert shown == "Mix flour and water. Rest one hour. Bake [at 250 °C]."


def test_the_passages_reply_shows_which_tasks_are_done() -> None:
    chunk = Chunk("Home.md", "Home", ("Open tasks",), "[[Home#Open tasks]]", TASKS, (), (), 3, 8, 0)

    reply = retrieval_only_reply("is the vet call done, and the rye flour?", [SearchHit(chunk, 0.9)], covered=True)

    assert "[ ] Call the vet about Bruno's vaccination." in reply
    assert "[x] Buy rye flour for the starter." in reply
