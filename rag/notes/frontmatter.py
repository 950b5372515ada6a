"""YAML frontmatter of a note: locating it, lenient YAML 1.2 loading, and its tags, aliases and links."""

from __future__ import annotations

import base64
import re
from bisect import bisect_left
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
# Values that YAML aliases may add to a note's frontmatter by repeating anchored ones: ordinary anchors
# (shared defaults, a list reused twice) add a handful; a "billion laughs" adds 10^9.
MAX_ALIAS_VALUES = 10_000
_CHARS_PER_VALUE = 100  # and the characters they may repeat: an anchored long string costs its length
_SHORT_STRING = 64


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


class AliasExpansionError(ValueError):
    """YAML aliases would expand to more values than a note's frontmatter may hold ("billion laughs")."""


class _PlainConverter:
    """Convert loaded YAML to plain values, counting the values that alias reuse adds.

    The loader shares one object per anchor, so nine anchors of nine aliases each cost a few hundred bytes
    loaded and a billion values expanded. Like safe loaders (go-yaml's alias ratio, serde-yaml's repetition
    limit) this refuses the expansion instead of walking it.
    """

    def __init__(self, max_alias_values: int) -> None:
        self._max = max_alias_values
        self._seen: set[int] = set()
        self._repeated = 0
        self._repeated_chars = 0

    def convert(self, value: object, depth: int, *, is_repeat: bool) -> object:
        if depth > _MAX_DEPTH:
            return None
        # A container (or long string) met twice is an alias: what it holds is a copy the document did not
        # write. Short strings are left out: Python itself shares one object for each one-character string.
        if isinstance(value, Mapping | list | tuple | set | frozenset) or (
            isinstance(value, str) and len(value) > _SHORT_STRING
        ):
            is_repeat = is_repeat or id(value) in self._seen
            self._seen.add(id(value))
        if is_repeat:
            self._charge(len(value) if isinstance(value, str) else 0)
        if value is None or isinstance(value, str | bool | int | float):
            return value
        if isinstance(value, datetime | date | time):
            return value.isoformat()
        if isinstance(value, Mapping):
            return {
                str(self.convert(key, depth + 1, is_repeat=is_repeat)): self.convert(
                    item, depth + 1, is_repeat=is_repeat
                )
                for key, item in value.items()
            }
        if isinstance(value, list | tuple | set | frozenset):
            return [self.convert(item, depth + 1, is_repeat=is_repeat) for item in value]
        if isinstance(value, bytes):
            return base64.b64encode(value).decode("ascii")
        return str(value)

    def _charge(self, chars: int) -> None:
        self._repeated += 1
        self._repeated_chars += chars
        if self._repeated > self._max:
            raise AliasExpansionError(f"YAML aliases expand to more than {self._max} values")
        if self._repeated_chars > self._max * _CHARS_PER_VALUE:
            raise AliasExpansionError(f"YAML aliases repeat more than {self._max * _CHARS_PER_VALUE} characters")


def to_plain(value: object, *, max_alias_values: int = MAX_ALIAS_VALUES) -> object:
    """Convert a loaded YAML value to JSON-like Python: dict, list, str, int, float, bool or None.

    Raises:
        AliasExpansionError: aliases repeat more than `max_alias_values` values (or 100 characters a value).

    """
    return _PlainConverter(max_alias_values).convert(value, 0, is_repeat=False)


# A template's placeholder as a whole value ("created: {{date}}", "- {{title}}"): YAML reads "{{date}}" as a mapping
# inside a mapping and fails, so every stock Obsidian template was reported as broken. Quoted, it is the text.
_PLACEHOLDER = re.compile(r"^([ \t]*(?:-[ \t]+|[^\n:#]+:[ \t]+))(\{\{[^\n]*?\}\})([ \t]+#[^\n]*)?[ \t]*$")
_BLOCK_SCALAR = re.compile(r"(?:^|[:\s-])[|>][+-]?\d*[ \t]*(?:#[^\n]*)?$")  # "notes: |": indented lines are its text


def _with_placeholders_quoted(text: str) -> str:
    """Return frontmatter YAML with each whole-value placeholder quoted, lines of block scalars left as written."""
    lines: list[str] = []
    block_indent: int | None = None
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip())
        if block_indent is not None and (not line.strip() or indent > block_indent):
            lines.append(line)  # text of a block scalar: "key: {{x}}" there is what the note says
            continue
        block_indent = indent if _BLOCK_SCALAR.search(line) else None
        if (match := _PLACEHOLDER.match(line)) is not None:
            line = f"{match[1]}'{match[2].replace(chr(39), chr(39) * 2)}'{match[3] or ''}"
        lines.append(line)
    return "\n".join(lines)


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
        quoted = _with_placeholders_quoted(text)
        if quoted == text:
            return {}, _yaml_error(exc, first_line=first_line)
        return load_yaml(quoted, first_line=first_line)  # a template: "created: {{date}}" is its text
    if loaded is None:
        return {}, None
    try:
        plain = to_plain(loaded)
    except AliasExpansionError as exc:
        return {}, f"frontmatter ignored: {exc}"
    if not isinstance(plain, dict):
        return {}, f"frontmatter on line {first_line} is not a key: value mapping"
    return plain, None


def property_of(data: Mapping[str, object], name: str) -> tuple[bool, object]:
    """Return (present, value) of a property, its name matched case-insensitively as Obsidian matches it."""
    wanted = name.casefold()
    for key, value in data.items():
        if str(key).casefold() == wanted:
            return True, value
    return False, None


def property_day(value: object) -> date | None:
    """Return a date property's day: a YAML date, or text opening with YYYY-MM-DD ("2026-11-20T09:00")."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


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
    written = _written_links(yaml_lines)
    cursor = 0
    for text in _strings(dict(data)):
        for match in WIKILINK.finditer(text):
            cursor = _line_of(written.get(match[0], ()), cursor)
            link = parse_wikilink(match[2], is_embed=bool(match[1]), line=first_line + cursor)
            if link is not None:
                links.append(link)
    return links


def _written_links(lines: Sequence[str]) -> dict[str, list[int]]:
    """Map each `[[...]]` written in the YAML lines to the indexes of the lines holding it, in order."""
    found: dict[str, list[int]] = {}
    for index, line in enumerate(lines):
        if "[[" in line:
            for match in WIKILINK.finditer(line):
                rows = found.setdefault(match[0], [])
                if not rows or rows[-1] != index:
                    rows.append(index)
    return found


def _line_of(rows: Sequence[int], start: int) -> int:
    """Return the first of `rows` at or after `start` (else the first of them, else `start`).

    An index built once instead of a scan of the lines per link: a scan is quadratic in a frontmatter of
    thousands of links that are not written verbatim (escaped or folded YAML strings).
    """
    at = bisect_left(rows, start)
    if at < len(rows):
        return rows[at]
    return rows[0] if rows else start


def read_frontmatter(lines: Sequence[str]) -> Frontmatter:
    """Locate and load the frontmatter of a note given its lines."""
    end = find_frontmatter_end(lines)
    if end is None:
        return Frontmatter()
    yaml_lines = lines[1:end]
    data, error = load_yaml("\n".join(yaml_lines), first_line=2)
    links = frontmatter_links(data, yaml_lines, first_line=2) if data else []
    return Frontmatter(data, error, end + 1, tuple(links))
