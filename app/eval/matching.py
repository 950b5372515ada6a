"""Reading a reply as the user sees it: normalised phrase matching, refusals, cited links and the sources list."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rag.answer.citations import SOURCES_BLOCK
from rag.answer.code_spans import code_ranges, is_inside
from rag.answer.context import opens_like_refusal
from rag.answer.quoted_evidence import CLOSEST_BLOCK, EVIDENCE_HEADING, QUOTED_LINE

# Numbers stay whole ("0.75", "1,184"), so "4" never matches inside "14"; %, currency and degree signs are words
# of their own, so "2 %" and "2%" are the same phrase and "2 %" is not just "2".
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W_]+|[%€$£°]")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_QUOTE_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
# A quoted sentence of a note with its link (the service's "Your notes say:" lines): `- "..." [[Note#Heading]]`.
_QUOTED_SENTENCE = re.compile(rf"^{QUOTED_LINE}$", re.MULTILINE)
# The sentences quoted under a refusal ("Closest in your notes:"): no answer's facts, no citations.
_CLOSEST_BLOCK = re.compile(rf"(?:^|\n\n){CLOSEST_BLOCK}")
# The lists the service appends (rag.answer.citations.sources_list): where the answer came from, or what was searched.
_SOURCES_BLOCK = re.compile(rf"(?:^|\n\n){SOURCES_BLOCK}")


def tokens(text: str) -> list[str]:
    """Return the words, numbers and unit signs of `text`, case-folded, with markup and punctuation dropped."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold())


def has_phrase(haystack: Sequence[str], phrase: str) -> bool:
    """Return True when the tokens of `phrase` occur in `haystack` (tokens) one after another."""
    wanted = tokens(phrase)
    if not wanted:
        return False
    width = len(wanted)
    first = wanted[0]
    return any(
        haystack[start] == first and list(haystack[start : start + width]) == wanted
        for start in range(len(haystack) - width + 1)
    )


def found_facts(text: str, facts: Sequence[Sequence[str]]) -> list[bool]:
    """Return, per fact, whether `text` says it in any of its accepted wordings."""
    haystack = tokens(text)
    return [any(has_phrase(haystack, wording) for wording in fact) for fact in facts]


def is_refusal_reply(body: str) -> bool:
    """Return True when a reply opens by saying the notes do not answer (the service's sentence or a paraphrase)."""
    return opens_like_refusal(body.translate(_QUOTES))


@dataclass(frozen=True, slots=True)
class WrittenLink:
    """A `[[link]]` of a reply: the note it names, the heading or block inside it, and its alias."""

    target: str
    subpath: tuple[str, ...]  # ("Final recipe",) or ("^race-goal",); nested headings keep their order
    alias: str | None

    @property
    def text(self) -> str:
        """Return the link as written, without its alias."""
        return "#".join([self.target, *self.subpath])


def cited_links(text: str) -> list[WrittenLink]:
    """Return the wikilinks of `text` outside code, in order (embeds count: the user sees them as links too)."""
    protected = code_ranges(text)
    links = []
    for match in _WIKILINK.finditer(text):
        if is_inside(protected, match.start(), match.end()):
            continue
        inner = match[1].replace("\\|", "|")
        link, bar, alias = inner.partition("|")
        target, *subpath = [part.strip() for part in link.split("#")]
        links.append(WrittenLink(target, tuple(part for part in subpath if part), alias if bar else None))
    return links


def without_quotes(text: str) -> str:
    """Return `text` without its quoted lines (`> ...`), each quoted sentence (`- "..." [[Note]]`) as its link.

    The links inside a passage or a sentence quoted are the note's, not citations.
    """
    return _QUOTED_SENTENCE.sub(r"- \g<link>", _QUOTE_LINE.sub("", text))


def without_links(text: str) -> str:
    """Return `text` with each wikilink replaced by its alias (or nothing), so a link's name is no fact."""
    return _WIKILINK.sub(lambda match: match[1].replace("\\|", "|").partition("|")[2], text)


def before_evidence(body: str) -> str:
    """Return a reply's own answer: its body up to "Your notes say:" (the notes' sentences quoted under it).

    A reply that is quotes alone (a quote-first answer whose words the quotes did not bear out) is its quotes.
    """
    start = body.find(EVIDENCE_HEADING)
    return body if start < 0 or not body[:start].strip() else body[:start]


def split_sources(reply: str) -> tuple[str, str]:
    """Return the reply without the list the service appends ("Sources:" or "Notes searched:"), and that list.

    The sentences quoted under a refusal go too: what the notes closest to the question say is neither what the
    reply answered nor a note it cited, so a refusal scores no fact or citation by them.
    """
    reply = _CLOSEST_BLOCK.sub("", reply)
    blocks = list(_SOURCES_BLOCK.finditer(reply))
    if not blocks:
        return reply, ""
    last = blocks[-1]
    return reply[: last.start()] + reply[last.end() :], last[0].strip()
