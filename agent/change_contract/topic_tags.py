"""Tagging many notes at once ("tag my notes about Kyoto with #japan", "tag these #reading"): the notes found by code.

A change contract holds one change to one note, and the 0.5B asked to tag "my notes about Kyoto" picked one of the
three (`References/Kyoto.md`), the map of content of the same topic linked all three. Nothing here needs a model:
the tag is the request's, the notes are those a map of content on the topic would link (agent/change_contract/moc.py),
or, for "these" and "them", the notes the previous reply linked, and each gets its own proposal, shown with its diff
and applied together on "yes" (or one by one by id), each undoable.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from agent.change_contract.findings import Candidate
from agent.change_contract.moc import MAX_MOC_NOTES, TopicSearch, notes_on_topic, topic_stems
from agent.change_contract.operations import tool_call
from agent.change_contract.request_words import LINK
from agent.turn import WriteToolBox
from core.errors import AlreadyDone, AppError, TooManyWrites
from rag.notes.inline import is_valid_tag

MAX_TAGGED = MAX_MOC_NOTES  # notes one request tags; more are named as left out, as a map of content's are
_TAG = r"#?(?P<tag>[^\s#,;!?\"“”]+?)"
_ALL = r"(?:all\s+)?(?:of\s+)?"
_NOTES = r"(?:(?:my|the)\s+)?(?:\w+\s+)?notes"  # "my notes", "the travel notes"; "my note about X" is one note
_ON = r"\s+(?:about|on|for|regarding|concerning)\s+(?P<topic>[^\n#]+?)"
_THESE = r"(?P<these>these(?:\s+notes)?|those(?:\s+notes)?|them(?:\s+all)?|all\s+of\s+them|the\s+notes\s+above)"
_END = r"\s*[.!?]?\s*$"
_POLITE = r"^\W*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?"
# A list item opening with a link: "- [[2023 Japan Trip]]", "2. [[Fushimi Inari#Trips|Fushimi]] (3 links)".
_LISTED_LINK = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\*\*)?\[\[(?P<name>[^\]|#^\n]+)", re.MULTILINE)
_REQUESTS = (
    # "Tag my notes about Kyoto with #japan", "tag all notes on bread as baking"
    re.compile(rf"{_POLITE}tag\s+{_ALL}{_NOTES}{_ON}\s+(?:with|as)\s+(?:the\s+tag\s+)?{_TAG}{_END}", re.IGNORECASE),
    # "Add the tag #japan to my notes about Kyoto", "add #japan to all my notes on Kyoto"
    re.compile(
        rf"{_POLITE}add\s+(?:the\s+)?(?:tag\s+)?{_TAG}(?:\s+tag)?\s+to\s+{_ALL}{_NOTES}{_ON}{_END}", re.IGNORECASE
    ),
    # "Tag these #reading", "tag them with reading", "add the tag reading to these notes"
    re.compile(rf"{_POLITE}tag\s+{_THESE}\s+(?:with\s+|as\s+)?(?:the\s+tag\s+)?{_TAG}{_END}", re.IGNORECASE),
    re.compile(rf"{_POLITE}add\s+(?:the\s+)?(?:tag\s+)?{_TAG}(?:\s+tag)?\s+to\s+{_THESE}{_END}", re.IGNORECASE),
)


@dataclass(frozen=True, slots=True)
class TagRequest:
    """A tag for many notes: the notes on `topic`, or (`topic` "") the notes the previous reply linked."""

    tag: str
    topic: str = ""


def tag_request(request: str) -> TagRequest | None:
    """Return the tag and the notes `request` asks to tag, or None when it asks for something else."""
    for pattern in _REQUESTS:
        if (match := pattern.match(request.strip())) is None:
            continue
        tag = match["tag"].strip(".")
        topic = (match.groupdict().get("topic") or "").strip().strip("\"“”'")
        if topic and not topic_stems(topic):  # "my notes on it": no word to find notes by
            return None
        return TagRequest(tag, topic) if tag else None
    return None


async def propose_tags(
    asked: TagRequest,
    writes: WriteToolBox,
    *,
    search: Callable[[str], TopicSearch],
    previous: str,
) -> tuple[str, bool]:
    """Propose the tag for each note asked; return the reply text and whether anything was proposed.

    `previous`: the reply before this request, whose notes "these" are. `search(topic)` blocks; it runs in a thread.
    """
    if not is_valid_tag(asked.tag):  # checked once, not once a note
        return f"“{asked.tag}” is not a tag: a tag has at least one non-digit. Nothing was proposed.", False
    reader = writes.reader
    snapshot = await asyncio.to_thread(reader.snapshot)
    if asked.topic:
        members = await notes_on_topic(reader, snapshot, asked.topic, search)
        paths, total, which = members.paths, members.found, f"the notes on “{asked.topic}”"
    else:
        resolver = snapshot.resolver
        resolved = (resolver.resolve(name, source_path="").path for name in listed_notes(previous))
        listed = list(dict.fromkeys(path for path in resolved if path is not None and path in snapshot.notes))
        paths, total, which = tuple(listed[:MAX_TAGGED]), len(listed), "the notes of my previous reply"
    if not paths:
        where = f"no notes on “{asked.topic}” were found" if asked.topic else "my previous reply linked no notes"
        return (
            f"I could not tell which notes to tag: {where}. Nothing was proposed; name the notes or the topic.",
            False,
        )
    already: list[str] = []
    failed: list[str] = []
    left = 0
    for place, path in enumerate(paths):
        try:
            name, arguments = tool_call("add_tag", {"tag": asked.tag}, Candidate(path, label=path))
            await writes.run(name, json.dumps(arguments))
        except AlreadyDone:
            already.append(path)
        except TooManyWrites:  # MAX_WRITES_PER_TURN set below the notes found
            left = len(paths) - place
            break
        except AppError as exc:  # a note outside the allowed folders, a tag Obsidian would not read
            failed.append(f"`{path}`: {exc.message.rstrip('.')}")
    proposed = len(paths) - len(already) - len(failed) - left
    text = f"I read your request as: add the tag “{asked.tag}” to {which} ({_count(len(paths))}"
    text += f"; the best-ranked {len(paths)} of {total})" if total > len(paths) else ")"
    text += "." if proposed else ", but nothing was proposed."
    if already:
        text += f" Already tagged: {', '.join(f'`{path}`' for path in already)}."
    if failed:
        text += f" Not proposed: {'; '.join(failed)}."
    if left:
        text += (
            f" {_count(left)} more were not proposed: no more changes fit in one request (MAX_WRITES_PER_TURN); once "
            "these are settled, ask again."
        )
    return text, proposed > 0


def listed_notes(reply: str) -> list[str]:
    """Return the notes a reply lists, in order: each list item opening with a link, else every note it links.

    "2 notes link to [[Kyoto]]:" over "- [[2023 Japan Trip]]" and "- [[Fushimi Inari]]" lists two notes; "them" are
    those two, not Kyoto, which the line above them names.
    """
    items = [match["name"] for match in _LISTED_LINK.finditer(reply)]
    return list(dict.fromkeys(items or (match[1] for match in LINK.finditer(reply))))


def _count(notes: int) -> str:
    return f"{notes} note{'s' if notes != 1 else ''}"
