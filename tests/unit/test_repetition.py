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


def xor_loop_reply() -> str:
    """Return Qwen2.5-Coder 0.5B's reply that looped to its token cap, its repeats differing only in list numbers.

    Rebuilt from the reply the service streamed ("Why does chaining several XOR filters also match a task that has
    all three tags?"): items 1-22; from item 10 on the sub-items are indented four spaces, under the wider number.
    """
    sub_items = (
        "- This is because the XOR operation is not associative, meaning `XOR (XOR A, B) != XOR (B, XOR A)`.\n",
        "- For example, `XOR (1, 2) != XOR (2, 1)` because `1 XOR 2 = 3` and `2 XOR 1 = 1`.\n",
    )
    items = []
    for number in range(1, 23):
        if number <= 2:
            head = f"{number}. **Version {number}**: Combining multiple `XOR` does not give the expected result.\n"
        else:
            head = f"{number}. **Combining multiple `XOR` does not give the expected result**:\n"
        indent = " " * len(f"{number}. ")
        items.append(head + "".join(indent + sub_item for sub_item in sub_items))
    intro = "To answer this question, let's break down the XOR filters and their behavior:\n\n"
    return intro + "\n".join(items)


def streamed_until_stopped(reply: str) -> str:
    """Return what of `reply`, streamed token by token through a RepetitionWatch, is shown before it says stop."""
    watch = RepetitionWatch()
    shown = ""
    for piece in split_tokens(reply):
        shown += piece
        if watch.feed(piece):
            break
    return shown


def test_a_loop_whose_repeats_differ_only_in_their_list_numbers_is_stopped_after_a_few_repeats() -> None:
    shown = streamed_until_stopped(xor_loop_reply())

    # Every item has the same two long sub-items: the REPEATS-th item writes them the REPEATS-th time.
    assert f"\n{REPEATS}. **Combining" in shown  # not before they have been written REPEATS times
    assert f"\n{REPEATS + 1}. " not in shown  # and at once after: not 22 items, to the token cap


def test_numbered_steps_with_different_text_are_not_a_loop() -> None:
    places = ["on the bench", "in the bowl", "under a towel", "by the oven", "in the fridge"] * 3
    steps = "".join(
        f"{n}. Fold the dough {n} times, then rest it for {10 * n} minutes {where}.\n"
        for n, where in enumerate(places, 1)
    )
    beds = "".join(f"{n}. Water the tomatoes in bed {n} before nine in the morning.\n" for n in range(1, 15))
    assert streamed_until_stopped(steps) == steps
    assert streamed_until_stopped(beds) == beds


def test_rows_of_numbers_are_data_not_a_loop() -> None:
    run_log = "| Date | Distance |\n| --- | --- |\n" + "".join(
        f"| 2024-01-0{day} | 5.{day} km |\n" for day in range(1, 10)
    )
    prices = "".join(f"- 202{year}: 1{year}.50 EUR per kilo of rye flour\n" for year in range(10))
    counted = "".join(f"Lap {lap}: 400 m in 9{lap} seconds, heart rate 15{lap}.\n" for lap in range(10))
    numbered_runs = "".join(f"{day}. 2024-01-0{day}: 5.{day} km, easy pace\n" for day in range(1, 10))
    for data in (run_log, prices, counted, numbered_runs):
        assert streamed_until_stopped(data) == data
        assert not ends_in_a_loop(data)


def rrf_loop_reply() -> str:
    """Return Qwen2.5-Coder 0.5B's reply alternating two long list items, then repeating one (recorded, sample_vault).

    Asked which RRF constants were tried: no stretch of MAX_PERIOD characters or less repeated until item 10.
    """
    k10 = (
        "k = 10: The authors picked it in a pilot study, and found results were not sensitive to it. The constant "
        "damps the advantage of the very top ranks, so a document that is 3rd in both lists beats one that is 1st "
        "in one list and absent from the other."
    )
    k100 = (
        "k = 100: The constant damps the advantage of the very top ranks, so a document that is 3rd in both lists "
        "beats one that is 1st in one list and absent from the other."
    )
    items = [k10, k100, k10, k100, k10, k100, k10, k10, k10, k10, k100, k10]
    intro = "The constant k used for reciprocal rank fusion is 60. The other values were tried as follows:\n\n"
    return intro + "\n\n".join(f"{number}. {item}" for number, item in enumerate(items, 1)) + "\n"


def test_a_long_line_written_over_and_over_is_a_loop_even_when_other_lines_come_between() -> None:
    shown = streamed_until_stopped(rrf_loop_reply())

    assert "\n7. k = 10:" in shown  # item 7 is the fourth "k = 10" item
    assert "\n8. " not in shown  # stopped there, not at item 10 or the token cap


def test_short_lines_that_recur_and_a_long_line_said_thrice_are_not_a_loop() -> None:
    weeks = "".join(
        f"## Week {week}\n- [ ] Water the tomatoes\n- [x] Turn the compost\n| Mon | easy | 5 km |\n"
        for week in range(9)
    )
    summary = "The loaf rests for 14 hours in the fridge at 4 °C, covered, before it is baked in the Dutch oven."
    recap = f"{summary}\n\nThen it bakes.\n\n{summary}\n\nIn short:\n\n{summary}\n"
    for reply in (weeks, recap):
        assert streamed_until_stopped(reply) == reply


def test_long_lines_recurring_in_code_blocks_are_not_a_loop() -> None:
    comment = "# For debug/explanatory purposes, show the source of the Include as a group name in the results"
    queries = ("not done", "done today", "due before tomorrow", "has start date", "is recurring")
    reply = "Each query of the note:\n\n" + "".join(f"```tasks\n{comment}\n{query}\n```\n\n" for query in queries)
    assert streamed_until_stopped(reply) == reply
