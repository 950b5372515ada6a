"""Heading-aware chunking: cut a parsed note into chunks that fit the dense model's window with their breadcrumb.

A chunk never spans two sections. Small blocks of a section are packed together; a section over the window
is cut at blank lines, then lines, sentences, words and characters (see `rag.chunks.pieces`), and each next
chunk of it repeats up to `overlap_tokens` of the previous chunk's tail. Every chunk's `embed_text` is
counted with the real tokenizer before it is returned, so `count_tokens(chunk.embed_text) <= max_tokens`
always holds.

A note without any body text still yields one chunk (title, aliases, tags and headings), so every note can
be found by name.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import partial

from core.domain import Chunk, Note
from rag.chunks.link_targets import LinkTargets
from rag.chunks.pieces import Piece, split_piece, trailing_piece
from rag.chunks.sections import EmbeddedText, EmbedShower, section_pieces
from rag.chunks.token_budget import TokenCounter, is_surely_over, largest_within
from rag.notes.budget import NoteBudget

logger = logging.getLogger(__name__)

_UNLINKABLE = re.compile(r"%%|[#|^:\[\]]")
_SAYS_SOMETHING = re.compile(r"\w")
# Raised when parsing or chunking changes what an unchanged note's chunks or warnings are; an index built by another
# version redoes every note once (sync.reindex_plan), reusing the vectors of chunks whose text did not change.
# 2: template placeholders in frontmatter are text; sections of empty list items make no chunk.
# 3: a note without body text is chunked with its properties.
CHUNKS_VERSION = "3"
MAX_PROPERTIES = 40  # of one note, in its fallback chunk
MAX_PROPERTY_CHARS = 200  # of one property's value there
_SHOWN_APART = frozenset({"aliases", "alias", "tags", "tag", "cssclasses", "cssclass"})


def heading_link_text(heading: str) -> str:
    """Return a heading as an Obsidian link can name it: `#|^:[]` and `%%` become spaces, runs of spaces one."""
    return " ".join(_UNLINKABLE.sub(" ", heading).split())


def note_anchor(link_text: str, heading_path: Sequence[str]) -> str:
    """Return the wikilink that opens a note at its innermost heading (`[[Note#Heading]]`), or the note itself."""
    heading = heading_link_text(heading_path[-1]) if heading_path else ""
    return f"[[{link_text}#{heading}]]" if heading else f"[[{link_text}]]"


@dataclass(frozen=True, slots=True)
class _Window:
    counter: TokenCounter
    max_tokens: int
    overlap_tokens: int


@dataclass(frozen=True, slots=True)
class _Draft:
    heading_path: tuple[str, ...]  # the section's real path, for the anchor
    shown_title: str  # title and path shown in the breadcrumb, shortened only if they crowd out the text
    shown_path: tuple[str, ...]
    text: str
    line_start: int
    line_end: int


def chunk_note(
    note: Note,
    *,
    link_text: str,
    count_tokens: Callable[[str], int],
    max_tokens: int,
    overlap_tokens: int = 32,
    embedded_text: EmbeddedText | None = None,
    budget: NoteBudget | None = None,
) -> list[Chunk]:
    """Cut a note into heading-aware chunks whose `embed_text` never exceeds `max_tokens` tokens.

    Args:
        note: the parsed note; its sections, embeds and links are read.
        link_text: how the note is linked: "Note", or "Folder/Note" when note names collide.
        count_tokens: tokens of a text for the dense model, special tokens included.
        max_tokens: the dense model's window.
        overlap_tokens: tokens of the previous chunk's tail repeated at the start of the next chunk of a section.
        embedded_text: the text an `![[embed]]` shows, or None; inserted after the line holding the embed.
        budget: what the note may cost: NoteTooCostly is raised past its time; past its chunk cap the first
            chunks are returned and `budget.cut` says how many the note made.

    """
    if overlap_tokens < 0:
        raise ValueError(f"overlap_tokens must not be negative, got {overlap_tokens}")
    counter = TokenCounter(count_tokens if budget is None else budget.metered(count_tokens, "chunking"))
    if max_tokens <= counter.fixed:
        raise ValueError(f"max_tokens={max_tokens} leaves no room for text ({counter.fixed} tokens are fixed)")
    window = _Window(counter, max_tokens, overlap_tokens)
    shower = None if embedded_text is None else EmbedShower(note.embeds, embedded_text, budget)
    drafts: list[_Draft] = []
    for number, section in enumerate(note.sections, start=1):
        pieces = section_pieces(section, shower)
        # A section of empty list items or checkboxes (a template's "## Ingredients" then "- ") says nothing: its
        # chunk ("-") ranked among the best for any question on its heading's words. The note's headings stay
        # findable in the fallback chunk when no section has text.
        if any(_SAYS_SOMETHING.search(piece.text) for piece in pieces):
            drafts.extend(_chunk_section(pieces, note.title, section.heading_path, window))
            kept = None if budget is None else budget.keep_within(drafts, is_last=number == len(note.sections))
            if kept is not None:
                drafts = kept  # the note's beginning: later sections would only make chunks past the cap
                break
    if not drafts:
        drafts = _fallback_drafts(note, window)
    targets = LinkTargets(note.links)
    return [_to_chunk(note, draft, index, link_text, targets) for index, draft in enumerate(drafts)]


def _chunk_section(pieces: list[Piece], title: str, heading_path: tuple[str, ...], window: _Window) -> list[_Draft]:
    """Pack a section's pieces into drafts that fit the window."""
    counter = window.counter
    whole = _render(pieces)
    if (
        not is_surely_over(whole, window.max_tokens)
        and counter.total(f"{_breadcrumb(title, heading_path)}\n{whole}") <= window.max_tokens
    ):
        return [_draft(pieces, heading_path, title, heading_path)]
    shown_title, shown_path = _fit_breadcrumb(title, heading_path, window)
    prefix = f"{_breadcrumb(shown_title, shown_path)}\n"
    budget = window.max_tokens - counter.total(prefix)
    sized: list[Piece] = []
    for piece in pieces:
        # A section's only block did not fit, so it is cut without counting it again.
        if len(pieces) == 1 or is_surely_over(piece.text, budget):
            sized.extend(split_piece(piece, budget, counter))
            continue
        measured = replace(piece, cost=counter.cost(piece.text) + counter.sep_cost(piece.sep))
        sized.extend(split_piece(measured, budget, counter) if measured.cost > budget else [measured])
    overlap = min(window.overlap_tokens, budget // 2)
    drafts: list[_Draft] = []
    for group, carried in _pack(sized, budget, overlap, counter):
        for fitted in _settle(group, carried, budget, prefix, window):
            drafts.append(_draft(fitted, heading_path, shown_title, shown_path))
    return drafts


def _pack(pieces: list[Piece], budget: int, overlap: int, counter: TokenCounter) -> list[tuple[list[Piece], int]]:
    """Greedily pack pieces up to `budget`; return groups with how many leading pieces are carried overlap."""
    groups: list[tuple[list[Piece], int]] = []
    current: list[Piece] = []
    carried, used = 0, 0
    for piece in pieces:
        if len(current) > carried and used + piece.cost > budget:
            groups.append((current, carried))
            tail = _overlap(current, min(overlap, budget - piece.cost), counter)
            current, carried, used = tail, len(tail), sum(part.cost for part in tail)
        current.append(piece)
        used += piece.cost
    if len(current) > carried:
        groups.append((current, carried))
    return groups


def _overlap(group: list[Piece], limit: int, counter: TokenCounter) -> list[Piece]:
    """Return the trailing pieces (whole, then part of a prose piece) of a group within `limit` tokens."""
    taken: list[Piece] = []
    for piece in reversed(group):
        if 0 <= piece.cost <= limit:
            taken.append(piece)
            limit -= piece.cost
            continue
        # A part of a code block or table would break its fence or header, so only prose is cut.
        tail = trailing_piece(piece, limit, counter)
        if tail is not None:
            taken.append(tail)
        break
    return taken[::-1]


def _settle(group: list[Piece], carried: int, budget: int, prefix: str, window: _Window) -> list[list[Piece]]:
    """Return the group, or smaller groups, each verified with one real count to fit the window."""
    counter = window.counter
    total = counter.total(prefix + _render(group))
    if total <= window.max_tokens:
        return [group]
    if carried:
        return _settle(group[carried:], 0, budget, prefix, window)
    if len(group) > 1:
        half = len(group) // 2
        return _settle(group[:half], 0, budget, prefix, window) + _settle(group[half:], 0, budget, prefix, window)
    piece = group[0]
    smaller = min(budget, piece.cost) - (total - window.max_tokens) - 1
    parts = split_piece(piece, smaller, counter) if smaller >= 1 else [piece]
    if len(parts) == 1 and parts[0].text == piece.text:
        # Reached only when a single character cannot fit beside the breadcrumb: the window is the hard limit.
        logger.warning("dropped %d characters that do not fit the %d-token window", len(piece.text), window.max_tokens)
        return []
    return [
        settled
        for subgroup, _ in _pack(parts, smaller, 0, counter)
        for settled in _settle(subgroup, 0, smaller, prefix, window)
    ]


def _fit_breadcrumb(title: str, heading_path: tuple[str, ...], window: _Window) -> tuple[str, tuple[str, ...]]:
    """Return the title and headings to show, shortened only if they would leave under a quarter of the window."""
    limit = window.max_tokens - max(1, window.max_tokens // 4)
    if window.counter.total(_breadcrumb(title, heading_path) + "\n") <= limit:
        return title, heading_path
    innermost = heading_path[-1:]  # ancestors go first; then title and heading are cut to a common length
    longest = max(len(title), *(len(heading) for heading in innermost))
    size_of = partial(_breadcrumb_size, title, innermost, window.counter)
    keep, _ = largest_within(size_of, limit, range(longest + 1), first_width=longest)
    if keep == 0:
        raise ValueError(f"max_tokens={window.max_tokens} is too small for the breadcrumb of {title!r}")
    return title[:keep], tuple(heading[:keep] for heading in innermost)


def _breadcrumb_size(title: str, headings: tuple[str, ...], counter: TokenCounter, keep: int) -> int:
    shortened = tuple(heading[:keep] for heading in headings)
    return counter.total(_breadcrumb(title[:keep], shortened) + "\n")


def _breadcrumb(title: str, heading_path: Sequence[str]) -> str:
    # Must match core.domain.Chunk.breadcrumb, which builds the embedded text.
    return " > ".join((title, *heading_path))


def _render(pieces: Sequence[Piece]) -> str:
    return pieces[0].text + "".join(piece.sep + piece.text for piece in pieces[1:])


def _draft(pieces: Sequence[Piece], heading_path: tuple[str, ...], title: str, shown: tuple[str, ...]) -> _Draft:
    lines = [line for piece in pieces for line in piece.lines]
    return _Draft(heading_path, title, shown, _render(pieces), min(lines), max(lines))


def _fallback_drafts(note: Note, window: _Window) -> list[_Draft]:
    """Return drafts naming a note that has no body text: title, aliases, tags, its other properties and headings.

    They stand for the whole file (line 1 to the last known line), so frontmatter links are theirs too. A note that
    is all properties (a movie's director, rating and year, as kepano-obsidian's are) is found and answered by them.
    """
    rows = [note.title]
    if note.aliases:
        rows.append("Aliases: " + ", ".join(note.aliases))
    if note.tags:
        rows.append("Tags: " + " ".join(f"#{tag}" for tag in note.tags))
    rows.extend(property_rows(note.frontmatter))
    rows.extend(f"{'#' * heading.level} {heading.text}" for heading in note.headings)
    piece = Piece("prose", tuple(rows), (1,) * len(rows))
    known = [section.line_end for section in note.sections] + [link.line for link in note.links]
    last = max([1, *known, *(heading.line for heading in note.headings)])
    return [replace(draft, line_start=1, line_end=last) for draft in _chunk_section([piece], note.title, (), window)]


def property_rows(frontmatter: Mapping[str, object]) -> list[str]:
    """Return a note's properties as `key: value` rows, lists joined; aliases, tags and styling are shown apart.

    Empty values and nested maps or lists (also inside a list) say nothing to search for; a long value is cut.
    """
    rows = []
    for key, value in list(frontmatter.items())[:MAX_PROPERTIES]:
        if str(key).casefold() in _SHOWN_APART or isinstance(value, Mapping):
            continue
        values = value if isinstance(value, list) else [value]
        plain = (item for item in values if item is not None and item != "" and not isinstance(item, Mapping | list))
        shown = ", ".join(_property_value(item) for item in plain)
        if shown.strip():
            rows.append(f"{key}: {_cut(shown)}")
    return rows


def _cut(value: str) -> str:
    if len(value) <= MAX_PROPERTY_CHARS:
        return value
    return value[:MAX_PROPERTY_CHARS].rsplit(" ", 1)[0] + " …"


def _property_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date | datetime):
        return value.isoformat()
    return " ".join(str(value).split())


def _to_chunk(note: Note, draft: _Draft, index: int, link_text: str, targets: LinkTargets) -> Chunk:
    return Chunk(
        path=note.path,
        title=draft.shown_title,
        heading_path=draft.shown_path,
        anchor=note_anchor(link_text, draft.heading_path),
        text=draft.text,
        tags=note.tags,
        links=targets.for_lines(draft.line_start, draft.line_end, draft.text),
        line_start=draft.line_start,
        line_end=draft.line_end,
        index=index,
    )
