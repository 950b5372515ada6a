"""File properties and functions of the Bases language: `file.name`, `file.links`, `file.hasLink()`, `link.asFile()`.

They take the file's path rather than the row, so `file.x` (the row's file) and `this.file.x` (the base's) share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from agent.tools.bases.expressions import UnsupportedExpression
from agent.tools.bases.values import FileRef, LinkValue, links_equal, make_link
from agent.tools.snapshot import ResolvedLink, VaultSnapshot, has_tag, property_value


def _link_to(item: ResolvedLink) -> LinkValue:
    return LinkValue(item.link.target or PurePosixPath(item.source).stem, item.link.alias, item.path)


def _backlinks(snapshot: VaultSnapshot, path: str) -> list[LinkValue]:
    sources = dict.fromkeys(item.source for item in snapshot.incoming.get(path, ()))
    return [make_link(snapshot, path, FileRef(source)) for source in sources]


def file_property(snapshot: VaultSnapshot, path: str, name: str) -> object:
    """Return `file.<name>` of the file at `path`, or raise UnsupportedExpression for a field not computed here."""
    pure = PurePosixPath(path)
    note = snapshot.notes.get(path)
    stat = snapshot.stats.get(path)
    outgoing = snapshot.outgoing.get(path, ())
    values: dict[str, object] = {
        "name": pure.name,
        "basename": pure.stem,
        "path": path,
        "folder": str(pure.parent) if str(pure.parent) != "." else "/",
        "ext": pure.suffix.lstrip("."),
        "tags": list(note.tags) if note else [],
        "mtime": stat.modified.isoformat(timespec="minutes") if stat else None,
        "size": stat.size if stat else None,
        "file": FileRef(path),
    }
    if name in values:
        return values[name]
    if name == "properties":
        return dict(note.frontmatter) if note else {}
    if name == "links":  # body and frontmatter links; embeds are file.embeds
        return [_link_to(item) for item in outgoing if not item.link.is_embed]
    if name == "embeds":
        return [_link_to(item) for item in outgoing if item.link.is_embed]
    if name == "backlinks":
        return _backlinks(snapshot, path)
    raise UnsupportedExpression(f"file.{name}")


def has_link(snapshot: VaultSnapshot, path: str, other: object) -> bool:
    """Return True when the file at `path` links (or embeds) to `other`: a path, a name, a link or a file."""
    wanted = make_link(snapshot, path, other)
    return any(links_equal(_link_to(item), wanted) for item in snapshot.outgoing.get(path, ()))


def file_method(snapshot: VaultSnapshot, path: str, name: str, args: Sequence[object]) -> object:
    """Return `file.<name>(args)` for the file at `path`, or raise UnsupportedExpression."""
    note = snapshot.notes.get(path)
    if name == "inFolder" and len(args) == 1:
        return snapshot.in_folder(path, str(args[0]).strip("/"))
    if name == "hasTag":
        return note is not None and any(has_tag(note.tags, str(tag)) for tag in args)
    if name == "hasProperty" and len(args) == 1:
        return note is not None and property_value(note, str(args[0]))[0]
    if name == "hasLink" and len(args) == 1:
        return has_link(snapshot, path, args[0])
    if name == "asLink" and len(args) <= 1:
        return make_link(snapshot, path, FileRef(path), args[0] if args else None)
    raise UnsupportedExpression(f"file.{name}()")


def link_method(snapshot: VaultSnapshot, link: LinkValue, name: str, args: Sequence[object]) -> object:
    """Return `link.<name>(args)`: asFile(), linksTo(file); None for a link to no file, as in Obsidian."""
    if name == "asFile" and not args:
        return FileRef(link.path) if link.path else None
    if name == "linksTo" and len(args) == 1:
        return link.path is not None and has_link(snapshot, link.path, args[0])
    raise UnsupportedExpression(f"link.{name}()")
