"""A reasoning model's thinking is no part of its answer: the `<think>…</think>` block it opens with is dropped.

Reasoning models (Qwen3, DeepSeek-R1 and its distills, QwQ, Phi-4-reasoning) think before they answer. A server that
parses their thinking sends it apart (`reasoning_content`, which the wire reader ignores); one that does not
(llama.cpp with `--reasoning-format none`, older Ollama and LM Studio builds, many proxies) sends it as content,
opening the reply. Shown, a user reads the model's musings as the answer; checked, the answer check judges them
instead of the answer and withholds it; kept, they reach the model again with the conversation.
"""

from __future__ import annotations

import re

_OPENERS = {"<think>": "</think>", "<thinking>": "</thinking>"}
THINKING_BLOCK = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL)  # anywhere in a reply, closed
_LEADING_BLOCK = re.compile(r"\s*<(think|thinking)>.*?(?:</\1>|\Z)\s*", re.DOTALL)  # opening it, closed or not


def without_thinking(text: str) -> str:
    """Return a whole reply without the thinking block it opens with (all of it, when the block never closes)."""
    match = _LEADING_BLOCK.match(text)
    return text[match.end() :] if match else text


class ThinkingFilter:
    """Drop the thinking block a streamed reply opens with, whichever deltas its tags are split over."""

    def __init__(self) -> None:
        self._held = ""  # text that may still turn out to be (part of) an opening or closing tag
        self._closer: str | None = None  # the tag that ends the block being read
        self._is_answer = False  # past the block (or there was none): text passes
        self._is_after_block = False  # the blank lines between the block and the answer are dropped too

    def feed(self, text: str) -> str:
        """Return the part of `text` that belongs to the answer ("" while the block, or a possible tag, is read)."""
        if self._is_answer:
            return self._answer_text(text)
        self._held += text
        if self._closer is None:
            return self._read_opening()
        return self._read_block()

    def flush(self) -> str:
        """Return what is held at the end of the reply: a partial tag that was text after all (a block's: nothing)."""
        held, self._held = self._held, ""
        return "" if self._closer is not None or self._is_answer else held

    def _read_opening(self) -> str:
        start = self._held.lstrip()
        if not start:
            return ""
        for opener, closer in _OPENERS.items():
            if start.startswith(opener):
                self._closer, self._held = closer, start[len(opener) :]
                return self._read_block()
            if opener.startswith(start):
                return ""  # "<thi" so far: a tag or text, the next delta tells
        self._is_answer = True
        held, self._held = self._held, ""
        return held

    def _read_block(self) -> str:
        assert self._closer is not None
        end = self._held.find(self._closer)
        if end < 0:
            self._held = self._held[-(len(self._closer) - 1) :]  # only what may begin the closing tag
            return ""
        rest = self._held[end + len(self._closer) :]
        self._held, self._closer, self._is_answer, self._is_after_block = "", None, True, True
        return self._answer_text(rest)

    def _answer_text(self, text: str) -> str:
        if self._is_after_block:
            text = text.lstrip()
            self._is_after_block = not text
        return text
