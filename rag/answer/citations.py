"""Citation checking: every `[[link]]` of an answer is kept, pointed at a heading that exists, or unlinked."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rag.answer.code_spans import code_ranges, is_inside
from rag.chunks.chunking import heading_link_text
from rag.notes.links import LinkResolver, heading_key

ChangeKind = Literal["rewritten", "note_only", "unlinked"]
Headings = Callable[[str], Sequence[str]]

_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")


@dataclass(frozen=True, slots=True)
class CitationChange:
    """One link of the answer that was not kept as written.

    `rewritten`: pointed at the canonical link of a note and heading that exist; `note_only`: the heading
    does not exist, so the link now opens the (retrieved) note; `unlinked`: the brackets were removed.
    """

    original: str  # as written, e.g. "[[sourdough#final Recipe|the recipe]]"
    replacement: str  # the new link, or the plain text left in its place
    kind: ChangeKind


@dataclass(frozen=True, slots=True)
class CitationReport:
    """The answer with its links fixed, what it now cites and what was changed."""

    text: str
    cited: tuple[str, ...]  # links of the fixed text without alias, in order of first use, each once
    changes: tuple[CitationChange, ...] = ()

    @property
    def fixed(self) -> tuple[CitationChange, ...]:
        """Return the links that were pointed somewhere else but are still links."""
        return tuple(change for change in self.changes if change.kind != "unlinked")

    @property
    def removed(self) -> tuple[CitationChange, ...]:
        """Return the links that became plain text."""
        return tuple(change for change in self.changes if change.kind == "unlinked")


@dataclass(frozen=True, slots=True)
class _Written:
    """A wikilink as the model wrote it."""

    link: str  # inside the brackets, without alias: "Note#Heading"
    alias: str | None
    pipe: str  # "|" or the table-escaped "\|"

    @property
    def target(self) -> str:
        return self.link.partition("#")[0].strip()

    @property
    def subpath(self) -> list[str]:
        return [part.strip() for part in self.link.partition("#")[2].split("#") if part.strip()]

    def as_link(self, anchor: str) -> str:
        return anchor if self.alias is None else f"{anchor[:-2]}{self.pipe}{self.alias}]]"

    def plain_text(self) -> str:
        # What Obsidian shows for the link: its alias, else "Note > Heading".
        return self.alias if self.alias is not None else " > ".join([self.target, *self.subpath]).strip(" >")


@dataclass(slots=True)
class _Checker:
    allowed: Collection[str]
    resolver: LinkResolver
    headings: Headings
    retrieved: dict[tuple[str, str], str] = field(default_factory=dict)  # (path, heading key) -> allowed anchor
    retrieved_paths: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for anchor in self.allowed:
            written = _parse(anchor[2:-2]) if anchor.startswith("[[") and anchor.endswith("]]") else None
            path = self.resolver.resolve(written.target, source_path="").path if written and written.target else None
            if written is None or path is None:
                continue
            if path not in self.retrieved_paths:
                self.retrieved_paths.append(path)
            if not _block_of(written):  # a block link is neither the note's nor a heading's canonical anchor
                heading = _heading_of(written)
                self.retrieved.setdefault((path, heading_key(heading) if heading else ""), anchor)

    def check(self, written: _Written) -> tuple[str, ChangeKind | None]:
        """Return the anchor (or plain text) for a written link and how it changed (None: kept)."""
        anchor = f"[[{written.link}]]"
        if anchor in self.allowed:
            return anchor, None
        candidates = self._candidates(written.target)
        if not candidates:
            return written.plain_text(), "unlinked"
        block = _block_id(written)
        if block is not None:
            for path in candidates:
                if f"^{block}" in self.headings(path):
                    block_anchor = f"[[{self.resolver.link_text_for(path)}#^{block}]]"
                    return block_anchor, None if block_anchor == anchor else "rewritten"
        heading = _heading_of(written)
        if heading is None and block is None:
            return self._note_anchor(candidates[0]), "rewritten"
        if heading is not None:
            for path in candidates:
                if found := self._heading_anchor(path, heading):
                    return found, "rewritten"
        retrieved = [path for path in candidates if path in self.retrieved_paths]
        if retrieved:
            return self._note_anchor(retrieved[0]), "note_only"
        return written.plain_text(), "unlinked"

    def _candidates(self, target: str) -> list[str]:
        if not target:
            return []  # [[#Heading]] names no note outside a note
        found = self.resolver.candidates(target, source_path="")
        return sorted(found, key=lambda path: path not in self.retrieved_paths)  # stable: retrieved first

    def _heading_anchor(self, path: str, heading: str) -> str | None:
        key = heading_key(heading)
        if (path, key) in self.retrieved:
            return self.retrieved[(path, key)]
        for real in self.headings(path):
            if heading_key(real) == key:
                return f"[[{self.resolver.link_text_for(path)}#{heading_link_text(real)}]]"
        return None

    def _note_anchor(self, path: str) -> str:
        return self.retrieved.get((path, "")) or f"[[{self.resolver.link_text_for(path)}]]"


def _parse(content: str) -> _Written:
    pipe = "\\|" if "\\|" in content else "|"
    link, separator, alias = content.replace("\\|", "|").partition("|")
    return _Written(html.unescape(link).strip(), alias if separator else None, pipe)


def note_path(resolver: LinkResolver, link: str) -> str | None:
    """Return the path of the note `link` ("[[Note#Heading|alias]]" or "Note") names, None when it names none."""
    target = note_of(link)
    return resolver.resolve(target, source_path="").path if target.strip() else None


def note_of(anchor: str) -> str:
    """Return the note a link names: "[[Garlic#Planting|when]]" -> "Garlic" (a table's escaped pipe too)."""
    inner = anchor.strip()
    if inner.startswith("[[") and inner.endswith("]]"):
        inner = inner[2:-2]
    return _parse(inner).target


def note_title(anchor: str) -> str:
    """Return the title of the note a link names, without its folders ("[[Books/Out of Control#Quotes]]")."""
    return note_of(anchor).rsplit("/", 1)[-1]


def heading_in(anchor: str) -> str:
    """Return what follows the note in a link, without alias: "[[Garlic#Planting|when]]" -> "Planting" ("" for none)."""
    return _parse(anchor.strip().removeprefix("[[").removesuffix("]]")).link.partition("#")[2]


def is_note_title(heading: str, note: str) -> bool:
    """Return True when `heading` is the title of `note` (a path or name): the heading a note's opening goes under."""
    return heading.casefold() == note.rsplit("/", 1)[-1].casefold()


def without_alias(anchor: str) -> str:
    """Return a link without its alias: "[[Garlic#Planting|when]]" -> "[[Garlic#Planting]]" (an escaped pipe too)."""
    inner = anchor.strip().removeprefix("[[").removesuffix("]]")
    return f"[[{_parse(inner).link}]]"


def _heading_of(written: _Written) -> str | None:
    # Nested subpaths ("H1#H2") name the innermost heading, as chunk anchors do.
    headings = [part for part in written.subpath if not part.startswith("^")]
    return headings[-1] if headings else None


def _block_of(written: _Written) -> bool:
    return any(part.startswith("^") for part in written.subpath)


def _block_id(written: _Written) -> str | None:
    return next((part[1:] for part in written.subpath if part.startswith("^") and len(part) > 1), None)


def verify_citations(
    answer: str, *, allowed: Collection[str], resolver: LinkResolver, headings: Headings
) -> CitationReport:
    """Check every `[[link]]` outside code against this turn's anchors and the vault, and fix the answer.

    Args:
        answer: the model's markdown answer.
        allowed: the anchors retrieved or read this turn ("[[Note#Heading]]"); these are kept as written.
        resolver: link resolution over the vault's current paths.
        headings: the heading texts of a note path, plus its block ids as "^id" ([] for a path it does not know).

    """
    checker = _Checker(allowed, resolver, headings)
    protected = code_ranges(answer)
    parts: list[str] = []
    cited: dict[str, None] = {}
    changes: list[CitationChange] = []
    pos = 0
    for match in _WIKILINK.finditer(answer):
        if is_inside(protected, match.start(), match.end()):
            continue
        written = _parse(match[2])
        anchor, kind = checker.check(written)
        replacement = written.as_link(anchor) if kind != "unlinked" else anchor
        if kind != "unlinked":
            cited.setdefault(anchor, None)
        if replacement != match[0]:
            changes.append(CitationChange(match[0], replacement, kind or "rewritten"))
        parts.append(answer[pos : match.start()])
        parts.append(replacement)
        pos = match.end()
    parts.append(answer[pos:])
    return CitationReport("".join(parts), tuple(cited), tuple(changes))


SOURCES_HEADING = "Sources:"
SEARCHED_HEADING = "Notes searched:"
# The list `sources_list` renders, as it reads in a reply a client sends back (a regular-expression source, for
# the patterns that cut it from history and find it in the eval).
SOURCES_BLOCK = rf"(?:{re.escape(SOURCES_HEADING)}|{re.escape(SEARCHED_HEADING)})\n(?:- \[\[[^\n]*(?:\n|$))+"


def sources_list(
    cited: Sequence[str], *, drawn_from: Sequence[str] = (), fallback: Sequence[str] = (), limit: int = 3
) -> str:
    """Return the markdown list of where an answer came from, each link once, in order.

    "Sources:" lists the answer's own (checked) citations or, when it cites nothing, `drawn_from`: the passages
    holding what it says (rag.answer.attribution). When neither has a link, "Notes searched:" lists the first
    `limit` distinct `fallback` anchors (the hits the answer was drawn from), so no note is passed off as the
    source of what it may not say. "" when there is nothing to list. Not for refusals.
    """
    sources = list(dict.fromkeys(cited)) or list(dict.fromkeys(drawn_from))
    heading, anchors = (
        (SOURCES_HEADING, sources) if sources else (SEARCHED_HEADING, list(dict.fromkeys(fallback))[:limit])
    )
    if not anchors:
        return ""
    return "\n".join([heading, *(f"- {anchor}" for anchor in anchors)])
