"""A note's document map as markdown-patch 0.4.x builds it: frontmatter, heading ranges and block-id ranges."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from rag.notes.frontmatter import to_plain

FRONTMATTER = re.compile(r"^---(?:\r\n|\r|\n)([\s\S]*?)(?:\r\n|\r|\n)---(?:\r\n|\r|\n|$)")
_BLOCK_REF = re.compile(r"[^\S\r\n]*\^([a-zA-Z0-9_-]+)\s*$")
_ISOLATED_TARGETS = {"paragraph_open", "heading_open", "table_open", "fence", "code_block", "blockquote_open"}
_ISOLATED_TARGETS |= {"bullet_list_open", "ordered_list_open"}
_REF_CARRIERS = {"paragraph_open", "list_item_open", "table_open"}
SEPARATOR = "\x1f"  # markdown-patch joins heading paths with U+001F internally


class FrontmatterInvalid(ValueError):
    """The frontmatter block is not valid strict YAML (4.1.5+ answers 40005, older versions 500)."""


@dataclass(slots=True)
class Span:
    """A [start, end) character range of the document."""

    start: int
    end: int


@dataclass(slots=True)
class Target:
    """A target's content range and its marker (heading line or ` ^id` token)."""

    content: Span
    marker: Span
    level: int = 0


@dataclass(slots=True)
class DocumentMap:
    """Everything a patch needs to find its target."""

    headings: dict[str, Target]
    blocks: dict[str, Target]
    frontmatter: dict[str, object] = field(default_factory=dict)
    content_offset: int = 0
    line_ending: str = "\n"


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def load_strict_yaml(text: str) -> dict[str, object]:
    """Parse frontmatter YAML strictly (duplicate keys and syntax errors raise FrontmatterInvalid)."""
    yaml = YAML(typ="safe", pure=True)
    try:
        loaded = yaml.load(text)
    except (YAMLError, ValueError) as exc:
        raise FrontmatterInvalid(str(exc)) from exc
    plain = to_plain(loaded)
    if plain is None:
        return {}
    if not isinstance(plain, dict):
        raise FrontmatterInvalid("frontmatter is not a mapping")
    return plain


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(match.end() for match in re.finditer(r"\n", text))
    return starts


def _offset(starts: list[int], line: int, length: int) -> int:
    return starts[line] if line < len(starts) else length


def _heading_positions(content: str, tokens: list[Token], starts: list[int], base: int) -> dict[str, Target]:
    length = len(content)
    positions = {"": Target(Span(base, base + length), Span(0, 0), 0)}
    heads = [(index, token) for index, token in enumerate(tokens) if token.type == "heading_open" and token.level == 0]
    stack: list[tuple[str, int]] = []
    for position, (index, token) in enumerate(heads):
        level = int(token.tag[1])
        first, last = token.map or (0, 0)
        start = _offset(starts, first, length)
        marker_end = min(_offset(starts, last, length), length)
        end = length
        for _, later in heads[position + 1 :]:
            if int(later.tag[1]) <= level:
                end = _offset(starts, (later.map or (0, 0))[0], length)
                break
        text = tokens[index + 1].content.strip()
        while stack and stack[-1][1] >= level:
            stack.pop()
        key = f"{stack[-1][0]}{SEPARATOR}{text}" if stack else text
        positions[key] = Target(Span(base + marker_end, base + end), Span(base + start, base + marker_end), level)
        stack.append((key, level))
    return positions


def _raw_end(content: str, start: int, end: int) -> int:
    """Return the end of the last non-blank line in [start, end), its newline included."""
    stripped = content[start:end].rstrip(" \t\r\n")
    stop = start + len(stripped)
    newline = content.find("\n", stop)
    return newline + 1 if newline != -1 and newline < end else stop


def _block_positions(content: str, tokens: list[Token], starts: list[int], base: int) -> dict[str, Target]:
    length = len(content)
    positions: dict[str, Target] = {}
    last_block: Span | None = None
    for token in tokens:
        if token.map is None or token.nesting == -1:
            continue
        is_carrier = token.type in _REF_CARRIERS and (token.type != "paragraph_open" or token.level == 0)
        is_isolated_target = token.type in _ISOLATED_TARGETS and token.level == 0
        if not (is_carrier or is_isolated_target):
            continue
        start = _offset(starts, token.map[0], length)
        end = _raw_end(content, start, _offset(starts, token.map[1], length))
        match = _BLOCK_REF.search(content[start:end])
        if is_carrier and match:
            span = Span(start, start + match.start())
            if span.start == span.end and last_block is not None:
                span = Span(last_block.start, last_block.end)
            marker = Span(base + start + match.start(), base + end)
            positions[match.group(1)] = Target(Span(base + span.start, base + span.end), marker)
        if is_isolated_target:
            last_block = Span(start, end - 1 if content[start:end].endswith("\n") else end)
    return positions


def build_document_map(document: str) -> DocumentMap:
    """Map `document` the way markdown-patch does; raise FrontmatterInvalid for bad YAML."""
    frontmatter: dict[str, object] = {}
    offset = 0
    match = FRONTMATTER.match(document)
    if match:
        offset = match.end()
        frontmatter = load_strict_yaml(match.group(1).strip())
    content = document[offset:]
    tokens = _markdown().parse(content)
    starts = _line_starts(content)
    return DocumentMap(
        headings=_heading_positions(content, tokens, starts, offset),
        blocks=_block_positions(content, tokens, starts, offset),
        frontmatter=frontmatter,
        content_offset=offset,
        line_ending="\r\n" if "\r\n" in document else "\n",
    )
