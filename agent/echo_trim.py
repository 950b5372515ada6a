"""The prompt's own "Question: …" line, which small models repeat before they answer, kept from the user.

The latest message reaches the model as "Question: <what the user asked>" (agent/prompts.py). Qwen2.5-Coder 0.5B
sometimes answers with that line, then "Answer: 45 minutes": the user sees their question quoted back
and a label. A reply's opening line that starts with the prompt's label is dropped, and an "Answer:" label before
the answer too. Only the reply's start is held, and only while it may still be one of them.
"""

from __future__ import annotations

ECHOED = ("question:", "request:")  # the labels agent.prompts puts before the latest message
ANSWER_LABEL = "answer:"
MAX_HELD = 1_000  # an echoed line longer than this is let through rather than held any longer


class EchoTrim:
    """Feed a reply's text as it streams; get back what to show, without an echoed question line or answer label."""

    def __init__(self) -> None:
        self._held = ""
        self._is_done = False
        self._has_dropped = False  # the question line is gone; an "Answer:" label may follow

    def feed(self, text: str) -> str:
        """Return the part of `text` (with what was held) that can be shown now."""
        if self._is_done:
            return text
        self._held += text
        return self._release(is_final=False)

    def finish(self) -> str:
        """Return whatever is still held at the reply's end."""
        return "" if self._is_done else self._release(is_final=True)

    def _release(self, *, is_final: bool) -> str:
        opening = self._held.lstrip()
        folded = opening.casefold()
        labels = (ANSWER_LABEL,) if self._has_dropped else (*ECHOED, ANSWER_LABEL)
        if not is_final and len(opening) < MAX_HELD and any(label.startswith(folded) for label in labels):
            return ""  # still only the start of a label (or nothing but blanks)
        if not self._has_dropped and folded.startswith(ECHOED):
            line_end = opening.find("\n")
            if line_end >= 0 and opening[line_end:].strip():
                self._has_dropped = True
                self._held = opening[line_end + 1 :]
                return self._release(is_final=is_final)
            if not is_final and len(opening) < MAX_HELD:
                return ""  # the echoed line is not whole yet
            return self._done(self._held)  # the echo is all there is: better shown than an empty answer
        if folded.startswith(ANSWER_LABEL):
            return self._done(opening[len(ANSWER_LABEL) :].lstrip())
        return self._done(opening if self._has_dropped else self._held)

    def _done(self, text: str) -> str:
        self._is_done = True
        self._held = ""
        return text
