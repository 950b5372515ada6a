"""What a read tool hands back: delimited text for the model, capped in size, and the citation anchors it shows."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from rag.answer.reading_view import visible_text
from rag.answer.secrets import redact_secrets

DEFAULT_MAX_CHARS = 6_000
# Below this many characters left, a part is dropped whole rather than shown as a useless stub.
_MIN_PARTIAL_CHARS = 400


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """The text the model reads, and the citation anchors (`[[Note#Heading]]`) that text shows."""

    text: str
    anchors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Part:
    """One block of a tool's output: a body between optional open and close tags, and the anchors it shows."""

    body: str
    anchors: tuple[str, ...] = ()
    open_tag: str = ""
    close_tag: str = ""

    @property
    def text(self) -> str:
        """Return the block as the model reads it."""
        return "\n".join(piece for piece in (self.open_tag, self.body, self.close_tag) if piece)


@dataclass(frozen=True, slots=True)
class Reply:
    """A tool's whole output before capping; `more_hint` tells the model how to get what a cut left out."""

    parts: tuple[Part, ...]
    more_hint: str = ""


def reply(*parts: Part | str, more_hint: str = "") -> Reply:
    """Build a reply from parts; plain strings become parts without anchors."""
    return Reply(tuple(part if isinstance(part, Part) else Part(part) for part in parts), more_hint)


def _attribute(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def data_part(tag: str, body: str, anchors: tuple[str, ...] = (), **attributes: str) -> Part:
    """Wrap vault text as data between `<tag ...>` and `</tag>`, so the model never reads it as instructions.

    A closing tag inside the text is neutralised, so a note cannot end its own delimiter early.
    """
    extra = "".join(f' {name}="{_attribute(value)}"' for name, value in attributes.items())
    # Any spelling of an opening or closing tag (`</NOTE>`, `< /note>`, `<note`) is escaped, not only the exact one.
    opener = re.compile(rf"<(\s*/?\s*{re.escape(tag)})", re.IGNORECASE)
    return Part(opener.sub(r"&lt;\1", body), anchors, f"<{tag}{extra}>", f"</{tag}>")


def note_part(path: str, anchor: str, body: str, **attributes: str) -> Part:
    """Wrap note text as `<note path="..." source="[[...]]">text</note>`; `source` is the citation to use.

    Comments (`%%…%%`, `<!-- … -->`) are left out: what reading view hides is no text for the model.
    """
    return data_part("note", visible_text(body), (anchor,), path=path, source=anchor, **attributes)


def redact_reply(result: Reply) -> Reply:
    """Return the reply with credentials in every part masked (`rag.answer.secrets`); tags and anchors stay."""
    parts = tuple(replace(part, body=redact_secrets(part.body)) for part in result.parts)
    return Reply(parts, result.more_hint)


def _cut(body: str, budget: int) -> str:
    """Return the start of `body` within `budget` characters, cut at a line end when one is near."""
    if len(body) <= budget:
        return body
    head = body[:budget]
    newline = head.rfind("\n")
    return head[:newline] if newline > budget // 2 else head


def _visible(anchors: Iterable[str], text: str) -> tuple[str, ...]:
    return tuple(anchor for anchor in anchors if anchor in text)


def cap_reply(result: Reply, max_chars: int = DEFAULT_MAX_CHARS) -> ToolOutcome:
    """Join the parts within `max_chars`, cutting the part that overflows; keep only anchors still shown."""
    shown: list[str] = []
    anchors: list[str] = []
    used = 0
    omitted = 0
    total = sum(len(part.text) + 1 for part in result.parts)
    for index, part in enumerate(result.parts):
        text = part.text
        if used + len(text) <= max_chars:
            shown.append(text)
            anchors.extend(part.anchors)
            used += len(text) + 1
            continue
        room = max_chars - used - len(part.open_tag) - len(part.close_tag) - 2
        if room >= _MIN_PARTIAL_CHARS or not shown:
            body = _cut(part.body, max(room, 0))
            cut = Part(body, part.anchors, part.open_tag, part.close_tag).text
            shown.append(cut)
            anchors.extend(_visible(part.anchors, f"{part.open_tag}\n{body}"))
            used += len(cut) + 1
            omitted = len(result.parts) - index - 1
        else:
            omitted = len(result.parts) - index
        break
    text = "\n".join(shown)
    if used < total:
        text += _truncation_note(used, total, omitted, result.more_hint)
    return ToolOutcome(text, tuple(dict.fromkeys(anchors)))


def _truncation_note(used: int, total: int, omitted: int, hint: str) -> str:
    items = f"; {omitted} more item(s) not shown" if omitted else ""
    advice = f" {hint}" if hint else ""
    return f"\n… truncated: showed about {used:,} of {total:,} characters{items}.{advice}"


def format_value(value: object) -> str:
    """Return a property value as one line of text (lists joined by commas, objects as JSON)."""
    if isinstance(value, list):
        return ", ".join(format_value(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "(empty)"
    return str(value).lower() if isinstance(value, bool) else str(value)
