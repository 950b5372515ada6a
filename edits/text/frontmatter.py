"""Pure edits of a note's YAML frontmatter for the propose tools: properties, tags and aliases.

The YAML is loaded and dumped with ruamel.yaml's round-trip mode, so other keys keep their order, quoting and
comments. A note without frontmatter gets a block; a block left empty is removed.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from core.errors import InvalidRequest, NotFound
from edits.text.body import NoteLines
from rag.notes.frontmatter import find_frontmatter_end
from rag.notes.inline import is_valid_tag

PropertyValue = str | int | float | bool | list[str] | None
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_INDENTED_ITEM = re.compile(r"^[ \t]+- ", re.MULTILINE)
_FLUSH_ITEM = re.compile(r"^- ", re.MULTILINE)
_TAG_SPLIT = re.compile(r"[,\s]+")
_ALIAS_SPLIT = re.compile(r"\s*,\s*")


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


def edit_frontmatter(text: str, change: Callable[[CommentedMap], None]) -> str:
    """Return the note with its frontmatter mapping changed in place by `change`."""
    note = NoteLines.parse(text)
    end = find_frontmatter_end(note.lines)
    source = "" if end is None else "\n".join(note.lines[1:end]) + "\n"
    yaml = _yaml(source)
    try:
        data = yaml.load(source) if source.strip() else CommentedMap()
    except YAMLError as exc:
        raise InvalidRequest(f"the note's frontmatter is not valid YAML, so it is not changed: {exc}") from exc
    if data is None:
        data = CommentedMap()
    if not isinstance(data, CommentedMap):
        raise InvalidRequest("the note's frontmatter is not a mapping of properties, so it is not changed")
    change(data)
    body = note.lines if end is None else note.lines[end + 1 :]
    if not data:
        note.lines = list(body)
        return note.render()
    out = io.StringIO()
    yaml.dump(data, out)
    note.lines = ["---", *out.getvalue().rstrip("\n").split("\n"), "---", *body]
    return note.render()


def _property_name(name: str) -> str:
    cleaned = name.strip()
    if not cleaned or "\n" in cleaned:
        raise InvalidRequest("the property name is empty or spans lines; give one name such as 'status'")
    return cleaned


def _yaml_value(value: PropertyValue) -> object:
    return CommentedSeq(value) if isinstance(value, list) else value


def set_property(text: str, name: str, value: PropertyValue) -> str:
    """Return the note with frontmatter property `name` set to `value` (added last when new)."""
    key = _property_name(name)

    def change(data: CommentedMap) -> None:
        data[key] = _yaml_value(_as_typed_like(value, data.get(key)))

    return edit_frontmatter(text, change)


def _as_typed_like(value: PropertyValue, current: object) -> PropertyValue:
    """Return `value` as a number or checkbox when it is the text of one and the property holds one already.

    A model (or a tool call) sends "2021" for `year: 2020`: written as text, `year: '2021'` is a text property in
    Obsidian, no longer sortable as a number.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if isinstance(current, bool):  # before int: a bool is an int to Python
        return text.casefold() == "true" if text.casefold() in ("true", "false") else value
    if isinstance(current, int | float) and _NUMBER.fullmatch(text):
        number = float(text) if "." in text else int(text)
        if str(number) == text:  # "1.10", "007" and "1_000" stay as typed: as numbers they would read otherwise
            return number
    return value


def remove_property(text: str, name: str) -> str:
    """Return the note without frontmatter property `name`; raise NotFound when it has none."""
    key = _property_name(name)

    def change(data: CommentedMap) -> None:
        if key not in data:
            known = ", ".join(str(k) for k in data) or "none"
            raise NotFound(f"the note has no property {key!r}; its properties are: {known}")
        del data[key]

    return edit_frontmatter(text, change)


def _items(value: object, split: re.Pattern[str] = _TAG_SPLIT) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item) for item in value if item is not None]
    return [part for part in split.split(str(value)) if part]


def _list_key(data: CommentedMap, names: Sequence[str]) -> str:
    return next((name for name in names if name in data), names[0])


def _add_item(text: str, names: Sequence[str], item: str, what: str, split: re.Pattern[str]) -> str:
    def change(data: CommentedMap) -> None:
        key = _list_key(data, names)
        current = data.get(key)
        if not isinstance(current, CommentedSeq):
            current = CommentedSeq(_items(current, split))
        if any(str(existing).casefold() == item.casefold() for existing in current):
            raise InvalidRequest(f"the note already has the {what} {item!r}; nothing to change")
        current.append(item)
        data[key] = current

    return edit_frontmatter(text, change)


def _tag_name(tag: str) -> str:
    cleaned = tag.strip().lstrip("#")
    if not is_valid_tag(cleaned) or any(char.isspace() or char in ",#" for char in cleaned):
        raise InvalidRequest(f"{tag!r} is not a tag; tags have no spaces and at least one non-digit")
    return cleaned


def add_tag(text: str, tag: str) -> str:
    """Return the note with `tag` (with or without '#') added to its frontmatter `tags` list."""
    return _add_item(text, ("tags", "tag"), _tag_name(tag), "tag", _TAG_SPLIT)


def remove_tag(text: str, tag: str) -> str:
    """Return the note without `tag` in its frontmatter `tags`; inline #tags in the body are not touched."""
    wanted = _tag_name(tag).casefold()

    def change(data: CommentedMap) -> None:
        key = _list_key(data, ("tags", "tag"))
        items = _items(data.get(key))
        kept = [item for item in items if item.lstrip("#").casefold() != wanted]
        if len(kept) == len(items):
            raise NotFound(f"the note's frontmatter has no tag {tag!r} (inline #tags in the text are not removed)")
        current = data[key]
        if not kept:
            del data[key]
        elif isinstance(current, CommentedSeq):
            for index in reversed(range(len(current))):
                if str(current[index]).lstrip("#").casefold() == wanted:
                    del current[index]
        else:
            data[key] = CommentedSeq(kept)

    return edit_frontmatter(text, change)


def add_alias(text: str, alias: str) -> str:
    """Return the note with `alias` added to its frontmatter `aliases` list."""
    cleaned = alias.strip()
    if not cleaned or "\n" in cleaned:
        raise InvalidRequest("the alias is empty or spans lines; give one name")
    return _add_item(text, ("aliases", "alias"), cleaned, "alias", _ALIAS_SPLIT)
