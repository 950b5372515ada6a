"""The prompt's own "Question: …" line, which small models repeat before they answer, kept from the user.

The latest message reaches the model as "Question: <what the user asked>" (agent/prompts.py). Qwen2.5-Coder 0.5B
sometimes answers with that line, then "Answer: 45 minutes": the user sees their question quoted back and a label.
A reply's opening line that is the prompt's label and the question asked is dropped, and an "Answer:" label after
it. A line that is another question ("Question: What year was the abbey founded?" in a quiz made from the notes)
stays. Only the reply's start is held, and only while it may still be one of them. The parts of a question asking
two things, listed for the model, are kept from the user the same way (`PartEchoTrim`).
"""

from __future__ import annotations

import re

from agent.prompts import QUESTION_LABEL, REQUEST_LABEL

ECHOED = tuple(f"{label.casefold()}:" for label in (QUESTION_LABEL, REQUEST_LABEL))
ANSWER_LABEL = "answer:"
MAX_HELD = 1_000  # an opening line longer than this is let through rather than held any longer
_SPACES = re.compile(r"\s+")
_EDGES = "\"'*_`.?!:;, \r\u201c\u201d"
_MARKUP = "*_ \t"  # emphasis around a label


class EchoTrim:
    """Feed a reply's text as it streams; get back what to show, without the echoed question and its answer label."""

    def __init__(self, asked: str) -> None:
        self._asked = _comparable(asked)
        self._held = ""
        self._fed = ""  # all of the reply so far: shown whole when it turns out to be nothing but the echo
        self._is_done = not self._asked  # nothing asked: nothing can be echoed
        self._has_dropped = False  # the question line is gone; an "Answer:" label may follow

    def feed(self, text: str) -> str:
        """Return the part of `text` (with what was held) that can be shown now."""
        if self._is_done:
            return text
        self._held += text
        self._fed += text
        return self._release(is_final=False)

    def finish(self) -> str:
        """Return whatever is still held at the reply's end."""
        return "" if self._is_done else self._release(is_final=True)

    def _release(self, *, is_final: bool) -> str:
        opening = self._held.lstrip()
        bare = opening.lstrip(_MARKUP)  # "**Question:** …"
        folded = bare.casefold()
        labels = (ANSWER_LABEL,) if self._has_dropped else ECHOED
        is_short = len(opening) < MAX_HELD
        if not is_final and is_short and any(label.startswith(folded) for label in labels):
            return ""  # still only the start of a label (or nothing but blanks)
        if self._has_dropped:
            if folded.startswith(ANSWER_LABEL):
                answer = bare[len(ANSWER_LABEL) :].lstrip(_MARKUP + "\r\n")
                if not answer and not is_final:
                    return ""  # the answer after the label has not come yet
                return self._done(answer or self._fed)  # a label and nothing after it: show what was said
            return self._done(opening)
        if folded.startswith(ECHOED):
            line, newline, rest = opening.partition("\n")
            if not newline or not rest.strip():
                if not is_final and is_short:
                    return ""  # the line is not whole yet, or nothing follows it yet
                return self._done(self._fed)  # the echo is all there is: better shown than an empty answer
            if _comparable(line.split(":", 1)[1]).startswith(self._asked):  # "… (about: …)" after "Tell me more"
                self._has_dropped = True
                self._held = rest
                return self._release(is_final=is_final)
        return self._done(self._held)

    def _done(self, text: str) -> str:
        self._is_done = True
        self._held = ""
        return text


def _comparable(text: str) -> str:
    return _SPACES.sub(" ", text).strip(_EDGES).casefold()


# A list marker and emphasis before a line's text: "1. ", "- ", "2) **".
_LINE_MARKER = re.compile(r"(?P<item>[ \t]*(?:(?:\d+[.)]|[-*+])[ \t]+)?)(?:\*\*)?")
_MARKER_START = re.compile(r"[ \t]*(?:\d+[.)]?|[-*+])?[ \t]*\**")  # "1", "1.", "- *": a marker may still come
_LINE = re.compile(r".*?(?:\n|$)", re.DOTALL)  # a piece of text up to and with its line break
_AFTER_PART = "*: \t"  # what may close an echoed part before its answer: "**", ":"


class PartEchoTrim:
    """Feed a reply's text as it streams; get back what to show, without the question's parts copied before answers.

    A question asking two things reaches the model with its parts listed under "Answer both parts:" ("1. On which port
    …?", agent/prompts.py), and the 0.5B copied them into its answer: "1. On which port does the librarian API listen
    on kestrel? 8765". A line opening on a part with its answer after it on the same line is shown without the part
    ("1. 8765"); a part alone on its line is a heading the 1.5B writes over its answer ("1. **How much?**"), and stays.
    Only a line's start is held, and only while it may still be a part.
    """

    def __init__(self, parts: tuple[str, ...]) -> None:
        self._parts = tuple(part.casefold() for part in parts)
        self._held = ""
        self._at_line_start = True

    def feed(self, text: str) -> str:
        """Return the part of `text` (with what was held) that can be shown now."""
        if not self._parts:
            return text
        shown = []
        for piece in _LINE.findall(text):
            if not self._at_line_start:
                shown.append(piece)
                self._at_line_start = piece.endswith("\n")
                continue
            self._held += piece
            shown.append(self._release(is_final=False))
        return "".join(shown)

    def finish(self) -> str:
        """Return whatever is still held at the reply's end."""
        return self._release(is_final=True) if self._held else ""

    def _release(self, *, is_final: bool) -> str:
        held = self._held
        is_whole_line = "\n" in held
        if not is_final and not is_whole_line and _MARKER_START.fullmatch(held):
            return ""
        marker = _LINE_MARKER.match(held)
        item, start = (marker.end("item"), marker.end()) if marker else (0, 0)
        rest = held[start:]
        folded = rest.casefold()
        for part in self._parts:
            if folded.startswith(part):
                answer = rest[len(part) :].lstrip(_AFTER_PART)
                if not answer and not is_final:
                    return ""  # what follows the part has not come yet
                if answer and not answer.startswith(("\n", "\r")):
                    return self._shown(held[:item] + answer)  # the answer on the part's line
                break  # a heading, or the part is all there is: shown as written
            if part.startswith(folded) and not is_final and not is_whole_line:
                return ""  # may still be a part
        return self._shown(held)

    def _shown(self, text: str) -> str:
        self._held = ""
        self._at_line_start = text.endswith("\n")
        return text
