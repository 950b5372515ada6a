"""What a base's filters ask of a new note (folder, tags, properties, list entries), and that note's text.

`file.inFolder("X")` or `file.folder == "X"` give its folder, `file.hasTag("t")` a tag, `prop == value` (or
`note.prop == value`) a property, and `prop.contains(link("X"))` (kepano's `categories.contains(link("Books"))`) a
`"[[X]]"` entry in list property `prop`. `or` groups are kept as choices for the caller to meet; `not` groups and
other expressions ask nothing (the caller checks them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.tools.bases.expressions import Attr, Call, Compare, Lit, Logic, Name, Node, Not, UnsupportedExpression
from agent.tools.bases.expressions import parse_expression as parse
from agent.tools.bases.values import is_wikilink_text
from agent.tools.snapshot import parse_note_ref
from edits.text import body as ops
from edits.text import frontmatter as fm
from edits.text.frontmatter import PropertyValue
from rag.notes.links import link_key

_NOT_PROPERTIES = {"file", "note", "formula", "this"}
Filter = object  # a Bases filter as YAML holds it (a string, a list, {and|or|not: [...]}) or a parsed expression


@dataclass
class ItemNeeds:
    """What the filters ask of a new note: folders, tags, property values, list entries, `or` groups to meet."""

    folders: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    properties: dict[str, PropertyValue] = field(default_factory=dict)
    choices: list[list[Filter]] = field(default_factory=list)
    entries: dict[str, list[str]] = field(default_factory=dict)  # list property -> "[[X]]" links it must hold

    def copy(self) -> ItemNeeds:
        """Return an independent copy."""
        entries = {name: list(links) for name, links in self.entries.items()}
        return ItemNeeds(list(self.folders), list(self.tags), dict(self.properties), list(self.choices), entries)

    def add_entry(self, prop: str, link: str) -> None:
        """Ask for `link` ("[[Books]]") in list property `prop`, once."""
        known = self.entries.setdefault(prop, [])
        if not any(_same_link(link, item) for item in known):
            known.append(link)


def _same_link(first: str, second: str) -> bool:
    """Return True when two "[[...]]" texts name the same target as written (display text aside)."""
    if not (is_wikilink_text(first) and is_wikilink_text(second)):
        return False
    return link_key(parse_note_ref(first)[0]) == link_key(parse_note_ref(second)[0])


def _property_of(node: Node) -> str | None:
    """Return the note property an expression reads: `prop`, `note.prop` or `list(prop)`."""
    match node:
        case Attr(Name("note"), prop) | Name(prop) if prop not in _NOT_PROPERTIES:
            return prop
        case Call(None, "list", (inner,)):
            return _property_of(inner)
    return None


def _link_text(node: Node) -> str | None:
    """Return `link("X")` (or `link("[[X]]", "shown")`) as the frontmatter text "[[X]]"; None for other nodes."""
    match node:
        case Call(None, "link", (Lit(str() as target), *_)) if parse_note_ref(target)[0]:
            return f"[[{parse_note_ref(target)[0]}]]"
    return None


def _collect_equal(target: Node, value: object, needs: ItemNeeds) -> None:
    match target:
        case Attr(Name("file"), "folder") if isinstance(value, str):
            needs.folders.append(value.strip("/"))
        case Attr(Name("note"), prop) | Name(prop) if prop not in _NOT_PROPERTIES:
            if value is None or isinstance(value, str | int | float | bool):
                needs.properties.setdefault(prop, value)


def _collect_node(node: Node, needs: ItemNeeds) -> None:
    match node:
        case Logic("&&", left, right):
            _collect_node(left, needs)
            _collect_node(right, needs)
        case Logic("||", left, right):
            needs.choices.append([left, right])
        case Call(Name("file"), "inFolder", (Lit(str() as folder),)):
            needs.folders.append(folder.strip("/"))
        case Call(Name("file"), "hasTag", (Lit(str() as tag), *_)):
            needs.tags.append(tag.strip().lstrip("#"))
        case Call(Name("file"), "hasProperty", (Lit(str() as prop),)):
            needs.properties.setdefault(prop, None)
        case Compare("==", Lit(value), target) | Compare("==", target, Lit(value)):
            _collect_equal(target, value, needs)
        case Compare("==", Call(None, "link") as call, target) | Compare("==", target, Call(None, "link") as call):
            if (written := _link_text(call)) is not None:
                _collect_equal(target, written, needs)  # `prop == link("X")`: one "[[X]]" text, not a list
        case Call(owner, "contains" | "containsAll" | "containsAny" as method, args) if owner is not None:
            _collect_entries(_property_of(owner), method, args, needs)


def _collect_entries(prop: str | None, method: str, args: tuple[Node, ...], needs: ItemNeeds) -> None:
    """Ask for the links `prop.contains(link("X"))` names (only the first for containsAny)."""
    links = [written for arg in args if (written := _link_text(arg)) is not None]
    for link in links[:1] if method == "containsAny" else links:
        if prop is not None:
            needs.add_entry(prop, link)


def collect_needs(filters: Filter, needs: ItemNeeds) -> None:
    """Add to `needs` what `filters` asks of a note; `not` groups and other expressions ask nothing (only checked)."""
    if isinstance(filters, str):
        try:
            _collect_node(parse(filters), needs)
        except UnsupportedExpression:
            return
    elif isinstance(filters, list):
        for item in filters:
            collect_needs(item, needs)
    elif isinstance(filters, dict) and len(filters) == 1:
        ((key, items),) = filters.items()
        group = items if isinstance(items, list) else [items]
        if key == "and":
            collect_needs(group, needs)
        elif key == "or" and group:
            needs.choices.append(group)
    elif isinstance(filters, Lit | Name | Attr | Call | Not | Compare | Logic):
        _collect_node(filters, needs)


def _tags(value: PropertyValue) -> list[str]:
    items = value if isinstance(value, list) else str(value or "").replace(",", " ").split()
    return [str(item).strip().lstrip("#") for item in items if str(item).strip()]


def _with_entries(properties: dict[str, PropertyValue], entries: dict[str, list[str]]) -> dict[str, PropertyValue]:
    """Return the properties with every needed link in its list property (first, as kepano's templates have them)."""
    lists: dict[str, PropertyValue] = {}
    for name, links in entries.items():
        key = next((known for known in properties if known.casefold() == name.casefold()), name)
        current = properties.get(key)
        items = [str(item) for item in current] if isinstance(current, list) else [str(current)] if current else []
        lists[key] = items + [link for link in links if not any(_same_link(link, item) for item in items)]
    return {**lists, **{name: value for name, value in properties.items() if name not in lists}}


def note_text(needs: ItemNeeds, user_properties: dict[str, PropertyValue], content: str) -> str:
    """Return the new note: tags and properties in its frontmatter (the user's values win), then `content`."""
    given = {name.casefold() for name in user_properties}  # Obsidian matches property names ignoring case
    properties = {name: value for name, value in needs.properties.items() if name.casefold() not in given}
    properties.update(user_properties)
    properties = _with_entries(properties, needs.entries)
    tags = [tag for key in [k for k in properties if k.casefold() == "tags"] for tag in _tags(properties.pop(key))]
    for tag in needs.tags:
        if tag.casefold() not in {known.casefold() for known in tags}:
            tags.append(tag)
    text = fm.set_property("", "tags", tags) if tags else ""
    for name, value in properties.items():
        text = fm.set_property(text, name, value)
    return ops.append_to_note(text, content) if content.strip() else text
