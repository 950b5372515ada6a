"""YAML frontmatter of a note: locating it, lenient YAML 1.2 loading, and its tags, aliases and links."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import ScalarNode

from core.domain import Link
from rag.notes.inline import WIKILINK, is_valid_tag, parse_wikilink

_TAG_SPLIT = re.compile(r"[,\s]+")
_MAX_DEPTH = 64  # YAML anchors can build cyclic values; stop well before recursion limits


class _LenientConstructor(SafeConstructor):
    """Safe constructor that keeps an impossible date like 2020-02-30 as the string written."""

    def construct_lenient_timestamp(self, node: ScalarNode) -> object:
        try:
            return self.construct_yaml_timestamp(node)
        except ValueError:
            return self.construct_scalar(node)


_LenientConstructor.add_constructor("tag:yaml.org,2002:timestamp", _LenientConstructor.construct_lenient_timestamp)


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """What a note's frontmatter holds and where its body starts."""

    data: Mapping[str, object] = field(default_factory=dict)
    error: str | None = None
    body_start: int = 0  # index of the first body line in the note's lines
    links: tuple[Link, ...] = ()


def find_frontmatter_end(lines: Sequence[str]) -> int | None:
    """Return the index of the closing `---` line, or None when the note has no frontmatter block."""
    if not lines or lines[0].rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return index
    return None


def to_plain(value: object, depth: int = 0) -> object:
    """Convert a loaded YAML value to JSON-like Python: dict, list, str, int, float, bool or None."""
    if depth > _MAX_DEPTH:
        return None
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(to_plain(key, depth + 1)): to_plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_plain(item, depth + 1) for item in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def _yaml_error(exc: Exception, *, first_line: int) -> str:
    if isinstance(exc, MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        if mark is not None:
            return f"invalid YAML frontmatter on line {first_line + mark.line}: {problem}"
        return f"invalid YAML frontmatter: {problem}"
    detail = str(exc).strip().splitlines()
    return "invalid YAML frontmatter: " + (detail[0] if detail else type(exc).__name__)


def load_yaml(text: str, *, first_line: int) -> tuple[dict[str, object], str | None]:
    """Load frontmatter YAML (1.2, safe) leniently: return ({}, message) when it is not a valid mapping.

    Args:
        text: the YAML between the `---` lines.
        first_line: the 1-based file line of the YAML's first line, so messages point into the note.

    """
    if not text.strip():
        return {}, None
    yaml = YAML(typ="safe")  # the C parser (ruamel.yaml.clib) when installed: 3x faster
    yaml.Constructor = _LenientConstructor
    yaml.allow_duplicate_keys = True  # keep the note; ruamel keeps the first value of a repeated key
    try:
        loaded = yaml.load(text)
    except (YAMLError, ValueError, TypeError, RecursionError) as exc:
        return {}, _yaml_error(exc, first_line=first_line)
    if loaded is None:
        return {}, None
    plain = to_plain(loaded)
    if not isinstance(plain, dict):
        return {}, f"frontmatter on line {first_line} is not a key: value mapping"
    return plain, None


def _values(data: Mapping[str, object], names: tuple[str, ...]) -> list[object]:
    """Return the values of the keys matching `names`, case-insensitively, in key order."""
    return [value for key, value in data.items() if key.lower() in names]


def _scalars(value: object) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [str(item) for item in items if isinstance(item, str | int | float) and not isinstance(item, bool)]


def frontmatter_tags(data: Mapping[str, object]) -> list[str]:
    """Return the `tags` (or legacy `tag`) property as tag names without '#'.

    A string is split on commas and whitespace; list items are taken whole; `- #x` (a YAML comment) is null
    and ignored.
    """
    tags: list[str] = []
    for value in _values(data, ("tags", "tag")):
        candidates = _TAG_SPLIT.split(value) if isinstance(value, str) else _scalars(value)
        for candidate in candidates:
            tag = candidate.strip().lstrip("#").strip()
            if is_valid_tag(tag):
                tags.append(tag)
    return tags


def frontmatter_aliases(data: Mapping[str, object]) -> list[str]:
    """Return the `aliases` (or legacy `alias`) property; a string is split on commas like Obsidian does."""
    aliases: list[str] = []
    for value in _values(data, ("aliases", "alias")):
        candidates = value.split(",") if isinstance(value, str) else _scalars(value)
        aliases.extend(alias.strip() for alias in candidates if alias.strip())
    return aliases


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def frontmatter_links(data: Mapping[str, object], yaml_lines: Sequence[str], *, first_line: int) -> list[Link]:
    """Return wikilinks written in frontmatter string values, e.g. `up: "[[Home]]"`, with their lines."""
    links: list[Link] = []
    cursor = 0
    for text in _strings(dict(data)):
        for match in WIKILINK.finditer(text):
            cursor = _line_of(match[0], yaml_lines, cursor)
            link = parse_wikilink(match[2], is_embed=bool(match[1]), line=first_line + cursor)
            if link is not None:
                links.append(link)
    return links


def _line_of(needle: str, lines: Sequence[str], start: int) -> int:
    """Return the index of the first line at or after `start` holding `needle` (else search from the top)."""
    order = [*range(start, len(lines)), *range(start)]
    return next((index for index in order if needle in lines[index]), start)


def read_frontmatter(lines: Sequence[str]) -> Frontmatter:
    """Locate and load the frontmatter of a note given its lines."""
    end = find_frontmatter_end(lines)
    if end is None:
        return Frontmatter()
    yaml_lines = lines[1:end]
    data, error = load_yaml("\n".join(yaml_lines), first_line=2)
    links = frontmatter_links(data, yaml_lines, first_line=2) if data else []
    return Frontmatter(data, error, end + 1, tuple(links))
