"""Where the last answer came from ("which note says that?"): told by code from the reply before, never searched.

Searched, the words "which note says that" find nothing the user meant (a tester got a refusal, or passages about
notes in general); asked, a small model names a note it did not read. What the earlier answer came from is already
written under it, by code: its "Your notes say:" quotes and its "Sources:" list (agent/answer_footer.py). This
repeats them, or says that the earlier reply came from no note, without a search or a model call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from rag.answer.citations import SEARCHED_HEADING, SOURCES_BLOCK, SOURCES_HEADING, without_alias
from rag.answer.context import opens_like_refusal
from rag.answer.passages import PASSAGE_HEAD
from rag.answer.quoted_evidence import EVIDENCE_BLOCK, EVIDENCE_HEADING, QUOTED_LINE
from rag.follow_up import MAX_CHAIN, Query, context_before
from rag.notes.inline import WIKILINK

# A question about where the reply before came from, and about nothing else: "Which note says that?" is one,
# "Which note says that the bike was serviced?" is a question for the notes.
_ASKS_FOR_SOURCES = re.compile(
    r"""^(?:(?:ok(?:ay)?|and|so|but|thanks|great|hm+)[,!.]?\s+)*
    (?:
        (?:which|what|in\ which|from\ which)\s+(?:notes?|sources?)
            (?:\s+(?:says?|said|is|was|did|does|mentions?|has|had|contains?|states?|are|were))?
            (?:\s+(?:that|this|it|so))?(?:\s+(?:come\s+)?(?:from|in))?
      | where\s+(?:did|do)\s+you\s+(?:get|find|read|see|have)\s+(?:that|this|it)(?:\s+from)?
      | where'd\s+you\s+(?:get|find|read|see)\s+(?:that|this|it)(?:\s+from)?
      | where\s+(?:does|did|do)\s+(?:that|this)\s+come\s+from
      | where\s+(?:is|was)\s+(?:that|this)\s+(?:from|written|said|stated)
      | where's\s+(?:that|this)\s+(?:from|written)
      | where\s+(?:does|do|did)\s+(?:it|my\s+notes?|the\s+notes?)\s+say\s+(?:that|this|so)
      | how\s+do\s+you\s+know(?:\s+(?:that|this))?
      | (?:what|which)(?:\s+(?:is|are|was|were)|'s)?\s+(?:the|your)\s+(?:sources?|references?|citations?)
            (?:\s+for\s+(?:that|this))?
      | (?:sources?|references?|citations?)
      | (?:can\s+you\s+)?(?:cite|show|give|list|name)\s+(?:me\s+)?(?:the|your)\s+(?:sources?|references?)
      | (?:welche|in\s+welcher|aus\s+welcher)\s+notiz(?:en)?(?:\s+(?:sagt|steht|stammt))?(?:\s+das)?
      | wo\s+steht\s+das
      | woher\s+(?:hast|weißt)\s+du\s+das
      | quellen?
    )(?:[,\s]+please)?[\s?.!]*$""",
    re.IGNORECASE | re.VERBOSE,
)
CAME_FROM = "My last answer came from these notes:"
FROM_NO_NOTE = "No note I read says what my last answer said, so it may not come from your notes."
REFUSED_BEFORE = "My last reply answered nothing from your notes: they did not cover that question."
NOTHING_CITED = "My last reply cited no note."
NO_ANSWER_BEFORE = "No answer came before this message in our conversation, so there is no note to name."


def asks_for_sources(question: str) -> bool:
    """Return True when `question` asks only where the reply before it came from ("which note says that?")."""
    return bool(_ASKS_FOR_SOURCES.match(question.strip().replace("\u2019", "'")))  # phones type "What’s"


def answer_before(turns: Sequence[tuple[str, str]]) -> str:
    """Return the last assistant reply of `turns` (role, text; this turn's message excluded) that answered something.

    A reply to "which note says that?" is skipped: asked again, it names the answer before it once more.
    """
    for index in range(len(turns) - 1, -1, -1):
        role, text = turns[index]
        if role != "assistant" or not text.strip():
            continue
        asked = next((t for r, t in reversed(turns[:index]) if r == "user" and t.strip()), "")
        if not asks_for_sources(asked):
            return text
    return ""


def earlier_context(texts: Sequence[str]) -> str:
    """Return what the latest of the user's messages `texts` leans on: the questions before it ("" for none).

    "Which note says that?" in between is no question a follow-up means; a follow-up before it brings the question
    it follows (`rag.follow_up.context_before`).
    """
    return context_before([text for text in texts[:-1] if not asks_for_sources(text)])


def questions_before(texts: Sequence[str]) -> list[str]:
    """Return the user's messages `texts` before the latest, oldest first (at most MAX_CHAIN of them)."""
    return list(texts[-MAX_CHAIN - 1 : -1])


def sources_reply(earlier: str, *, checked: Callable[[str], str | None] = lambda link: link) -> str:
    """Return the reply to "which note says that?" after the assistant's reply `earlier`, in code's words.

    The earlier reply's own "Your notes say:" quotes and "Sources:" list, as code wrote them under it; the passages
    of a reply without a model (their `N. [[link]] (path, lines …)` heads, not the links inside them); its
    "Notes searched:" list (no note held what it said) says so; a refusal came from no note. `checked` returns a
    link as it may be shown, or None when it names no note: a client sends the earlier reply back, and may have
    changed it.
    """
    if not earlier.strip():  # asked first: searched, "which note says that" found notes about notes
        return NO_ANSWER_BEFORE
    evidence = _last(EVIDENCE_BLOCK, earlier)
    listed = _last(SOURCES_BLOCK, earlier)
    quotes = [line[0] for line in re.finditer(QUOTED_LINE, evidence) if checked(line["link"].lstrip("!"))]
    quoted = "\n".join([EVIDENCE_HEADING, *quotes]) if quotes else ""
    links = _links(listed)
    if listed.startswith(SOURCES_HEADING):  # also under "The notes don't say when, but [[Garden Log]] …"
        return _came_from(quoted, links, checked)
    if opens_like_refusal(earlier):
        searched = _listed(SEARCHED_HEADING, links, checked)
        return f"{REFUSED_BEFORE}\n\n{searched}" if searched else REFUSED_BEFORE
    if listed:  # "Notes searched:": the answer holds nothing any passage it read holds
        searched = _listed(SEARCHED_HEADING, links, checked)
        return f"{FROM_NO_NOTE}\n\n{searched}" if searched else NOTHING_CITED
    # No list under it: the passages shown without a model, or the links it wrote (SHOW_SOURCES and SHOW_EVIDENCE
    # off).
    return _came_from(quoted, PASSAGE_HEAD.findall(earlier) or _links(earlier), checked)


def answered_from(earlier: str) -> list[str]:
    """Return the links to the notes the assistant's reply `earlier` answered from, as written under it ([] for none).

    Its "Sources:" list; without one, the passages shown without a model or the links it wrote. A refusal, and a reply
    listing only "Notes searched:" (no note held what it said), answered from no note.
    """
    listed = _last(SOURCES_BLOCK, earlier)
    if listed.startswith(SOURCES_HEADING):
        return _links(listed)
    if listed or opens_like_refusal(earlier):
        return []
    return list(dict.fromkeys(PASSAGE_HEAD.findall(earlier))) or _links(earlier)


def with_answer_notes(query: Query, earlier: str, note_path: Callable[[str], str | None]) -> Query:
    """Return a follow-up's `query` with the notes the reply `earlier` answered from (`note_path`: a link's note path).

    "Which one was the fastest?" reads them too (`Query.earlier_notes`); a question asked on its own does not.
    """
    if query.in_context is None:
        return query
    paths = (note_path(link) for link in answered_from(earlier))
    return replace(query, answered_from=tuple(dict.fromkeys(path for path in paths if path)))


def _came_from(quoted: str, links: Sequence[str], checked: Callable[[str], str | None]) -> str:
    sources = _listed(SOURCES_HEADING, links, checked)
    if not sources:
        return NOTHING_CITED
    return "\n\n".join(part for part in (CAME_FROM, quoted, sources) if part)


def _listed(heading: str, links: Sequence[str], checked: Callable[[str], str | None]) -> str:
    """Return `links` that name a note, as checked and each once, under `heading` ("" when none does)."""
    kept = list(dict.fromkeys(link for link in map(checked, links) if link))
    return "\n".join([heading, *(f"- {link}" for link in kept)]) if kept else ""


def _links(text: str) -> list[str]:
    """Return the [[links]] of `text` without their aliases, each once, in order."""
    return list(dict.fromkeys(without_alias(link[0].lstrip("!")) for link in WIKILINK.finditer(text)))


def _last(pattern: str, text: str) -> str:
    matches = list(re.finditer(pattern, text))
    return matches[-1][0].strip() if matches else ""
