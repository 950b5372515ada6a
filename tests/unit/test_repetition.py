"""A reply that loops is noticed after a few repeats; text that only looks alike (tables, lists) is not."""

from __future__ import annotations

from agent.repetition import REPEATS, RepetitionWatch, ends_in_a_loop
from tests.scripted_llm_turns import split_tokens

LOOP = "The cold retard takes 14 hours in the fridge. "


def test_a_sentence_repeated_over_and_over_is_a_loop_wherever_the_text_stops() -> None:
    looped = "It rests overnight. " + LOOP * REPEATS
    assert ends_in_a_loop(looped)
    assert ends_in_a_loop(looped + LOOP[:7])  # mid-sentence too: a loop has no start of its own
    assert not ends_in_a_loop("It rests overnight. " + LOOP * (REPEATS - 1))


def test_tables_lists_and_rules_are_not_loops() -> None:
    table = "".join(f"| Week {week} | {10 + week} km | easy |\n" for week in range(1, 12))
    tasks = "".join(f"- [ ] water the tomatoes in bed {bed}\n" for bed in range(1, 12))
    assert not ends_in_a_loop(table)
    assert not ends_in_a_loop(tasks)
    assert not ends_in_a_loop("Intro\n" + "-" * 200)  # a rule: a period under MIN_PERIOD


def test_the_watch_says_so_once_the_streamed_reply_loops() -> None:
    watch = RepetitionWatch()
    said = [watch.feed(piece) for piece in split_tokens("Here is the answer. " + LOOP * 8)]

    assert said[-1] and not any(said[:5])
    first = said.index(True)
    assert len("".join(split_tokens("Here is the answer. " + LOOP * 8)[: first + 1])) < len(LOOP) * (REPEATS + 2)
