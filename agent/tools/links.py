"""The `links` tool: backlinks, outgoing links, orphan notes and unresolved links, resolved as Obsidian does."""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

from pydantic import Field

from agent.tools.definition import Tool, ToolArgs, require
from agent.tools.outcome import Part, Reply, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import ResolvedLink, VaultSnapshot
from core.domain import Link


class LinksArgs(ToolArgs):
    """Arguments of links."""

    command: Literal["backlinks", "outgoing", "orphans", "unresolved"] = Field(
        description="backlinks, outgoing: of note; orphans (notes nothing links to), unresolved (links to missing "
        "notes): of the vault."
    )
    note: str = Field("", description="The note's name, path or [[link]].")


def _written(link: Link) -> str:
    subpath = f"#^{link.block}" if link.block else (f"#{link.heading}" if link.heading else "")
    return f"{'!' if link.is_embed else ''}[[{link.target}{subpath}]]"


def _backlinks(snapshot: VaultSnapshot, path: str) -> Reply:
    parts: list[Part] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    incoming = sorted(snapshot.incoming.get(path, ()), key=lambda item: (item.source.lower(), item.link.line))
    for item in incoming:
        where = snapshot.heading_path_at(item.source, item.link.line)
        if (item.source, where) in seen:
            continue
        seen.add((item.source, where))
        anchor = snapshot.anchor(item.source, where)
        kind = "embeds it" if item.link.is_embed else "links to it"
        parts.append(Part(f"- {item.source}: {anchor} {kind} (line {item.link.line})", (anchor,)))
    sources = len({item.source for item in incoming})
    target = snapshot.anchor(path)
    header = f"{sources} note(s) link to {target} ({path}):" if sources else f"No note links to {target} ({path})."
    return reply(Part(header, (target,)), *parts)


def _target_text(snapshot: VaultSnapshot, item: ResolvedLink) -> tuple[str, tuple[str, ...]]:
    if item.path is None:
        return "unresolved (no such note)", ()
    if item.path not in snapshot.notes:
        return f"{item.path} (a file, not a note)", ()
    anchor = snapshot.anchor(item.path)
    return f"{item.path} {anchor}", (anchor,)


def _outgoing(snapshot: VaultSnapshot, path: str) -> Reply:
    source = snapshot.anchor(path)
    links = snapshot.outgoing.get(path, ())
    parts = []
    for item in links:
        where, anchors = _target_text(snapshot, item)
        if not item.link.target:
            where = "a heading or block of this note"
        parts.append(Part(f"- line {item.link.line}: {_written(item.link)} -> {where}", anchors))
    header = f"{source} ({path}) has {len(links)} link(s) and embed(s), in file order:"
    return reply(Part(header if links else f"{source} ({path}) has no links.", (source,)), *parts)


def _orphans(snapshot: VaultSnapshot) -> Reply:
    orphans = sorted((path for path in snapshot.notes if not snapshot.incoming.get(path)), key=str.lower)
    parts = [Part(f"- {path} {snapshot.anchor(path)}", (snapshot.anchor(path),)) for path in orphans]
    return reply(f"{len(orphans)} note(s) have no incoming links:", *parts)


def _unresolved(snapshot: VaultSnapshot) -> Reply:
    by_target: dict[str, list[ResolvedLink]] = defaultdict(list)
    for items in snapshot.outgoing.values():
        for item in items:
            if item.path is None:
                by_target[item.link.target.casefold()].append(item)
    parts = []
    for _, written in sorted(by_target.items()):
        sources = sorted({item.source for item in written}, key=str.lower)
        anchors = tuple(snapshot.anchor(source) for source in sources)
        parts.append(Part(f"- [[{written[0].link.target}]] written in: {', '.join(anchors)}", anchors))
    if not parts:
        return reply("Every link resolves to a file in the vault.")
    return reply(f"{len(parts)} link target(s) do not exist:", *parts)


def run_links(reader: VaultReader, args: LinksArgs) -> Reply:
    """Answer a link-graph question over the current vault."""
    snapshot = reader.snapshot()
    if args.command == "orphans":
        return _orphans(snapshot)
    if args.command == "unresolved":
        return _unresolved(snapshot)
    path = snapshot.find_note(require(args.note, "note", f"links {args.command}"))
    return _backlinks(snapshot, path) if args.command == "backlinks" else _outgoing(snapshot, path)


# Words of a message that call for links (agent.tools.cues).
LINKS_CUES = (
    "link", "links", "linked", "linking", "backlink", "backlinks", "orphan", "orphans", "orphaned", "unresolved",
    "mention", "mentions", "references", "verlinkt", "verlinken", "verweist", "verweise",
)  # fmt: skip


LINKS = Tool(
    name="links",
    description="Follow [[links]] and ![[embeds]] between notes: what links to a note, what it links to.",
    args=LinksArgs,
    handler=run_links,
    cues=LINKS_CUES,
)
