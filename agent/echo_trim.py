"""The prompt's own "Question: …" line, which small models repeat before they answer, kept from the user.

The latest message reaches the model as "Question: <what the user asked>" (agent/prompts.py). Qwen2.5-Coder 0.5B
sometimes answers with that line, then "Answer: 45 minutes": the user sees their question quoted back and a label.
A reply's opening line that is the prompt's label and the question asked is dropped, and an "Answer:" label after
it. A line that is another question ("Question: What year was the abbey founded?" in a quiz made from the notes)
stays. Only the reply's start is held, and only while it may still be one of them.
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
