"""The `read_note` and `vault` tools: a note or one heading of it; folders, note lists, recent and random notes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent.tools.bases.embeds import BaseEmbeds
from agent.tools.definition import Tool, ToolArgs
from agent.tools.outcome import Part, Reply, note_part, reply
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.errors import NotFound
from rag.notes.links import heading_key
from rag.notes.transclusion import extract_embedded_text

_OUTLINE_HEADINGS = 30


class ReadNoteArgs(ToolArgs):
    """Arguments of read_note."""

    note: str = Field(description="The note's name, path or [[link]].")
    heading: str = Field("", description="Only this heading's section, e.g. 'Final recipe' (or '^block-id').")


def _outline(snapshot: VaultSnapshot, path: str) -> str:
    headings = [heading.text for heading in snapshot.notes[path].headings][:_OUTLINE_HEADINGS]
    return f"Its headings: {'; '.join(headings)}." if headings else "It has no headings."


def _section(snapshot: VaultSnapshot, path: str, text: str, subpath: str) -> Part:
    link_text = snapshot.resolver.link_text_for(path)
    if subpath.startswith("^"):
        block = subpath[1:].strip()
        body = extract_embedded_text(text, block=block)
        if body is None:
            raise NotFound(f"{path} has no block ^{block}")
        return note_part(path, f"[[{link_text}#^{block}]]", body)
    body = extract_embedded_text(text, heading=subpath)
    if body is None:
        raise NotFound(f"{path} has no heading '{subpath}'. {_outline(snapshot, path)}")
    wanted = heading_key(subpath.split("#")[-1])
    found = next((h.text for h in snapshot.notes[path].headings if heading_key(h.text) == wanted), subpath)
    return note_part(path, snapshot.anchor(path, (found,)), body)


def run_read_note(reader: VaultReader, args: ReadNoteArgs) -> Reply:
    """Return a note's text, or one heading's section or block of it, delimited with its citation."""
    snapshot = reader.snapshot()
    path, linked_subpath = snapshot.resolve_note_ref(args.note)
    subpath = args.heading.strip().lstrip("#").strip() or linked_subpath
    text = BaseEmbeds(reader).written_out(reader.read_text(snapshot, path), path, snapshot)
    if subpath:
        return reply(_section(snapshot, path, text, subpath))
    hint = f"Read one section with the heading parameter. {_outline(snapshot, path)}"
    return reply(note_part(path, snapshot.anchor(path), text), more_hint=hint)


READ_NOTE = Tool(
    name="read_note",
    description="Read a note's whole text or one heading's section, when a passage is not enough.",
    args=ReadNoteArgs,
    handler=run_read_note,
)


class VaultArgs(ToolArgs):
    """Arguments of vault."""

    command: Literal["list_folder", "list_notes", "recent", "random"] = Field(
        description="list_folder: what is directly in folder; list_notes: all notes under it; recent: last "
        "modified; random: read one."
    )
    folder: str = Field("", description="A vault folder; empty: the whole vault.")
    limit: int = Field(20, ge=1, le=200, description="At most this many notes.")


def _list_folder(snapshot: VaultSnapshot, folder: str) -> Reply:
    prefix = f"{folder}/" if folder else ""
    folders: dict[str, int] = {}
    files: list[Part] = []
    for path in sorted((*snapshot.notes, *snapshot.other_files), key=str.lower):
        if not path.lower().startswith(prefix.lower()):
            continue
        rest = path[len(prefix) :]
        if "/" in rest:
            child = rest.split("/", 1)[0]
            folders[child] = folders.get(child, 0) + int(path in snapshot.notes)
        elif path in snapshot.notes:
            files.append(Part(f"- {path} {snapshot.anchor(path)}", (snapshot.anchor(path),)))
        else:
            files.append(Part(f"- {path} (not a note)"))
    lines = [f"- {prefix}{name}/ ({count} notes)" for name, count in folders.items()]
    title = f"Folder '{folder}'" if folder else "Vault root"
    return reply(f"{title}: {len(folders)} sub-folder(s), {len(files)} file(s).", *lines, *files)


def _note_lines(snapshot: VaultSnapshot, paths: list[str], limit: int, detail: dict[str, str] | None = None) -> Reply:
    shown = paths[:limit]
    parts = []
    for path in shown:
        anchor = snapshot.anchor(path)
        extra = f" ({detail[path]})" if detail else ""
        parts.append(Part(f"- {path} {anchor}{extra}", (anchor,)))
    more = f" (showing {len(shown)}; raise limit for more)" if len(paths) > len(shown) else ""
    return reply(f"{len(paths)} note(s){more}:", *parts)


def run_vault(reader: VaultReader, args: VaultArgs) -> Reply:
    """Browse the vault: a folder's contents, its notes, recent notes, or one random note."""
    snapshot = reader.snapshot()
    folder = snapshot.require_folder(args.folder)
    paths = sorted((path for path in snapshot.notes if snapshot.in_folder(path, folder)), key=str.lower)
    if args.command == "list_folder":
        return _list_folder(snapshot, folder)
    if args.command == "list_notes":
        return _note_lines(snapshot, paths, args.limit)
    if not paths:
        raise NotFound(f"no notes in '{folder or 'the vault'}'")
    if args.command == "recent":
        paths.sort(key=lambda path: snapshot.stats[path].mtime_ns, reverse=True)
        modified = {
            path: "modified " + snapshot.stats[path].modified.strftime("%Y-%m-%d %H:%M") for path in paths[: args.limit]
        }
        return _note_lines(snapshot, paths, args.limit, modified)
    path = reader.rng.choice(paths)
    text = reader.read_text(snapshot, path)
    return reply(note_part(path, snapshot.anchor(path), text), more_hint=_outline(snapshot, path))


# Words of a message that call for vault (agent.tools.cues).
VAULT_CUES = (
    "folder", "folders", "file", "files", "recent", "recently", "latest", "newest", "random", "ordner", "dateien",
    "zuletzt", "list notes", "list my notes", "how many notes",
)  # fmt: skip


VAULT = Tool(
    name="vault",
    description="Browse folders and files: a folder's contents, all notes, recent or random notes.",
    args=VaultArgs,
    handler=run_vault,
    cues=VAULT_CUES,
)
