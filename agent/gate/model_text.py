"""What the edit gate does to the model's text above its own: close markup left open, neutralise imitations of it.

The gate's part of a reply (the warning, the proposals, how to answer) is composed by code. A manipulated model can
try to make it look different: hide it in markup it leaves open, or write above it a fake proposal, a fake notice
("Nothing has been written", "⚠ ...") or its own "Reply yes to confirm." In a turn that proposed changes, such
text is replaced by a notice saying so. Streaming is kept: text passes as it arrives, except from a word where an
imitation may begin until it is decided (a few words), and everything after an imitation until the turn ends,
because only then is it known whether the turn proposed anything (a reply without proposals is left as written).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FLAGS = re.IGNORECASE
_SPACE = r"[^\S\n]{1,3}"  # never a newline (an imitation is decided within its line), and bounded


@dataclass(frozen=True, slots=True)
class _Imitation:
    """One way to imitate the gate: the word it starts with, the whole pattern, and its longest span."""

    trigger: re.Pattern[str]
    pattern: re.Pattern[str]
    span: int


def _imitation(trigger: str, rest: str, span: int) -> _Imitation:
    return _Imitation(re.compile(trigger, _FLAGS), re.compile(trigger + rest, _FLAGS), span)


_APPROVAL_WORD = r"\b(?:yes|y|ok|okay|confirm|apply|approve|ja|jawohl|bestätigen|anwenden)\b"
IMITATIONS: tuple[_Imitation, ...] = (
    # "Reply yes to confirm", "just say yes", "type **yes delete**", "antworte mit ja"
    _imitation(
        r"\b(?:reply|respond|answer|type|say|antworte|antworten|schreib|schreibe|tippe|tippen|sag|sage)\b",
        r"[^\n]{0,40}?" + _APPROVAL_WORD,
        70,
    ),
    # "yes to apply", "ja zum Bestätigen"
    _imitation(
        r"\b(?:yes|ja)\b",
        rf"[^\n]{{0,12}}?\b(?:to|zum|um){_SPACE}(?:confirm|apply|approve|proceed|continue|bestätigen|anwenden)\b",
        50,
    ),
    _imitation(r"\b(?:please|bitte)\b", rf"{_SPACE}(?:confirm|bestätig)", 30),
    _imitation(r"\bconfirm\b", r"[^\S\n]{0,3}(?:\?|by\b|with\b|below\b)", 30),
    _imitation(r"\bbestätige\b", rf"{_SPACE}(?:bitte|mit)\b", 30),
    # a header like the gate's: "**Proposed change (nothing is written yet):**"
    _imitation(r"\b(?:proposed|vorgeschlagene)\b", rf"{_SPACE}(?:changes?|änderung(?:en)?)\b[^\n:]{{0,60}}:", 100),
    _imitation(
        r"\bnothing\b",
        rf"{_SPACE}(?:is|has{_SPACE}been|was|will{_SPACE}be){_SPACE}(?:written|applied|changed)\b",
        50,
    ),
    _imitation(
        r"\bnichts\b",
        rf"{_SPACE}(?:ist|wurde|wird){_SPACE}(?:\w{{1,12}}{_SPACE})?(?:geschrieben|angewendet|geändert)",
        50,
    ),
    _imitation(r"\bapplied\b", rf"{_SPACE}(?:without{_SPACE}asking|\d{{1,4}}{_SPACE}changes?:)", 35),
    _imitation(r"\byou\b", rf"{_SPACE}(?:did{_SPACE}not|didn't|didn’t){_SPACE}ask\b", 25),
    _imitation("⚠", "", 1),
    # a proposal entry like the gate's: "`3f2a91bc` · delete · ..."
    _imitation(r"`(?=[0-9a-f]|$)", r"[0-9a-f]{4,32}`[^\S\n]{0,3}·", 40),
)
_ANY_IMITATION = re.compile("|".join(f"(?:{item.pattern.pattern})" for item in IMITATIONS), _FLAGS)
NEUTRALISED = "[removed: the model's text here imitated this service's notices or asked you to confirm]"
_PARTIAL_WORD = re.compile(r"\w+$")


def neutralise_imitations(text: str) -> str:
    """Return `text` with each line's imitation of the gate, from where it begins to the line's end, replaced."""
    lines = []
    for line in text.split("\n"):
        match = _ANY_IMITATION.search(line)
        lines.append(line if match is None else line[: match.start()] + NEUTRALISED)
    return "\n".join(lines)


def _scan(line: str, start: int, *, is_complete: bool) -> tuple[int, bool]:
    """Return how far `line` may be passed on from `start`, and whether an imitation begins there.

    In an incomplete line, a word where an imitation may begin is held until the imitation is decided: matched, or
    too far behind for its pattern to match still. The trailing word is held too: "type" may become "typed".
    """
    limit = len(line)
    if not is_complete:
        partial = _PARTIAL_WORD.search(line, start)
        limit = partial.start() if partial else limit
    found = False
    for item in IMITATIONS:
        for trigger in item.trigger.finditer(line, start):
            at = trigger.start()
            if at >= limit:
                break
            match = item.pattern.match(line, at)
            if match is not None and (is_complete or match.end() < len(line)):
                limit, found = at, True
                break
            if not is_complete and len(line) - at <= item.span:
                limit = at  # not decided yet: held
                break
    return limit, found


class ImitationGuard:
    """Pass one turn's model text through; hold back what may imitate the gate until it is decided."""

    def __init__(self) -> None:
        self._buffer = ""  # not passed on yet, from the start of the current line
        self._sent = 0  # how much of the buffer's first line was passed on
        self._held: list[str] | None = None  # everything from an imitation on, until the turn ends
        self._shown: list[str] = []

    @property
    def shown(self) -> str:
        """Return all text passed on so far."""
        return "".join(self._shown)

    def feed(self, text: str) -> str:
        """Take the next piece of model text; return what may be shown now."""
        if self._held is not None:
            self._held.append(text)
            return ""
        self._buffer += text
        return self._release(is_finished=False)

    def finish(self, *, has_proposals: bool) -> str:
        """Return the rest of the turn's text, its imitations neutralised when the turn proposed changes."""
        rest = self._release(is_finished=True) if self._held is None else ""
        if self._held is not None:
            held = "".join(self._held)
            released = neutralise_imitations(held) if has_proposals else held
            self._shown.append(released)
            rest += released
        self._buffer, self._sent, self._held = "", 0, None
        return rest

    def _release(self, *, is_finished: bool) -> str:
        passed: list[str] = []
        while True:
            line, newline, rest = self._buffer.partition("\n")
            end, is_imitation = _scan(line, self._sent, is_complete=bool(newline) or is_finished)
            passed.append(line[self._sent : end])
            if is_imitation:
                self._held = [self._buffer[end:]]
                break
            if not newline:
                self._sent = end
                break
            passed.append(newline)
            self._buffer, self._sent = rest, 0
        text = "".join(passed)
        self._shown.append(text)
        return text


_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
# HTML elements a renderer (Obsidian, Open WebUI) may use to fold or hide what follows until they are closed.
_HIDING_TAGS = ("details", "summary", "div", "span", "p", "pre", "table", "textarea", "template", "noscript",
                "style", "script", "iframe", "object", "svg", "select", "font", "center")  # fmt: skip


def _prose_lines(text: str) -> tuple[list[str], str]:
    """Return the lines outside code fences, and the fence still open at the end ("" when none)."""
    fence = ""
    prose: list[str] = []
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence:
            closes = match is not None and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
            if closes and match is not None and not line[match.end() :].strip():
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        prose.append(line)
    return prose, fence


def markup_closers(text: str) -> str:
    """Return what closes markup the model left open and that would hide the proposals shown after its reply.

    A reply ending inside a code fence, an HTML comment (`<!--`), an Obsidian comment (`%%`), math (`$$`) or an
    open HTML element such as `<details>` or `<div style="display:none">` would render the code-composed diff
    below it as code or hide it, so a manipulated reply could show a harmless fake proposal while the real one
    stays invisible. Closing them keeps the real diff visible.
    """
    prose, fence = _prose_lines(text)
    closers = [f"\n{fence}"] if fence else []
    outside = "\n".join(prose)
    if outside.rfind("<!--") > outside.rfind("-->"):
        closers.append("-->")
    for marker in ("%%", "$$"):
        if outside.count(marker) % 2:
            closers.append(marker)
    lowered = outside.lower()
    open_tags = []
    for tag in _HIDING_TAGS:
        opened = len(re.findall(rf"<{tag}(?=[\s>/])", lowered))
        closed = len(re.findall(rf"</{tag}\s*>", lowered))
        open_tags.extend([(lowered.rfind(f"<{tag}"), tag)] * max(0, opened - closed))
    closers.extend(f"</{tag}>" for _, tag in sorted(open_tags, reverse=True))  # innermost first
    return "\n".join(closers)
