"""Questions about the vault's links and tags ("Which notes link to Books?", "Which notes are tagged clippings?").

What links to a note, and which notes carry a tag, are facts of the link graph and the tags, not of any passage a
search finds: asked "Which notes link to Books?" over kepano-obsidian, the 0.5B wrote the links of its passages
run together and repeated "[[Book Template]]" until it was cut off; asked how many notes are tagged clippings, it
refused; asked which tags it uses most, it named words of its passages. Such a question is answered by code from
the vault (agent/tools/vault_lists.py); this module only reads what the question asks: the backlinks or the links of
a note it names, the notes of a tag, or the tags in use. The note's name is resolved against the vault by the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

_END = r"\s*[?.!]*\s*$"
_NAME = r"(?P<name>\S.{0,150}?)"
# The notes linking to one: "Which notes link to Books?", "What links to [[Books]]?", "Show the backlinks of Books",
# "How many notes link to the Books note?", "Welche Notizen verlinken auf Books?".
_BACKLINKS = re.compile(
    rf"^\W*(?:(?:which|what)\s+(?:other\s+)?(?:notes?|pages?|files?)\s+(?:links?|points?|refers?|are\s+linking)\s+to"
    rf"|what\s+links\s+to|how\s+many\s+(?:other\s+)?(?:notes?|pages?|files?)\s+(?:link|point|refer)\s+to"
    rf"|(?:(?:please\s+)?(?:show|list|give|find|get)(?:\s+me)?\s+)?(?:(?:all|what\s+are)\s+)?(?:the\s+|my\s+)?"
    rf"(?:backlinks|incoming\s+links)\s+(?:of|for|to|into)"
    rf"|(?:(?:please\s+)?(?:show|list|give|find|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+|my\s+)?(?:notes?|pages?)"
    rf"\s+(?:that\s+)?(?:link|linking|point|pointing)\s+to"
    rf"|welche\s+(?:notizen|seiten)\s+(?:verlinken|verweisen)\s+(?:auf|zu))\s+{_NAME}{_END}",
    re.IGNORECASE,
)
# The links of one: "What does Books link to?", "Which notes does Kevin Kelly link to?", "List the links in Books".
_OUTGOING = re.compile(
    rf"^\W*(?:(?:what|which)\s+(?:notes?\s+|pages?\s+)?does\s+{_NAME}\s+link\s+to{_END}"
    rf"|(?:(?:please\s+)?(?:show|list|give|get)(?:\s+me)?\s+)(?:all\s+)?(?:the\s+)?(?:links|outgoing\s+links)"
    rf"\s+(?:in|of|from)\s+{_NAME.replace('name', 'name2')}{_END})",
    re.IGNORECASE,
)
# Notes of a tag: "Which notes are tagged clippings?", "How many notes have the tag #evergreen?", "List the notes
# with #events", "Welche Notizen haben den Tag #reise?". The question asks for notes (not "what is tagged …
# about"), and names the tag after "tagged", "the tag" or as "#tag".
_ASKS_NOTES = re.compile(
    r"^\W*(?:(?:which|what|how\s+many)\s+(?:of\s+my\s+)?(?:notes?|pages?|files?)|(?:please\s+)?(?:list|show|give|find"
    r"|get)(?:\s+me)?\s+(?:all\s+)?(?:the\s+|my\s+)?(?:notes?|pages?|files?)|are\s+there\s+(?:any\s+)?(?:notes?|pages?)"
    r"|welche\s+(?:notizen|seiten)|wie\s+viele\s+(?:notizen|seiten))\b",
    re.IGNORECASE,
)
_TAG_NAMED = re.compile(
    r"\b(?:tagged(?:\s+(?:with|as))?|with\s+(?:the\s+)?tag|(?:has|have|having|carry|carrying|use|using|with)"
    r"\s+(?:the\s+)?tag|(?:mit\s+dem|den|das)\s+tag|getaggt(?:\s+mit)?)\s+#?(?P<tag>[^\s#,;!?\"'`]+)"
    r"|(?<![\w#&])#(?P<hashtag>[^\s#,;!?\"'`\]\[]+)",
    re.IGNORECASE,
)
# The tags in use: "What tags do I use most?", "List my tags", "Which tags are in my vault?", "How many tags …".
_TAG_COUNTS = re.compile(
    r"^\W*(?:(?:what|which)\s+(?:are\s+)?(?:(?:the|my)\s+)?(?:most\s+(?:used|common|frequent|popular)\s+)?tags\b"
    r"(?!\s+(?:does|do|did|is|are|has|have)\s+(?!i\b|we\b|my\b|the\s+vault\b|in\b|there\b|used\b)\S)"
    r"|(?:please\s+)?(?:list|show|give|get)(?:\s+me)?\s+(?:all\s+)?(?:(?:the|my)\s+)?(?:most\s+used\s+)?tags\b"
    r"|how\s+many\s+(?:different\s+)?tags\b|welche\s+tags\b)",
    re.IGNORECASE,
)
_CLEAN_NAME = re.compile(r"^(?:the|my|our)\s+|\s+(?:note|page|file)$", re.IGNORECASE)

VaultAskKind = Literal["backlinks", "outgoing", "tagged", "tags"]


@dataclass(frozen=True, slots=True)
class VaultAsk:
    """What a question asks of the vault's links or tags.

    The notes linking to `name` (backlinks), its links (outgoing), the notes of a `tag` (tagged), or the tags in use.
    """

    kind: VaultAskKind
    name: str = ""  # the note named, as written ("Books", "[[Books]]"), for backlinks and outgoing
    tag: str = ""  # without "#", for tagged


def vault_ask(question: str) -> VaultAsk | None:
    """Return what `question` asks of the vault's links or tags, or None when it asks neither."""
    if (found := _BACKLINKS.match(question)) is not None:
        return VaultAsk("backlinks", name=note_name(found["name"]))
    if (found := _OUTGOING.match(question)) is not None:
        return VaultAsk("outgoing", name=note_name(found["name"] or found["name2"]))
    if _TAG_COUNTS.match(question):
        return VaultAsk("tags")
    if _ASKS_NOTES.match(question) and (tag := _TAG_NAMED.search(question)) is not None:
        return VaultAsk("tagged", tag=(tag["tag"] or tag["hashtag"]).rstrip(".:").lstrip("#"))
    return None


def note_name(written: str) -> str:
    """Return a note's name as a question writes it, without "the", "my", " note" and quotes: "Books"."""
    name = written.strip().strip("\"'“”‘’«»").strip()
    while (cleaner := _CLEAN_NAME.sub("", name).strip()) != name:
        name = cleaner
    return name
