"""Which tools a message calls for: a tool with cue words is offered only when the message holds one of them.

Every tool schema is read by the model on every call, and for a small local model the ten read tools were the
largest part of a plain question's prompt (issue 10). So search and read are always offered, and the tools for
one kind of thing (links, tags, tasks, daily notes ...) when the message names that kind. A tool that is not
offered still runs when the model calls it (a tool a question did not cue is harmless to run); offering is about
what the model reads. The offered tools keep their order, so prompts of different turns share their first tools
in the server's prompt cache.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from core.chat import ToolSpec

_WORD = re.compile(r"[\w#-]+")
# A day written as a date: "2026-11-05", "11/05".
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}\b")


class Cued(Protocol):
    """A tool with its cue words (empty: always offered)."""

    @property
    def name(self) -> str:
        """Return the tool's name."""
        ...

    @property
    def cues(self) -> tuple[str, ...]:
        """Return the words (or phrases) of a message that call for the tool."""
        ...


CuedT = TypeVar("CuedT", bound=Cued)


def message_words(message: str) -> frozenset[str]:
    """Return the words of `message`, lower-cased ("#tag" and "to-do" stay one word); a date counts as "date"."""
    words = set(_WORD.findall(message.casefold()))
    words.update(word.lstrip("#") for word in list(words) if word.startswith("#"))
    if any(word.startswith("#") for word in words):
        words.add("#")
    if _DATE.search(message):
        words.add("date")
    return frozenset(words)


def is_cued(cues: Iterable[str], message: str, words: frozenset[str] | None = None) -> bool:
    """Return True when `message` holds one of `cues`: a word, or a phrase of several words."""
    words = message_words(message) if words is None else words
    text = " ".join(message.casefold().split())
    return any((cue in words) if " " not in cue else (cue in text) for cue in cues)


def cued_specs(tools: Sequence[CuedT], specs: Sequence[ToolSpec], message: str | None) -> list[ToolSpec]:
    """Return the specs of the tools `message` calls for, in order (all of them when `message` is None)."""
    if message is None:
        return list(specs)
    words = message_words(message)
    offered = {tool.name for tool in tools if not tool.cues or is_cued(tool.cues, message, words)}
    return [spec for spec in specs if spec.name in offered]
