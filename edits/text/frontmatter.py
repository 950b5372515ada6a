"""Pure edits of a note's YAML frontmatter for the propose tools: properties, tags and aliases.

Each edit changes one property through `edits.text.frontmatter_splice.edit_frontmatter`: only that property's
lines are rewritten, every other line of the block stays byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from core.errors import AlreadyDone, InvalidRequest, NotFound
from edits.text.frontmatter_splice import edit_frontmatter
from rag.notes.inline import is_valid_tag

PropertyValue = str | int | float | bool | list[str] | None
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_TAG_SPLIT = re.compile(r"[,\s]+")
_ALIAS_SPLIT = re.compile(r"\s*,\s*")


def _property_name(name: str) -> str:
    cleaned = name.strip()
    if not cleaned or "\n" in cleaned:
        raise InvalidRequest("the property name is empty or spans lines; give one name such as 'status'")
    return cleaned


def _yaml_value(value: object) -> object:
    return CommentedSeq(value) if isinstance(value, list) else value


def set_property(text: str, name: str, value: PropertyValue) -> str:
    """Return the note with frontmatter property `name` set to `value` (added last when new)."""
    key = _property_name(name)

    def change(data: CommentedMap) -> str:
        data[key] = _yaml_value(_as_typed_like(value, data.get(key)))
        return key

    return edit_frontmatter(text, change)


def _as_typed_like(value: PropertyValue, current: object) -> object:
    """Return `value` as a number or checkbox when it is the text of one and the property holds one already.

    A model (or a tool call) sends "2021" for `year: 2020`: written as text, `year: '2021'` is a text property in
    Obsidian, no longer sortable as a number. Likewise one value for a list property is its one item ("Done" for
    `status: ["[[Active]]"]`; blank text, none): as `status: Done` Obsidian shows a type mismatch.
    """
    if isinstance(current, list) and value is not None and not isinstance(value, list):
        return [] if isinstance(value, str) and not value.strip() else [value]
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

    def change(data: CommentedMap) -> str:
        if key not in data:
            known = ", ".join(str(k) for k in data) or "none"
            raise NotFound(f"the note has no property {key!r}; its properties are: {known}")
        del data[key]
        return key

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
    def change(data: CommentedMap) -> str:
        key = _list_key(data, names)
        current = data.get(key)
        if not isinstance(current, CommentedSeq):
            current = CommentedSeq(_items(current, split))
        if any(str(existing).casefold() == item.casefold() for existing in current):
            raise AlreadyDone(f"the note already has the {what} {item!r}")
        current.append(item)
        data[key] = current
        return key

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

    def change(data: CommentedMap) -> str:
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
        return key

    return edit_frontmatter(text, change)


def add_alias(text: str, alias: str) -> str:
    """Return the note with `alias` added to its frontmatter `aliases` list."""
    cleaned = alias.strip()
    if not cleaned or "\n" in cleaned:
        raise InvalidRequest("the alias is empty or spans lines; give one name")
    return _add_item(text, ("aliases", "alias"), cleaned, "alias", _ALIAS_SPLIT)
