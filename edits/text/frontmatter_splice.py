"""Change one property of a note's YAML frontmatter in place, leaving every other line byte for byte.

The property's lines are written by ruamel.yaml's round-trip mode (keeping its quoting and list style), every
other line of the block stays byte for byte, template placeholders (`{{date}}`) included. A note without
frontmatter gets a block; a block left empty is removed; a block written as one `{...}` flow map is first
rewritten one key per line (`edits.text.flow_frontmatter`).
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from core.errors import InvalidRequest
from edits.text.flow_frontmatter import as_block_style
from edits.text.note_lines import NoteLines
from rag.notes.frontmatter import find_frontmatter_end

_INDENTED_ITEM = re.compile(r"^[ \t]+- ", re.MULTILINE)
_FLUSH_ITEM = re.compile(r"^- ", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|<%.*?%>")  # Obsidian Templates' {{date}}, Templater's <% ... %>


def _yaml(source: str) -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold long values onto new lines
    # Keep the note's own list style; Obsidian writes "  - item", so that is the default for new blocks.
    if _FLUSH_ITEM.search(source) and not _INDENTED_ITEM.search(source):
        yaml.indent(mapping=2, sequence=2, offset=0)
    else:
        yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def edit_frontmatter(text: str, change: Callable[[CommentedMap], str]) -> str:
    """Return the note with one frontmatter property changed in place by `change`, which returns its name.

    Only that property's lines are rewritten, as ruamel.yaml writes them; every other line stays byte for byte,
    as the note's author (or Obsidian) wrote it: a YAML writer would normalise their spacing and styles, and
    template placeholders (`{{date}}`) are no YAML it could write back. A result that would not read back as
    the intended properties is refused, never written.
    """
    note = NoteLines.parse(text)
    end = find_frontmatter_end(note.lines)
    lines = [] if end is None else note.lines[1:end]
    placeholders = _Placeholders.of(lines)
    # A one-line `{...}` flow map has no lines of its own per property: it is first rewritten one key per line.
    block = as_block_style(_yaml(""), placeholders.mask(lines))
    lines = [placeholders.unmask(line) for line in block]
    yaml = _yaml("\n".join(lines))
    data = _load(yaml, placeholders.mask(lines))
    spans = _key_spans(data, lines)  # before `change`, which may drop keys
    name = change(data)
    body = note.lines if end is None else note.lines[end + 1 :]
    if not data:
        note.lines = list(body)
        return note.render()
    out = io.StringIO()
    yaml.dump(data, out)
    dumped = out.getvalue().rstrip("\n").split("\n")
    intended = _load(yaml, dumped)
    spliced = _splice(lines, spans, dumped, intended, name)
    result = [placeholders.unmask(line) for line in spliced]
    _check_reads_as(yaml, placeholders, result, intended, name)
    note.lines = ["---", *result, "---", *body]
    return note.render()


def _load(yaml: YAML, lines: list[str]) -> CommentedMap:
    source = "\n".join(lines) + "\n"
    try:
        data = yaml.load(source) if source.strip() else CommentedMap()
    except YAMLError as exc:
        raise InvalidRequest(f"the note's frontmatter is not valid YAML, so it is not changed: {exc}") from exc
    if data is None:
        return CommentedMap()
    if not isinstance(data, CommentedMap):
        raise InvalidRequest("the note's frontmatter is not a mapping of properties, so it is not changed")
    return data


@dataclass(frozen=True, slots=True)
class _Placeholders:
    """Template placeholders of a frontmatter and the plain tokens that stand in for them while YAML reads it.

    Obsidian's Templates (`{{date}}`, `{{date:YYYY-MM-DD}}`) and Templater (`<% tp.file.title %>`) fill these in
    when a note is made from the template. To YAML `{{date}}` is a flow mapping (written back as
    `{{date: null}: null}`) and `{{title}} notes` is an error; a token reads and writes back as itself.
    """

    tokens: dict[str, str]  # placeholder -> token

    @classmethod
    def of(cls, lines: list[str]) -> _Placeholders:
        """Return tokens for the placeholders in `lines`, named after a hash of them so no line holds one."""
        source = "\n".join(lines)
        prefix = "vlph" + hashlib.sha256(source.encode()).hexdigest()[:12]
        found = dict.fromkeys(match[0] for match in _PLACEHOLDER.finditer(source))
        return cls({placeholder: f"{prefix}n{index}x" for index, placeholder in enumerate(found)})

    def mask(self, lines: list[str]) -> list[str]:
        """Return `lines` with each known placeholder replaced by its token."""
        return [_PLACEHOLDER.sub(lambda match: self.tokens.get(match[0], match[0]), line) for line in lines]

    def unmask(self, text: str) -> str:
        """Return `text` with each token replaced by its placeholder."""
        for placeholder, token in self.tokens.items():
            text = text.replace(token, placeholder)
        return text


def _key_spans(data: CommentedMap, lines: list[str]) -> dict[object, tuple[int, int]]:
    """Return each top-level property's [first, end) lines: its key line to the last line of its value.

    Blank lines and comments at the start of a line after a value belong between properties, so they stay
    where they are whichever property changes.
    """
    # The keys read from the text, by line; keys a `<<: *anchor` merge brings in have no line of their own.
    starts = sorted(((position[0], key) for key, position in (data.lc.data or {}).items()), key=lambda start: start[0])
    spans: dict[object, tuple[int, int]] = {}
    for index, (first, key) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(lines)
        while end > first + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
            end -= 1
        spans[key] = (first, end)
    return spans


def _splice(
    lines: list[str], spans: dict[object, tuple[int, int]], dumped: list[str], intended: CommentedMap, name: str
) -> list[str]:
    """Return `lines` with property `name`'s lines replaced by its lines in `dumped` (none once removed)."""
    new: list[str] = []
    if name in intended:
        first, end = _key_spans(intended, dumped)[name]
        new = dumped[first:end]
    kept = lines if name not in spans else [*lines[: spans[name][0]], *lines[spans[name][1] :]]
    # ruamel hangs a comment that follows a property on its last item, so the property's lines would repeat a
    # comment that stays where it is ("# about title" under a list gained an item): those are left out.
    outside = {line.strip() for line in kept if line.lstrip().startswith("#")}
    new = [line for line in new if not (line.lstrip().startswith("#") and line.strip() in outside)]
    if name in spans:
        first, end = spans[name]
        return [*lines[:first], *new, *lines[end:]]
    at = len(lines)  # a new property goes last, after the last non-blank line, as Obsidian adds one
    while at > 0 and not lines[at - 1].strip():
        at -= 1
    return [*lines[:at], *new, *lines[at:]]


def _check_reads_as(
    yaml: YAML, placeholders: _Placeholders, result: list[str], intended: CommentedMap, name: str
) -> None:
    """Raise InvalidRequest unless `result` reads as the properties `intended` (a splice gone wrong)."""
    try:
        actual = _load(yaml, placeholders.mask(result))
    except InvalidRequest:
        actual = None
    if actual is None or _plain(actual, placeholders) != _plain(intended, placeholders):
        raise InvalidRequest(
            f"the property {name!r} cannot be changed without rewriting other lines of the note's frontmatter, "
            "so the note is not changed; change it in Obsidian"
        )


def _plain(value: object, placeholders: _Placeholders) -> object:
    """Return loaded YAML as plain lists, pairs and (is-bool, value) scalars with placeholders put back, to compare."""
    if isinstance(value, dict):
        return [(_plain(key, placeholders), _plain(item, placeholders)) for key, item in value.items()]
    if isinstance(value, list):
        return [_plain(item, placeholders) for item in value]
    if isinstance(value, str):
        return placeholders.unmask(value)
    return (isinstance(value, bool), value)  # True == 1 to Python, not to a checkbox
