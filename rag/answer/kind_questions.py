"""Questions asking for the notes of a kind.

"Which books do I have?", "What are my open projects?", "What books am I reading right now?", "What board games do
I like?".

Only the words are read here: the kind ("books", "board games", as a vault files its notes by a category, a tag or
a folder) and which of them (all, the open ones, those in hand now, those liked). Whether the vault files any note
so is found by the agent (agent/tools/kind_lists.py); a kind it has not is the search's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# The notes of a kind, as a vault files them (a category, a tag, a folder): "List my books", "Show me my recipes",
# "What movies do I have?", "Which books do I have?" (kepano-obsidian: the 0.5B refused "Show me my recipes" with the
# tart recipe quoted, and answered "Which books do I have?" with "Kevin Kelly, Out of Control, Blade Runner").
# "What are my open projects?", "List my active projects", "Which projects are still open?": those of the kind whose
# status is not a closed one (sample_vault: the 0.5B answered "[Home](MOCs/Home.md) is the top-level map.").
# A kind is named in one word or two ("board games", "podcast episodes", as kepano-obsidian's categories are).
_OPEN = r"(?:open|active|current|ongoing|unfinished|running|in[-\s]progress)"
_KIND = r"[\w-]+(?:\s+[\w-]+)?"
_OF_KIND = re.compile(
    rf"^\W*(?:(?:please|can\s+you|could\s+you)\s+)*(?:(?:list|show)(?:\s+me)?(?:\s+all)?(?:\s+of)?\s+(?:my|the)"
    rf"(?:\s+(?P<open>{_OPEN}))?\s+(?P<of>{_KIND})|(?:what|which)(?:\s+(?P<open2>{_OPEN}))?\s+(?P<of2>{_KIND})\s+do\s+"
    rf"(?:i|we)\s+have|what\s+are\s+(?:all\s+)?my(?:\s+(?P<open3>{_OPEN}))?\s+(?P<of3>{_KIND})"
    rf"|which\s+(?P<of4>{_KIND})\s+are\s+(?:still\s+)?(?P<open4>{_OPEN}))\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# The ones liked: "What board games do I like?", "Which movies did I enjoy most?" (kepano-obsidian: the 0.5B named
# Catan and a video game). Ranked by the notes' `rating`.
_LIKED = re.compile(
    rf"^\W*(?:what|which)\s+(?P<of>{_KIND})\s+(?:do|did)\s+(?:i|we)\s+(?:like|love|enjoy)(?:\s+(?:the\s+)?(?:most|best))?"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# The notes of a kind in hand now: "What books am I reading right now?", "Which projects am I working on?", "What
# series am I currently watching?" (sample_vault: the 0.5B answered the first with the year's favourite, not the book
# marked in progress). "What books am I planning to read?" and "What recipes am I making for Christmas?" are none.
_NOW = r"(?:right\s+now|now|currently|at\s+the\s+moment|at\s+present|these\s+days)"
_OF_KIND_NOW = re.compile(
    rf"^\W*(?:so\s+|and\s+)?(?:what|which)\s+(?P<of>[\w-]+)\s+(?:am\s+i|are\s+we)\s+(?:{_NOW}\s+|still\s+)?"
    rf"(?P<verb>[a-z]+ing)(?:\s+on)?(?:\s+{_NOW})?\s*[?.!]*\s*$",
    re.IGNORECASE,
)
# Kinds that are no category: the vault's own nouns (notes, tags, folders), tasks, and words for time.
_NO_KIND = frozenset(
    {"notes", "note", "pages", "files", "tags", "folders", "links", "backlinks", "properties", "tasks", "todos",
     "to-dos", "days", "weeks", "months", "years", "options", "things", "thoughts", "ideas", "time", "else",
     "ones", "one"}
)  # fmt: skip

Which = Literal["", "open", "in progress", "liked"]


@dataclass(frozen=True, slots=True)
class KindAsk:
    """The kind of notes asked for (`of`, as written), which of them, and for those in hand the verb ("reading")."""

    of: str
    which: Which = ""
    verb: str = ""


def kind_asked(question: str) -> KindAsk | None:
    """Return the kind of notes `question` asks for and which of them, or None when it asks for none."""
    if (found := _OF_KIND_NOW.match(question)) is not None and not _names_no_kind(found["of"]):
        return KindAsk(found["of"], "in progress", found["verb"].casefold())
    if (found := _LIKED.match(question)) is not None and not _names_no_kind(found["of"]):
        return KindAsk(found["of"], "liked")
    if (found := _OF_KIND.match(question)) is not None:
        of = found["of"] or found["of2"] or found["of3"] or found["of4"]
        is_open = any(found[group] for group in ("open", "open2", "open3", "open4"))
        if not _names_no_kind(of):
            return KindAsk(of, "open" if is_open else "")
    return None


def _names_no_kind(words: str) -> bool:
    """Return True when `words` ("notes", "daily tasks") name no kind of note: its last word is the vault's own."""
    return words.split()[-1].casefold() in _NO_KIND
