"""Inline Obsidian syntax on one scanned line: tags, wikilinks, markdown links, block ids and tasks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from core.domain import BlockId, Link, Task
from rag.notes.line_views import MASK

# Obsidian's tag lexer (as Dataview documents it): '#' after start or whitespace, then characters that are
# not whitespace, general/supplemental punctuation blocks, or ASCII punctuation other than '_', '-', '/'.
TAG = re.compile(r"(?<!\S)#([^\s\u2000-\u206F\u2E00-\u2E7F'!\"#$%&()*+,.:;<=>?@^`{|}~\[\]\\]+)")
_DIGITS = re.compile(r"\d+")
WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"  # text, one level of nested brackets (an image in a link)
    r"\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))+)"  # destination: <...> or balanced one-level parens
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"  # optional title
)
_SCHEME = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*:|//)")
_URL = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*://|www\.)\S+|<[^<>\s]+>")
_SIZE = re.compile(r"^\s*\d+(?:\s*x\s*\d+)?\s*$")
BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9_-]+)[ \t]*$")
_TASK = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:[-*+]|\d{1,9}[.)])[ \t]+\[([^\n])\](?:[ \t]+(.*))?$")
_EDITOR_QUERY = ("##", "^^")  # [[## query]] and [[^^query]] are autocomplete syntax, not links


def is_valid_tag(tag: str) -> bool:
    """Return True when a tag body (without '#') has a non-digit, as Obsidian requires."""
    return bool(tag) and _DIGITS.fullmatch(tag) is None


def find_tags(masked: str) -> list[str]:
    """Return the inline tags of a masked line, without '#', in order (links and URLs must be masked)."""
    if "#" not in masked:
        return []
    return [match[1] for match in TAG.finditer(masked) if is_valid_tag(match[1])]


def _split_subpath(subpath: str) -> tuple[str | None, str | None]:
    """Return (heading, block) for the part after the first '#': "H1#H2", "^id" or "H#^id"."""
    parts = [part.strip() for part in subpath.split("#")]
    block = None
    if parts and parts[-1].startswith("^"):
        block = parts.pop()[1:].strip() or None
    heading = "#".join(part for part in parts if part) or None
    return heading, block


def parse_wikilink(content: str, *, is_embed: bool, line: int) -> Link | None:
    r"""Parse the inside of `[[...]]`; `\|` (escaped in tables) separates the alias like `|`."""
    content = content.replace("\\|", "|")
    if content.startswith(_EDITOR_QUERY):
        return None
    linkpath, _, alias = content.partition("|")
    target, _, subpath = linkpath.partition("#")
    heading, block = _split_subpath(subpath)
    display: str | None = alias.strip() or None
    if is_embed and display is not None:
        display = "|".join(part for part in display.split("|") if not _SIZE.match(part)).strip() or None
    return Link(target.strip(), heading, block, display, is_embed, line, "wikilink")


def _markdown_link(match: re.Match[str], line: int) -> Link | None:
    destination = match[3]
    if destination.startswith("<"):
        destination = destination[1:-1].strip()
    if not destination or _SCHEME.match(destination):
        return None
    path, _, subpath = destination.partition("#")
    heading, block = _split_subpath(unquote(subpath))
    alias: str | None = match[2].strip() or None
    if match[1] and alias is not None:  # ![alt|100](img.png): the part after '|' is a size
        alias = "|".join(part for part in alias.split("|") if not _SIZE.match(part)).strip() or None
    target = unquote(path).strip()
    if not target and heading is None and block is None:
        return None
    return Link(target, heading, block, alias, bool(match[1]), line, "markdown")


@dataclass(frozen=True, slots=True)
class LinkSpan:
    """A link on a line and where it is written there: the whole link, and its link path as written."""

    link: Link
    start: int  # the whole link is line[start:end]
    end: int
    path_start: int  # the link path as written (percent-encoded in markdown links), without #subpath or alias
    path_end: int


def _mask_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """Return `text` with each (start, end) span, in order and not overlapping, overwritten by MASK."""
    if not spans:
        return text
    # One join for the whole line: masking span by span copies the line per link, quadratic on a line of
    # 60,000 links (issue 8).
    parts: list[str] = []
    cursor = 0
    for start, end in spans:
        parts.append(text[cursor:start])
        parts.append(MASK * (end - start))
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)


def _path_span(written: str, offset: int) -> tuple[int, int]:
    """Return where the link path sits in `written` (link text up to '#'), spaces around it left out."""
    path = written.partition("#")[0]
    start = offset + len(path) - len(path.lstrip())
    return start, start + len(path.strip())


def wikilink_span(match: re.Match[str], visible: str, line: int) -> LinkSpan | None:
    """Return the link a `WIKILINK` match (run on `visible` or its masked twin) names, and where it is written."""
    content = visible[match.start(2) : match.end(2)]
    link = parse_wikilink(content, is_embed=bool(match[1]), line=line)
    if link is None:
        return None
    pipe = content.find("|")
    if pipe > 0 and content[pipe - 1] == "\\":  # the escaped pipe of a table cell
        pipe -= 1
    start, end = _path_span(content if pipe < 0 else content[:pipe], match.start(2))
    return LinkSpan(link, match.start(), match.end(), start, end)


def _markdown_span(match: re.Match[str], line: int) -> LinkSpan | None:
    link = _markdown_link(match, line)
    if link is None:
        return None
    offset, destination = match.start(3), match[3]
    if destination.startswith("<"):
        offset, destination = offset + 1, destination[1:-1]
    start, end = _path_span(destination, offset)
    return LinkSpan(link, match.start(), match.end(), start, end)


def find_link_spans(visible: str, masked: str, line: int) -> list[LinkSpan]:
    """Return the links of a scanned line in order, each with where it is written (offsets into `visible`)."""
    return _link_spans(visible, masked, line)[0]


def find_links(visible: str, masked: str, line: int) -> tuple[list[Link], str]:
    """Return the links of a line in order and the masked line with links and URLs masked too.

    Regexes run on `masked` (code and math hidden) and read text from `visible` at the same offsets.
    """
    spans, masked = _link_spans(visible, masked, line)
    return [span.link for span in spans], masked


def _link_spans(visible: str, masked: str, line: int) -> tuple[list[LinkSpan], str]:
    found: list[LinkSpan] = []
    if "[[" in masked:
        matched = []
        for match in WIKILINK.finditer(masked):
            span = wikilink_span(match, visible, line)
            if span is not None:
                found.append(span)
            matched.append(match.span())
        masked = _mask_spans(masked, matched)
    if "](" in masked:
        matched = []
        for match in _MD_LINK.finditer(masked):
            found.extend(_markdown_spans_at(match, visible, line))
            matched.append(match.span())
        masked = _mask_spans(masked, matched)
    if "://" in masked or "www." in masked or "<" in masked:
        masked = _URL.sub(lambda url: MASK * len(url[0]), masked)
    found.sort(key=lambda span: span.start)
    return found, masked


def _markdown_spans_at(match: re.Match[str], visible: str, line: int) -> list[LinkSpan]:
    shown = _MD_LINK.match(visible, match.start(), match.end())
    if shown is None:  # masking changed the shape (code inside the link); read the masked match instead
        shown = match
    spans: list[LinkSpan] = []
    if "](" in match[2]:  # an image inside the link text: [![alt](img.png)](Note.md)
        for inner in _MD_LINK.finditer(visible, match.start(2), match.end(2)):
            inner_span = _markdown_span(inner, line)
            if inner_span is not None:
                spans.append(inner_span)
    outer = _markdown_span(shown, line)
    if outer is not None:
        spans.append(outer)
    return spans


def find_block_id(masked: str, line: int) -> BlockId | None:
    """Return the `^id` at the end of a masked line, if any."""
    if "^" not in masked:
        return None
    match = BLOCK_ID.search(masked)
    return BlockId(match[1], line) if match else None


def find_task(visible: str, line: int) -> Task | None:
    """Return the task on a list-item line like `- [x] text` (any single status character)."""
    if "[" not in visible:
        return None
    match = _TASK.match(visible)
    if match is None:
        return None
    text = BLOCK_ID.sub("", match[2] or "").strip()
    return Task(text, match[1], line)


def links_as_words(text: str) -> str:
    """Return `text` with each wikilink as its words read: its alias, else its target ("[[Dune|the book]]": "the book").

    For a line quoted where its links are no citations (a folder's openings, a subject's dated mentions).
    """

    def words(link: re.Match[str]) -> str:
        parsed = parse_wikilink(link[2], is_embed=False, line=0)
        return link[0] if parsed is None else parsed.alias or parsed.target

    return WIKILINK.sub(words, text)
