"""Propose-only `move_note` (move or rename, links kept working) and `delete_note` (to `.trash/`) tools."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import Field

from agent.propose.kit import PlannedEdit, ProposeContext, ProposeTool
from agent.propose.paths import check_new_folders, with_folders_as_on_disk
from agent.tools.definition import ToolArgs, require
from agent.tools.snapshot import VaultSnapshot, parse_note_ref, unwrap_note_ref
from core.errors import InvalidRequest, NotFound
from edits.scope import check_writable
from edits.text.links import LinkMove, rewrite_links
from rag.notes.links import backlink_keys, link_key
from rag.notes.vault import clean_relative_path

_EXTENSION = re.compile(r"\.([A-Za-z][A-Za-z0-9]{0,5})$")
_MAX_NAMED = 5  # notes named in an operation's text; the rest are counted


class MoveNoteArgs(ToolArgs):
    """Arguments of move_note."""

    path: str = Field(description="The note's path, name or [[link]].")
    new_path: str = Field(description="A new path, a folder ending in '/' (keeps the name), or a new name.")


class DeleteNoteArgs(ToolArgs):
    """Arguments of delete_note."""

    path: str = Field(description="The note's path, name or [[link]].")


def plan_move_note(context: ProposeContext, args: MoveNoteArgs) -> list[PlannedEdit]:
    """Plan a move: the note at its new path, then every note whose links to it (or via it) would break."""
    old = _existing_note(context, args.path, usage="move_note")
    new = _target_path(context, old, require(args.new_path, "new_path", "move_note"))
    before = _read(context, old)
    snapshot = context.snapshot()
    move = LinkMove.between([*snapshot.notes, *snapshot.other_files], old, new)
    edits = [PlannedEdit("move", old, before, rewrite_links(before, source=old, move=move), new_path=new)]
    kept_broken = []
    for source in _link_sources(snapshot, old, new):
        text = context.read(source)
        after = None if text is None else rewrite_links(text, source=source, move=move)
        if text is None or after == text:
            continue
        if not _is_writable(context, source):
            kept_broken.append(source)
            continue
        edits.append(PlannedEdit("update links", source, text, after, follows_first=True))
    if kept_broken:
        operation = f"move (links in {_names(kept_broken)} break: those notes may not be written)"
        edits[0] = replace(edits[0], operation=operation)
    return edits


def plan_delete_note(context: ProposeContext, args: DeleteNoteArgs) -> list[PlannedEdit]:
    """Plan a delete (to `.trash/`); the operation names the notes whose links to it will break."""
    path = _existing_note(context, args.path, usage="delete_note")
    before = _read(context, path)
    incoming = context.snapshot().incoming.get(path, ())
    sources = sorted({link.source for link in incoming if link.source != path})
    sources = [source for source in sources if context.read(source) is not None]
    operation = f"delete to .trash/ (links to it break in {_names(sources)})" if sources else "delete to .trash/"
    return [PlannedEdit(operation, path, before, None)]


def _existing_note(context: ProposeContext, ref: str, *, usage: str) -> str:
    """Return the path of the note `ref` names, as it stands this turn (earlier proposals included)."""
    try:
        path = context.snapshot().find_note(require(ref, "path", usage))
    except NotFound:
        # A note created (or moved here) earlier this turn is not in the vault yet: accept its exact path, the
        # whole of it first, as find_note does ("Notes/C# basics.md" is a name, not a heading of "Notes/C").
        for target in dict.fromkeys((unwrap_note_ref(ref), parse_note_ref(ref)[0])):
            candidate = _with_md(clean_relative_path(target, what="note"))
            check_writable(candidate, settings=context.settings)  # never read a private note, even to find it
            if context.read(candidate) is not None:
                return candidate
        raise
    if context.read(path) is None:
        raise NotFound(f"{path!r} is moved or deleted by a change proposed earlier in this turn")
    return path


def _read(context: ProposeContext, path: str) -> str:
    text = context.read(path)
    if text is None:
        raise NotFound(f"{path!r} does not exist")
    return text


def _with_md(path: str) -> str:
    return path if path.lower().endswith(".md") else path + ".md"


def _target_path(context: ProposeContext, old: str, raw: str) -> str:
    """Return the new path `raw` means (full path, folder ending in '/', or a new name), or refuse it."""
    text = raw.replace("\\", "/")
    old_folder, _, old_name = old.rpartition("/")
    if text.endswith("/"):
        folder, name = text, old_name
    elif "/" in text:
        folder, _, name = text.rpartition("/")
    else:
        folder, name = old_folder, text
        _refuse_folder_name(context, text, old_folder)
    folder = clean_relative_path(folder, what="folder")
    name = name.strip()
    extension = _EXTENSION.search(name)
    if extension and extension[1].lower() != "md":
        raise InvalidRequest(
            f"'{name}' is not a note name: only Markdown notes (.md) can be moved; "
            f"pass '{name}.md' if the dot is part of the name"
        )
    name = _with_md(name)
    if name[:-3].strip() == "":
        raise InvalidRequest("the new name is empty; give a name such as 'Garden plan'")
    new = with_folders_as_on_disk(context.snapshot(), f"{folder}/{name}" if folder else name)
    check_new_folders(context.snapshot(), new, kept_name=old_name)
    new = check_writable(new, settings=context.settings)
    _refuse_taken(context, old, new)
    return new


def _refuse_folder_name(context: ProposeContext, name: str, old_folder: str) -> None:
    """Refuse a bare name that is also a folder's: "move to Archive" must not rename the note "Archive"."""
    if name.lower().endswith(".md"):
        return
    snapshot = context.snapshot()
    for folder in (name, f"{old_folder}/{name}" if old_folder else name):
        if snapshot.folder_exists(folder):
            raise InvalidRequest(
                f"'{name}' is a folder: pass '{name}/' to move the note into it, or '{name}.md' to rename it"
            )


def _refuse_taken(context: ProposeContext, old: str, new: str) -> None:
    """Refuse a target that is the note itself or already taken (in the vault or by this turn's proposals)."""
    if new == old:
        raise InvalidRequest(f"{old!r} is already at that path; nothing to move")
    if _same_name(new, old):
        return  # a change of case or Unicode form only: the same file on macOS disks, so it cannot be "taken"
    if context.read(new) is not None:
        raise InvalidRequest(f"a note already exists at {new!r}; choose another name or folder")
    snapshot = context.snapshot()
    for path in (*snapshot.notes, *snapshot.other_files):
        if path == old or not _same_name(path, new):
            continue
        if path.casefold() == new.casefold():
            raise InvalidRequest(f"{path!r} differs from {new!r} only in case; Obsidian would take them for one")
        raise InvalidRequest(f"a note with this name already exists: {path!r} (it differs only in Unicode form)")


def _same_name(first: str, second: str) -> bool:
    """Return True for paths Obsidian and macOS disks take for one: equal ignoring case and NFC/NFD form."""
    return unicodedata.normalize("NFC", first).casefold() == unicodedata.normalize("NFC", second).casefold()


def _link_sources(snapshot: VaultSnapshot, old: str, new: str) -> list[str]:
    """Return the notes whose links may need rewriting: links to the note, and links its new name could capture."""
    sources = {link.source for link in snapshot.incoming.get(old, ())}
    captured = backlink_keys(new)
    for source, links in snapshot.outgoing.items():
        if any(item.link.target and link_key(item.link.target) in captured for item in links):
            sources.add(source)
    sources.discard(old)
    return sorted(sources)


def _is_writable(context: ProposeContext, path: str) -> bool:
    try:
        check_writable(path, settings=context.settings)
    except InvalidRequest:
        return False
    return True


def _names(paths: Sequence[str]) -> str:
    named = ", ".join(paths[:_MAX_NAMED])
    return named if len(paths) <= _MAX_NAMED else f"{named} and {len(paths) - _MAX_NAMED} more"


MOVE_NOTE: ProposeTool[MoveNoteArgs] = ProposeTool(
    name="move_note",
    description=(
        "Propose moving or renaming one note; links to it are updated. Nothing is written until the user replies yes."
    ),
    args=MoveNoteArgs,
    planner=plan_move_note,
)
DELETE_NOTE: ProposeTool[DeleteNoteArgs] = ProposeTool(
    name="delete_note",
    description=(
        "Propose deleting one note into the vault's .trash/ (undo brings it back; links to it break). "
        "Nothing is written until the user replies yes."
    ),
    args=DeleteNoteArgs,
    planner=plan_delete_note,
)
MOVE_TOOLS: tuple[ProposeTool[Any], ...] = (MOVE_NOTE, DELETE_NOTE)
