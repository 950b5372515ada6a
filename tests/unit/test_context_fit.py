"""Fitting a turn into the model's window: earlier turns go first, then passages, then tool results; rules stay."""

from __future__ import annotations

import asyncio
import logging
import math

import pytest

from agent.context_fit import CUT_NOTICE, ContextWindow, estimate_tokens, fit_messages, fit_to_window
from core.chat import ChatMessage, ToolCall, ToolSpec
from rag.answer.context import format_note

RULES = "You are Vault Librarian. Answer only from the notes." * 4


def passage(number: int, size: int = 600) -> str:
    return format_note(source=f"[[Note {number}]]", path=f"Note {number}.md", text=f"passage {number} " + "x" * size)


def system(passages: int) -> ChatMessage:
    notes = "\n\n".join(passage(n) for n in range(1, passages + 1))
    return ChatMessage("system", f"{RULES}\n\nNotes retrieved for the latest question:\n{notes}")


def history(exchanges: int, size: int = 300) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    for number in range(exchanges):
        messages += [ChatMessage("user", f"question {number} " + "q" * size), ChatMessage("assistant", "a" * size)]
    return messages


QUESTION = ChatMessage("user", "How long does the dough rest?")


def test_tokens_are_estimated_on_the_safe_side_for_latin_and_other_scripts() -> None:
    # Qwen2.5's tokenizer: about 3.5 characters a token for English notes, about one a character for Chinese.
    assert estimate_tokens("x" * 300) == 100
    assert estimate_tokens("麵包發酵" * 25) == 100
    assert estimate_tokens("Käsespätzle") == math.ceil(9 / 3) + 2


def test_a_turn_that_fits_is_sent_unchanged() -> None:
    messages = [system(3), *history(2), QUESTION]
    fitted = fit_to_window(messages, [], window=32_000)
    assert fitted.messages == messages and not fitted.is_cut


def test_earlier_turns_go_first_oldest_first_and_the_history_still_starts_with_a_user_message() -> None:
    messages = [system(3), *history(6, size=1_000), QUESTION]
    full = fit_to_window(messages, [], window=1_000_000).tokens
    assert full > 4096  # so the room kept for the answer is the whole 1024 tokens

    fitted = fit_to_window(messages, [], window=full + 1024 - 300)

    kept = fitted.messages
    assert kept[0] == messages[0] and kept[-1] == QUESTION
    assert kept[1].role == "user" and kept[1].content.startswith("question ")
    assert fitted.dropped_messages % 2 == 0 and fitted.dropped_messages > 0
    assert kept[1:-1] == messages[1 + fitted.dropped_messages : -1]  # the newest exchanges are the ones kept
    assert fitted.dropped_passages == 0 and fitted.tokens <= fitted.budget


def with_notes(question: ChatMessage, passages: int) -> ChatMessage:
    """Return the question as agent.prompts sends it: the turn's notes first."""
    notes = "\n\n".join(passage(n) for n in range(1, passages + 1))
    return ChatMessage("user", f"Notes for this message:\n{notes}\n\nQuestion: {question.content}")


@pytest.mark.parametrize("where", ["in the question's message", "in the system message"])
def test_passages_go_lowest_ranked_first_once_the_history_is_gone_and_the_best_one_stays(where: str) -> None:
    if where == "in the system message":
        messages = [system(6), *history(1), QUESTION]
    else:
        messages = [ChatMessage("system", RULES), *history(1), with_notes(QUESTION, 6)]

    fitted = fit_to_window(messages, [], window=1024 + 700)

    holder = fitted.messages[0 if where == "in the system message" else -1].content
    assert fitted.dropped_messages == 2 and fitted.dropped_passages >= 1
    assert "passage 1 " in holder and "passage 6 " not in holder
    assert holder.count("<note ") == 6 - fitted.dropped_passages
    assert fitted.messages[0].content.startswith(RULES) and fitted.messages[-1].content.endswith(QUESTION.content)


def test_tool_results_are_shortened_with_a_notice_when_passages_are_down_to_one() -> None:
    call = ChatMessage("assistant", "", tool_calls=(ToolCall("c1", "read_note", '{"note": "Garlic"}'),))
    result = ChatMessage("tool", "Germidour " + "g" * 9_000, tool_call_id="c1", name="read_note")
    question = with_notes(QUESTION, 2)
    messages = [ChatMessage("system", RULES), question, call, result]

    fitted = fit_to_window(messages, [], window=4096)

    shortened = fitted.messages[-1]
    assert fitted.dropped_passages == 1 and fitted.shortened_results == 1
    assert shortened.content.startswith("Germidour ") and shortened.content.endswith(CUT_NOTICE)
    assert fitted.tokens <= fitted.budget
    assert "passage 1 " in fitted.messages[1].content and fitted.messages[1].content.endswith(QUESTION.content)
    assert fitted.messages[2] == call


def test_tool_schemas_count_against_the_window() -> None:
    messages = [system(4), QUESTION]
    schema = {"type": "object", "properties": {"query": {"type": "string", "description": "d" * 3_000}}}
    tools = [ToolSpec("search_notes", "Search the notes.", schema)]

    without = fit_to_window(messages, [], window=2600)
    with_tools = fit_to_window(messages, tools, window=2600)

    assert with_tools.dropped_passages > without.dropped_passages


def test_rules_and_question_are_never_cut_even_when_they_alone_do_not_fit() -> None:
    huge = ChatMessage("user", "w" * 20_000)
    fitted = fit_to_window([system(1), huge], [], window=2048)
    assert fitted.messages[-1] == huge and fitted.messages[0].content.startswith(RULES)
    assert fitted.tokens > fitted.budget and "still" in fitted.describe()


class ReportingModel:
    def __init__(self, tokens: int | None) -> None:
        self.tokens = tokens
        self.asked = 0

    async def context_window(self) -> int | None:
        self.asked += 1
        return self.tokens


def test_the_window_is_asked_once_per_refresh_and_the_setting_fills_in_when_unknown() -> None:
    now = [0.0]
    model = ReportingModel(8192)
    window = ContextWindow(model, configured=4096, clock=lambda: now[0])

    assert asyncio.run(window.tokens()) == 8192
    now[0] = 100.0
    assert asyncio.run(window.tokens()) == 8192 and model.asked == 1
    now[0] = 400.0
    model.tokens = None
    assert asyncio.run(window.tokens()) == 4096 and model.asked == 2
    assert asyncio.run(ContextWindow(object(), configured=None).tokens()) is None


def test_a_cut_is_said_in_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    messages = [system(6), *history(3), QUESTION]
    with caplog.at_level(logging.WARNING, logger="agent.context_fit"):
        sent = asyncio.run(fit_messages(messages, [], ContextWindow(ReportingModel(2048), configured=None)))
        unchanged = asyncio.run(fit_messages(messages, [], ContextWindow(ReportingModel(None), configured=None)))

    assert len(sent) < len(messages) and unchanged == messages
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith("prompt fitted into the model's 2048-token context: 6 earlier message(s) left out")


class CountingModel(ReportingModel):
    """A model whose server counts tokens: a token per five characters, but one per "x" (passages here)."""

    def __init__(self, tokens: int) -> None:
        super().__init__(tokens)
        self.counted: list[int] = []

    async def count_tokens(self, text: str) -> int | None:
        count = text.count("x") + math.ceil(len(text.replace("x", "")) / 5)
        self.counted.append(count)
        return count


def test_a_count_by_the_server_relaxes_the_estimate_only_when_what_it_keeps_really_fits() -> None:
    prose = ChatMessage("user", "plain words of a pasted page. " * 300 + QUESTION.content)  # 9,000 characters
    cheap = [ChatMessage("system", RULES), ChatMessage("user", f"{passage(1, size=30)}\n\n{prose.content}")]
    # The best passage's "x"s count a token a character (worse than the estimate), the second's words fewer.
    words = format_note(source="[[Note 2]]", path="Note 2.md", text="word " * 600)
    notes = f"{RULES}\n\nNotes:\n{passage(1, size=1_200)}\n\n{words}"
    question = ChatMessage("user", "plain words of a pasted page. " * 200 + QUESTION.content)  # 6,000 characters
    costly = [ChatMessage("system", notes), question]

    kept = asyncio.run(fit_messages(cheap, [], ContextWindow(CountingModel(3_000), configured=None)))
    model = CountingModel(3_000)
    cut = asyncio.run(fit_messages(costly, [], ContextWindow(model, configured=None)))

    assert kept == cheap  # about 3,100 tokens estimated, 1,900 counted: the passage stays
    # The whole prompt's count lets the best passage stay by the estimate; counted again, it is over: both go.
    assert len(model.counted) == 2 and model.counted[1] > 2_250
    assert "<note" not in "".join(m.content for m in cut) and cut[-1] == question
