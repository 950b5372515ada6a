"""A reasoning model's opening `<think>` block is dropped from its reply, streamed in any pieces or whole."""

from __future__ import annotations

import pytest

from llm_client.replies.thinking import ThinkingFilter, without_thinking

REPLY = "<think>\nThe user wants the date. The note says 8 November.\n</think>\n\nOn 8 November 2026 [[Garlic]]."


def streamed(text: str, size: int) -> str:
    thinking = ThinkingFilter()
    shown = [thinking.feed(text[start : start + size]) for start in range(0, len(text), size)]
    return "".join(shown) + thinking.flush()


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_the_thinking_block_is_dropped_however_the_reply_is_split(size: int) -> None:
    assert streamed(REPLY, size) == "On 8 November 2026 [[Garlic]]."
    assert streamed(REPLY.replace("think>", "thinking>"), size) == "On 8 November 2026 [[Garlic]]."


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_reply_without_a_block_passes_as_written_even_when_it_starts_like_a_tag(size: int) -> None:
    for text in ["Planted on 8 November.", "  <b>42</b> cloves", "<thi", "", "The <think> tag later stays."]:
        assert streamed(text, size) == text


def test_a_block_that_never_closes_leaves_no_answer() -> None:
    assert streamed("<think>\nStill thinking when the tokens ran out", 5) == ""
    assert without_thinking("<think>\nStill thinking when the tokens ran out") == ""


def test_a_whole_reply_loses_its_opening_block_only() -> None:
    assert without_thinking(REPLY) == "On 8 November 2026 [[Garlic]]."
    assert without_thinking("Answer first. <think>not an opening block</think>") == (
        "Answer first. <think>not an opening block</think>"
    )
