"""The `tags` and `properties` tools: tags with counts, notes by tag, frontmatter properties and their values."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Literal

from pydantic import Field

from agent.tools.definition import Tool, ToolArgs, require
from agent.tools.outcome import Part, Reply, data_part, format_value, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot, has_tag, property_value


class TagsArgs(ToolArgs):
    """Arguments of tags."""

    command: Literal["list_with_counts", "notes_with_tag"] = Field(
        description="list_with_counts: every tag and its number of notes; notes_with_tag: the notes with tag."
    )
    tag: str = Field("", description="No '#', e.g. 'area/garden'; sub-tags included.")


def ranked_tags(snapshot: VaultSnapshot) -> list[tuple[str, int]]:
    """Return each tag (as first written, any case one tag) and the number of notes carrying it, most used first."""
    counts: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for note in snapshot.notes.values():
        for tag in note.tags:
            spelling.setdefault(tag.casefold(), tag)
        counts.update({tag.casefold() for tag in note.tags})  # a note is counted once per tag, whatever its cases
    return [(spelling[key], count) for key, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def notes_with_tag(snapshot: VaultSnapshot, tag: str) -> list[str]:
    """Return the paths of the notes carrying `tag` or a tag nested under it, any case, by path."""
    return sorted((path for path, note in snapshot.notes.items() if has_tag(note.tags, tag)), key=str.lower)


def _tag_counts(snapshot: VaultSnapshot) -> Reply:
    ranked = ranked_tags(snapshot)
    lines = [f"- #{tag}: {count}" for tag, count in ranked]
    return reply(f"{len(ranked)} tag(s), with the number of notes using each:", *lines)


def _notes_with_tag(snapshot: VaultSnapshot, tag: str) -> Reply:
    wanted = tag.strip().lstrip("#")
    paths = notes_with_tag(snapshot, wanted)
    parts = []
    for path in paths:
        anchor = snapshot.anchor(path)
        matched = ", ".join(f"#{t}" for t in snapshot.notes[path].tags if has_tag([t], wanted))
        parts.append(Part(f"- {path} {anchor} ({matched})", (anchor,)))
    if not parts:
        return reply(f"No note is tagged #{wanted}. Use tags list_with_counts to see the tags in use.")
    return reply(f"{len(parts)} note(s) tagged #{wanted} (sub-tags included):", *parts)


def run_tags(reader: VaultReader, args: TagsArgs) -> Reply:
    """List the vault's tags with counts, or the notes carrying one tag."""
    snapshot = reader.snapshot()
    if args.command == "list_with_counts":
        return _tag_counts(snapshot)
    return _notes_with_tag(snapshot, require(args.tag, "tag", "tags notes_with_tag"))


# Words of a message that call for properties (agent.tools.cues).
PROPERTY_CUES = (
    "property", "properties", "frontmatter", "yaml", "status", "due", "alias", "aliases", "field", "fields",
    "metadata", "eigenschaft", "eigenschaften", "fällig",
)  # fmt: skip


TAGS = Tool(
    name="tags",
    description="List the #tags with how many notes use each, or the notes that have one tag.",
    args=TagsArgs,
    handler=run_tags,
    cues=("tag", "tags", "tagged", "#", "schlagwort", "schlagworte"),
)


class PropertiesArgs(ToolArgs):
    """Arguments of properties."""

    command: Literal["of_note", "values_of_property", "list"] = Field(
        description="of_note: all of note's; values_of_property: each value of name, with its notes; list: "
        "every property name."
    )
    note: str = Field("", description="The note's name, path or [[link]].")
    name: str = Field("", description="The property, e.g. 'status'.")


def _of_note(snapshot: VaultSnapshot, ref: str) -> Reply:
    path = snapshot.find_note(ref)
    note = snapshot.notes[path]
    anchor = snapshot.anchor(path)
    if not note.frontmatter:
        problem = f" ({note.frontmatter_error})" if note.frontmatter_error else ""
        return reply(Part(f"{anchor} ({path}) has no properties{problem}.", (anchor,)))
    body = "\n".join(f"- {key}: {format_value(value)}" for key, value in note.frontmatter.items())
    return reply(data_part("properties", body, (anchor,), path=path, source=anchor))


def _values_of(snapshot: VaultSnapshot, name: str) -> Reply:
    notes_by_value: dict[str, list[str]] = defaultdict(list)
    for path in sorted(snapshot.notes, key=str.lower):
        present, value = property_value(snapshot.notes[path], name)
        if present:
            for item in value if isinstance(value, list) and value else [value]:
                notes_by_value[format_value(item)].append(path)
    if not notes_by_value:
        return reply(f"No note has the property '{name}'. Use properties list to see the property names.")
    lines = []
    anchors: list[str] = []
    for value, paths in sorted(notes_by_value.items(), key=lambda item: (-len(item[1]), item[0])):
        links = [snapshot.anchor(path) for path in paths]
        anchors.extend(links)
        lines.append(f"- {value} ({len(paths)}): {', '.join(links)}")
    header = f"{len(lines)} distinct value(s) of '{name}', most used first:"
    return reply(header, data_part("property", "\n".join(lines), tuple(dict.fromkeys(anchors)), name=name))


def _property_names(snapshot: VaultSnapshot) -> Reply:
    counts: Counter[str] = Counter()
    spelling: dict[str, str] = {}
    for note in snapshot.notes.values():
        for key in note.frontmatter:
            spelling.setdefault(key.casefold(), key)
            counts[key.casefold()] += 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return reply(f"{len(ranked)} property name(s) in use:", *(f"- {spelling[k]}: {n} note(s)" for k, n in ranked))


def run_properties(reader: VaultReader, args: PropertiesArgs) -> Reply:
    """Read frontmatter properties: of one note, one property across the vault, or every property name."""
    snapshot = reader.snapshot()
    if args.command == "of_note":
        return _of_note(snapshot, require(args.note, "note", "properties of_note"))
    if args.command == "values_of_property":
        return _values_of(snapshot, require(args.name, "name", "properties values_of_property"))
    return _property_names(snapshot)


PROPERTIES = Tool(
    name="properties",
    description="Read frontmatter properties (status, due, aliases ...) of a note or across the vault.",
    args=PropertiesArgs,
    handler=run_properties,
    cues=PROPERTY_CUES,
)
