"""Holding a reply's opening back until it is judged: released, withheld for good, or shown with its wrong parts told.

The judgement is agent/opening_check.py's; this is the holding: how much of a streamed reply is its opening, when a
part of it may be judged early, and what is shown in its place.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from rag.answer.context import REFUSAL

HOLD_CHARS = 80  # the opening judged: the first sentence ending past this many characters, or the whole reply
MAX_HOLD_CHARS = 400  # a longer run without a sentence end (a table, a code block) is judged as it stands
# A numbered answer is held for its last part to begin up to this many characters (some 3 s of the 1.5B's writing
# on two cores): a first part running on longer (the 1.5B's 600 characters on a rule of thumb) had held its first
# text back to MAX_HOLD_CHARS, 16.7 s, and is judged by its first sentence as before.
PARTS_HOLD_CHARS = 240
# Nor past a deadline: the time the model was given to read its passages (ANSWER_FIRST_TOKEN_SECONDS) and this many
# seconds more, from the model's call. A model reading slower than measured (the 0.5B's 93 tokens a second where the
# budget took 107) had eaten into the hold: "1. 42 cloves of 'Germidour' …", 240 characters of a first part, showed
# the first text of sample_vault's garlic question at 11.2 s. Past it, a numbered answer, or one to a yes-or-no
# question, is judged by its first sentence, as a long first part is.
PARTS_HOLD_SECONDS = 2.0
# A sentence ends at ".", "!" or "?" followed by a space or line end ("5.0 kg" goes on), or at a line break.
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")
EARLY_STEP_CHARS = 12  # an opening is judged early at most once per this many new characters (7 ms a time)
_FENCE_OPENING = re.compile(r"[ \t]*(?:```|~~~)[\w+-]*[ \t]*")  # a code block's first line, "   ```python"
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")  # "- Salt", "2. Mix", "  * nested"
_WORD_END = re.compile(r"[\s,;.!?)]$")  # a partial word ("wheat fl") is not judged
# Nor a number whose unit or decimals may follow: "Green Zebra gave the most per plant (3." was released early, its
# "1 kg each" unread, where the notes give 3.1 kg to Sungold (rag/answer/figure_owners.py).
_NUMBER_END = re.compile(r"\d[.,]?\s*$")


@dataclass(frozen=True, slots=True)
class KeptParts:
    """An answer with the parts the notes do not bear out told so in code's words, the parts borne out as written."""

    text: str
    is_last_kept: bool  # the last part stands as written: the model may go on writing it


class OpeningCheck:
    """Holds a reply's text until its opening is complete, then releases it or withholds it for good.

    `parts_kept`: for an answer in numbered parts that is not borne out, the answer with its wrong parts in code's
    words (None when no part stands). It is shown in place of the opening; when its last part is one of the wrong
    ones and the reply goes on, the reply is held to its end first (the last part's words are not written yet).
    """

    def __init__(
        self,
        is_borne_out: Callable[[str], bool],
        *,
        is_borne_out_so_far: Callable[[str], bool] | None = None,
        hold_chars: int = HOLD_CHARS,
        withheld_reply: str | Callable[[str], str] = REFUSAL,
        parts_kept: Callable[[str], KeptParts | None] | None = None,
        parts: int = 0,
        is_held_whole: bool = False,
    ) -> None:
        self._is_borne_out = is_borne_out
        # What the reply is when the opening is withheld, code's own words: fixed, or made from the opening withheld.
        self._reply_instead = withheld_reply
        # Whether a part of the opening, judged early, is borne out already: then it is released at once.
        self._is_borne_out_so_far = is_borne_out_so_far
        self._hold_chars = hold_chars
        self._parts_kept = parts_kept
        self._parts = parts  # of the question asked: a numbered answer's opening runs into its last part
        # A reply to a question asking only yes or no is short, and its reason may deny its "Yes" or "No" at the end:
        # it is judged whole (up to MAX_HOLD_CHARS).
        self._is_held_whole = is_held_whole
        self._is_held_to_end = False  # a wrong last part: judged again when the reply has ended
        self._deadline: float | None = None  # when the hold for a last part, or a whole reply, ends (`hold_until`)
        self._clock: Callable[[], float] = time.monotonic
        self._checked_at = 0  # the held length last judged early
        self._held = ""  # the reply so far, until the opening is decided
        self._is_decided = False
        self.is_withheld = False  # the opening was judged and the notes do not bear it out
        self.opening = ""  # what was judged, for the log
        self.kept = ""  # what was shown in place of an opening with wrong parts ("" for none)

    def hold_until(self, deadline: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        """Hold a numbered answer for its last part, or a yes-or-no reply whole, no later than `deadline` (`clock`).

        The opening's first sentence is still held to be judged past it: without it there is nothing to judge.
        """
        self._deadline = deadline
        self._clock = clock

    @property
    def withheld_reply(self) -> str:
        """Return what the reply is in place of the opening withheld (code's own words)."""
        instead = self._reply_instead
        return instead if isinstance(instead, str) else instead(self.opening)

    def feed(self, text: str) -> str:
        """Return what may be shown of the reply so far ("" while the opening is held or after it was withheld)."""
        if self._is_decided:
            return "" if self.is_withheld else text
        self._held += text
        held = self._held
        if self._is_held_to_end:
            return ""
        if len(held) >= MAX_HOLD_CHARS:
            return self._judge(held)
        is_late = self._deadline is not None and self._clock() >= self._deadline
        if self._is_held_whole and not is_late:
            return ""
        last_part = _last_part_at(held, self._parts)
        if last_part is None:
            if len(held) < PARTS_HOLD_CHARS and not is_late:
                return ""  # a numbered answer whose last part has not started: "1. …" alone says nothing of "2."
            last_part = 0  # a long first part: its opening is judged as any other's, not held to MAX_HOLD_CHARS
        if len(held) >= self._hold_chars and _has_opening(held, self._hold_chars, last_part):
            return self._judge(held)
        if self._is_borne_out_early(held):
            return self._decide(held, is_withheld=False)
        return ""

    def _is_borne_out_early(self, held: str) -> bool:
        """Return True when the opening so far, up to a word's end, is borne out by the notes already."""
        if (
            self._is_borne_out_so_far is None
            or len(held) - self._checked_at < EARLY_STEP_CHARS
            or not _WORD_END.search(held)
            or _NUMBER_END.search(held)
        ):
            return False
        self._checked_at = len(held)
        return self._is_borne_out_so_far(_without_open_link(held))

    def finish(self) -> str:
        """Return the rest held when the reply has ended: all of a short reply, once judged ("" when withheld)."""
        if self._is_decided:
            return ""
        return self._judge(self._held, is_final=True)

    def _judge(self, held: str, *, is_final: bool = False) -> str:
        judged = _without_open_link(held) or held
        if not held.strip() or self._is_borne_out(judged):
            return self._decide(held, is_withheld=False)
        kept = self._parts_kept(judged) if self._parts_kept is not None else None
        if kept is None:
            return self._decide(held, is_withheld=True)
        if not is_final and not kept.is_last_kept:
            self._is_held_to_end = True  # the wrong last part may go on: judged again on the whole reply
            return ""
        self._decide(held, is_withheld=False)
        self.kept = kept.text
        return kept.text + held[len(judged) :]  # a link still open ends the last part, which the model goes on writing

    def _decide(self, held: str, *, is_withheld: bool) -> str:
        """Settle the opening once: return it to show, or "" when withheld (all that follows is then withheld)."""
        self._is_decided = True
        self._held = ""
        self.opening = held
        self.is_withheld = is_withheld
        return "" if is_withheld else held


def _without_open_link(held: str) -> str:
    """Return `held` without a `[[link` it ends in that has not closed yet: its words are no answer's.

    The 1.5B answered a near miss with "[[Bike Repair Notes#For next time]]" again and again; judged at
    MAX_HOLD_CHARS inside the next copy, "[[Bike Repair" read as the answer's own words.
    """
    start = held.rfind("[[")
    return held[:start] if start >= 0 and "]]" not in held[start:] else held


def _last_part_at(held: str, parts: int) -> int | None:
    """Return where the opening's last sentence may end: after the start of a numbered answer's last part.

    0 for a reply that does not number its parts as the question asks them (or a question in one part); None while
    the last part has not started. The 0.5B's "1. The rule of thumb … is … Tokens/Second = Hardware FLOPS / FLOPs
    per Token" was borne out and released alone, and its "2. My laptop has 1058 GB of VRAM, which is greater than 1
    TB." shown unjudged (vaultofknowledge, stop 61): a numbered answer's opening is each part's first sentence.
    """
    if parts < 2 or not _FIRST_PART.match(held):
        return 0
    starts = [match.end() for match in _PART_START.finditer(held)]
    return starts[parts - 1] if len(starts) >= parts else None


_FIRST_PART = re.compile(r"\s*(?:\*\*)?1[.)]\s")  # "1. …", "**1.** …", "1) …"
# A part's number at a line's start, bold or not ("2. …", "**2.** …"): part_answers splits plain numbers only, so a
# bold-numbered reply is judged whole, its opening then running into its last part all the same.
_PART_START = re.compile(r"^(?:\*\*)?\d[.)](?:\*\*)?[ \t]", re.MULTILINE)


def _has_opening(held: str, hold_chars: int, start: int = 0) -> bool:
    """Return True when `held` has a sentence end past `hold_chars` (and past `start`, a last part's start).

    A line ending in a colon announces what follows ("you can use the following formula:"), and a question (a part
    of the one asked, written over its answer) or a code fence's first line says nothing yet: the opening runs on to
    the end of the next line, the formula or the answer; or, when a list follows, to the end of the list (up to
    MAX_HOLD_CHARS). One item says little of a list: the 0.5B listed the sourdough's ingredients for the plum cake,
    and its first item, "Wheat flour, type 550", is a row of the recipe.
    """
    for end in _SENTENCE_END.finditer(held, max(hold_chars - 1, start)):
        if end.group() == "?" or (end.group() == "\n" and held[: end.start()].rstrip().endswith((":", "?"))):
            continue  # a question says nothing: the 1.5B wrote each part asked over its answer ("1. What …?")
        if end.group() == "\n" and _FENCE_OPENING.fullmatch(held[held.rfind("\n", 0, end.start()) + 1 : end.start()]):
            continue  # "```" after "the formula:" says nothing yet: the formula is on the line after it
        if _is_in_announced_list(held, end.start()):
            continue
        return True
    return False


def _is_in_announced_list(held: str, at: int) -> bool:
    """Return True when position `at` is in a list item of a list that a line ending in a colon announced."""
    line_start = held.rfind("\n", 0, at) + 1
    # With the two characters from `at` on: the period of "1. " is the marker's, no sentence's end.
    if not _LIST_ITEM.match(held[line_start : at + 2]):
        return False
    lines = held[:line_start].rstrip().split("\n")
    while lines and (_LIST_ITEM.match(lines[-1]) or not lines[-1].strip()):
        lines.pop()
    return bool(lines) and lines[-1].rstrip().endswith(":")
