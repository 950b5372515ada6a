"""The vault's links and tags a question asks for, listed by code ("Which notes link to Books?", "List my tags").

Which notes link to a note, or carry a tag, is a fact of the whole vault that no passage holds (see
rag/answer/vault_questions.py for what the 0.5B made of them). The question is read by code, the note it names found
as a link would find it (a name no note has goes to the model, which may know better what was meant), and the reply
lists the notes, each a link, as the `links` and `tags` tools count them; no model is asked.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from datetime import date

from agent.tools.created_notes import created_notes, creation_date
from agent.tools.kind_lists import KindLists
from agent.tools.list_reply import MAX_LISTED, ListReply, capped, links_listed
from agent.tools.metadata import notes_with_tag, ranked_tags
from agent.tools.note_names import note_by_name
from agent.tools.outcome import format_value
from agent.tools.property_lists import notes_by_property
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot, unwrap_note_ref
from agent.tools.vault_tasks import templates_folder_or_none
from core.errors import AppError
from rag.answer.days_named import period_named
from rag.answer.excerpts import shortened
from rag.answer.note_requests import note_asked_by_name
from rag.answer.reading_view import visible_text
from rag.answer.secrets import redact_secrets
from rag.answer.vault_questions import vault_ask
from rag.notes.frontmatter import read_frontmatter
from rag.notes.inline import links_as_words
from rag.notes.scanner import split_lines

MAX_TAGS = 30  # tags (or top-level folders) listed at most, most used first
MAX_RECENT = 10  # notes listed for "my recently changed notes", latest first
OPENING_CHARS = 140  # of a note's opening line, listed to sum a folder up
_MAX_CLOSEST = 3


class VaultLists:
    """Answer a question about the vault's links or tags from the vault itself."""

    def __init__(self, reader: VaultReader, *, max_listed: int = MAX_LISTED) -> None:
        self._reader = reader
        self._max_listed = max_listed
        self._kinds = KindLists(reader, max_listed=max_listed)

    def reply_for(self, question: str) -> ListReply | None:
        """Return the list `question` asks for, or None when it asks for none (or names no note of the vault)."""
        if (name := note_asked_by_name(question)) is not None:  # "Summarize the Old idea note", no such note
            snapshot = self._reader.snapshot()
            templates = templates_folder_or_none(self._reader, snapshot)
            return _no_such_note(snapshot, name) if note_by_name(snapshot, name, templates) is None else None
        ask = vault_ask(question)
        if ask is None:
            return None
        snapshot = self._reader.snapshot()
        if ask.kind == "tags":
            return _tag_counts(snapshot)
        if ask.kind == "tagged":
            return self._tagged(snapshot, ask.tag)
        if ask.kind == "recent":
            return self._recent(snapshot, question, ask.name)
        if ask.kind == "folder":
            return self._folder(snapshot, ask.name, with_openings=ask.value == "openings")
        if ask.kind == "count":
            return _vault_count(snapshot)
        if ask.kind == "property":
            return self._property(snapshot, ask.name, ask.value, ask.of)
        if ask.kind == "created":
            return self._created(snapshot, question, ask.name)
        if ask.kind == "of_kind":
            return self._kinds.reply_for(snapshot, ask)
        path = snapshot.note_named(ask.name)
        if path is None and ask.kind in ("note_tags", "note_properties", "note_created"):
            # Sent to the model, "What tags does the Dune note have?" over a vault with no Dune got another note's.
            return _no_such_note(snapshot, ask.name)
        if path is None:
            return None
        if ask.kind == "note_tags":
            return _note_tags(snapshot, path)
        if ask.kind == "note_properties":
            return _note_properties(snapshot, path)
        if ask.kind == "note_created":
            return _note_created(snapshot, path)
        return self._backlinks(snapshot, path) if ask.kind == "backlinks" else self._outgoing(snapshot, path)

    def _backlinks(self, snapshot: VaultSnapshot, path: str) -> ListReply:
        target = snapshot.anchor(path)
        embeds_only: dict[str, bool] = {}  # note -> whether each of its links to the target is an embed
        for item in sorted(snapshot.incoming.get(path, ()), key=lambda item: item.source.lower()):
            if item.source != path:  # a link to its own heading is no backlink
                embeds_only[item.source] = embeds_only.get(item.source, True) and item.link.is_embed
        if not embeds_only:
            return ListReply(f"No note links to {target}.", (target,))
        lines = [(snapshot.anchor(source), " (embeds it)" if embeds else "") for source, embeds in embeds_only.items()]
        header = f"{len(lines)} {'note links' if len(lines) == 1 else 'notes link'} to {target}:"
        return self._listed(header, lines, (target,))

    def _outgoing(self, snapshot: VaultSnapshot, path: str) -> ListReply:
        source = snapshot.anchor(path)
        targets: dict[str, str] = {}  # the note (or written target) -> how the reply shows it
        for item in snapshot.outgoing.get(path, ()):
            if not item.link.target or item.path == path:
                continue  # a link to a heading of the note itself
            if item.path is None:
                targets.setdefault(item.link.target.casefold(), f"[[{item.link.target}]] (no such note yet)")
            elif item.path in snapshot.notes:
                targets.setdefault(item.path, snapshot.anchor(item.path))
            else:
                targets.setdefault(item.path, f"{item.path} (a file)")
        if not targets:
            return ListReply(f"{source} links to no other note.", (source,))
        header = f"{source} links to {len(targets)} note{'s' if len(targets) != 1 else ''} and file(s):"
        return self._listed(header, [(shown, "") for shown in targets.values()], (source,))

    def _tagged(self, snapshot: VaultSnapshot, tag: str) -> ListReply:
        paths = notes_with_tag(snapshot, tag)
        if not paths:
            closest = _closest_tags(snapshot, tag)
            suggestion = f" The closest tags: {', '.join(f'#{name}' for name in closest)}." if closest else ""
            return ListReply(f"No note is tagged #{tag}.{suggestion}", ())
        header = f"{len(paths)} note{'s' if len(paths) != 1 else ''} tagged #{tag} (sub-tags included):"
        return self._listed(header, [(snapshot.anchor(path), "") for path in paths], ())

    def _recent(self, snapshot: VaultSnapshot, question: str, folder_name: str = "") -> ListReply:
        """Return the notes changed on the days `question` names (by modification time), or the last ones changed."""
        changed = [
            _Dated(at.date(), path, at.strftime("%Y-%m-%d %H:%M"), at.timestamp())
            for path, stat in snapshot.stats.items()
            if path in snapshot.notes
            for at in (stat.modified,)
        ]
        return self._in_period(snapshot, question, changed, "changed", "by the files' modification times", folder_name)

    def _created(self, snapshot: VaultSnapshot, question: str, folder_name: str = "") -> ListReply:
        """Return the notes created in the period `question` names (the last ones created when it names none)."""
        made = created_notes(snapshot, templates=templates_folder_or_none(self._reader, snapshot))  # "{{date}}" no day
        if not made.dated:
            changed = self._recent(snapshot, question, folder_name)
            said = "Your notes keep no creation date (no note has a `created` property, and a file's creation time is "
            said += "not kept on every system). "
            return ListReply(said + changed.text, changed.anchors)
        source = f"by their `{made.property_names[0]}` property"
        if made.undated:
            source += f"; {made.undated} {'note has' if made.undated == 1 else 'notes have'} none"
        dated = [_Dated(day, path, day.isoformat(), day.toordinal()) for day, path in made.dated]
        return self._in_period(snapshot, question, dated, "created", source, folder_name)

    def _in_period(
        self, snapshot: VaultSnapshot, question: str, dated: list[_Dated], done: str, source: str, folder_name: str
    ) -> ListReply:
        """Return the notes `done` ("changed", "created") in the period `question` names, latest first.

        With no period named, the last MAX_RECENT; with `folder_name`, only that folder's (sub-folders included).
        """
        place = ""
        if folder_name:
            folder = _folder_named(snapshot, folder_name)
            if isinstance(folder, ListReply):
                return folder
            dated = [item for item in dated if snapshot.in_folder(item.path, folder)]
            place = f" in the folder {folder}"
        dated.sort(key=lambda item: (-item.order, item.path.casefold()))
        if not dated:
            return ListReply(f"No note{place} has a date it was {done} on ({source}).", ())
        days = period_named(question, self._reader.today())
        if days is None:
            last = dated[:MAX_RECENT]
            listed = "The note" if len(last) == 1 else f"The {len(last)} notes"
            header = f"{listed}{place} {done} last, latest first ({source}):"
            return self._listed(header, [(snapshot.anchor(item.path), f" ({item.shown})") for item in last], ())
        first, end = days
        when = f"on {first.isoformat()}" if first == end else f"from {first.isoformat()} to {end.isoformat()}"
        within = [item for item in dated if first <= item.day <= end]
        if not within:
            before = next((item for item in dated if item.day < first), None)
            said = f" The last one before: {snapshot.anchor(before.path)} ({before.shown})." if before else ""
            anchors = (snapshot.anchor(before.path),) if before else ()
            return ListReply(f"No note{place} was {done} {when} ({source}).{said}", anchors)
        count = f"{len(within)} {'note' if len(within) == 1 else 'notes'}"
        header = f"{count}{place} {done} {when}, latest first ({source}):"
        return self._listed(header, [(snapshot.anchor(item.path), f" ({item.shown})") for item in within], ())

    def _folder(self, snapshot: VaultSnapshot, name: str, *, with_openings: bool = False) -> ListReply:
        """Return the notes of the folder `name` (its sub-folders' too), or say no folder has that name.

        `with_openings`: each with its first line of text, asked to sum the folder up.
        """
        folder = _folder_named(snapshot, name)
        if isinstance(folder, ListReply):
            return folder
        paths = sorted((path for path in snapshot.notes if snapshot.in_folder(path, folder)), key=str.lower)
        if not paths:
            return ListReply(f"The folder {folder} holds no notes.", ())
        header = f"{len(paths)} {'note' if len(paths) == 1 else 'notes'} in the folder {folder} (sub-folders included):"
        if with_openings:
            header = header.removesuffix(":") + ", each with its opening line:"
            shown = paths[: self._max_listed]  # read only those listed
            openings = [(path, self._opening(snapshot, path)) for path in shown]
            lines = [(snapshot.anchor(path), f": {opening}" if opening else "") for path, opening in openings]
            return self._listed(header, lines + [(snapshot.anchor(path), "") for path in paths[len(shown) :]], ())
        return self._listed(header, [(snapshot.anchor(path), "") for path in paths], ())

    def _opening(self, snapshot: VaultSnapshot, path: str) -> str:
        """Return a note's first line of text (no property, heading, embed or comment), shortened; "" for none.

        What reading view hides (`%%…%%`, `<!-- … -->`) is never quoted (rag/answer/reading_view.py).
        """
        try:
            lines = split_lines(visible_text(self._reader.read_text(snapshot, path)))
        except (AppError, OSError):  # a note gone since the scan: listed without its opening
            return ""
        for line in lines[read_frontmatter(lines).body_start :]:
            text = line.strip().lstrip(">-*+ ").strip()
            if text and not text.startswith(("#", "![[", "```", "|")):
                shown = shortened(links_as_words(text), OPENING_CHARS)
                return redact_secrets(shown) if self._reader.redacts_secrets else shown
        return ""

    def _property(self, snapshot: VaultSnapshot, name: str, value: str, of: str) -> ListReply | None:
        """Return the notes (of the kind `of`) whose property `name` holds `value` (any value for "").

        None when no note (of that kind) has the property: the words were something else ("notes have links to …").
        """
        found = notes_by_property(snapshot, name, value, of, templates=templates_folder_or_none(self._reader, snapshot))
        if found is None:
            return None
        count = len(found.notes)
        kind = f"the {of.casefold()} ({found.kind_size} in all)" if of else ""
        if not count:
            none = f"None of {kind}" if of else "No note"
            return ListReply(f"{none} has {found.asked}. Its values: {found.values}.", ())
        header = f"{count} {'note has' if count == 1 else 'notes have'} {found.asked}:"
        if of:
            header = f"{count} of {kind} {'has' if count == 1 else 'have'} {found.asked}:"
        lines = [(snapshot.anchor(path), f": {shown}" if found.shows_values else "") for path, shown in found.notes]
        return self._listed(header, lines, ())

    def _listed(self, header: str, lines: list[tuple[str, str]], anchors: tuple[str, ...]) -> ListReply:
        return links_listed(header, lines, self._max_listed, anchors)


def _tag_counts(snapshot: VaultSnapshot) -> ListReply:
    """Return the vault's tags, most used first, with the number of notes carrying each."""
    ranked = ranked_tags(snapshot)
    if not ranked:
        return ListReply("No note has a tag.", ())
    lines = [f"{len(ranked)} tag{'s' if len(ranked) != 1 else ''}, most used first (notes carrying each):"]
    lines += capped([f"- #{tag}: {count}" for tag, count in ranked], MAX_TAGS)
    return ListReply("\n".join(lines), ())


def _vault_count(snapshot: VaultSnapshot) -> ListReply:
    """Return the number of notes and other files, and the notes of each top-level folder, most first."""
    by_folder = Counter(path.split("/", 1)[0] if "/" in path else "" for path in snapshot.notes)
    others = len(snapshot.other_files)
    besides = f", and {others} other file{'s' if others != 1 else ''} (images, PDFs, bases …)" if others else ""
    lines = [f"{len(snapshot.notes)} notes in the vault{besides}, by top-level folder:"]
    ranked = sorted(by_folder.items(), key=lambda item: (-item[1], item[0].casefold()))
    lines += capped(
        [f"- {folder or 'at the top of the vault'}: {count}" for folder, count in ranked], MAX_TAGS, more="more folders"
    )
    return ListReply("\n".join(lines), ())


def _no_such_note(snapshot: VaultSnapshot, name: str) -> ListReply:
    """Say that no single note has the name asked about, naming the closest titles."""
    close = [snapshot.anchor(path) for path in snapshot.closest_notes(name, _MAX_CLOSEST)]
    suggestion = f" The closest: {', '.join(close)}." if close else ""
    return ListReply(f"No single note in the vault is called “{unwrap_note_ref(name)}”.{suggestion}", tuple(close))


def _note_tags(snapshot: VaultSnapshot, path: str) -> ListReply:
    """Return the tags of one note, in its properties and its text."""
    anchor = snapshot.anchor(path)
    tags = snapshot.notes[path].tags
    if not tags:
        return ListReply(f"{anchor} has no tags.", (anchor,))
    listed = ", ".join(f"#{tag}" for tag in tags)
    return ListReply(f"{anchor} has {len(tags)} tag{'s' if len(tags) != 1 else ''}: {listed}.", (anchor,))


def _note_properties(snapshot: VaultSnapshot, path: str) -> ListReply:
    """Return the properties of one note, as its frontmatter has them."""
    anchor = snapshot.anchor(path)
    properties = snapshot.notes[path].frontmatter
    if not properties:
        return ListReply(f"{anchor} has no properties.", (anchor,))
    lines = [f"{anchor} has {len(properties)} propert{'ies' if len(properties) != 1 else 'y'}:"]
    lines += [f"- {name}: {format_value(value)}" for name, value in properties.items()]
    return ListReply("\n".join(lines), (anchor,))


def _note_created(snapshot: VaultSnapshot, path: str) -> ListReply:
    """Return the day one note was created, by its creation-date property, or say it keeps none."""
    anchor = snapshot.anchor(path)
    found = creation_date(snapshot.notes[path])
    if found is not None:
        return ListReply(f"{anchor} was created on {found[1].isoformat()} (its `{found[0]}` property).", (anchor,))
    said = f"{anchor} keeps no creation date (no `created` property, and a file's creation time is not kept on every "
    said += "system)"
    stat = snapshot.stats.get(path)
    changed = f"; it was last changed {stat.modified:%Y-%m-%d %H:%M}" if stat else ""
    return ListReply(f"{said}{changed}.", (anchor,))


@dataclass(frozen=True, slots=True)
class _Dated:
    """A note with the day it was changed or created, as shown, and its order (latest highest)."""

    day: date
    path: str
    shown: str
    order: float


def _folder_named(snapshot: VaultSnapshot, name: str) -> str | ListReply:
    """Return the folder `name` names (its path, or its last part when one folder alone ends so), else the reply."""
    folders = snapshot.note_folders()
    matches = [folder for folder in folders if folder.casefold() == name.casefold()] or [
        folder for folder in folders if folder.rsplit("/", 1)[-1].casefold() == name.casefold()
    ]
    if len(matches) == 1:
        return matches[0]
    by_name = {folder.rsplit("/", 1)[-1].casefold(): folder for folder in sorted(folders)}
    close = [by_name[key] for key in difflib.get_close_matches(name.casefold(), by_name, n=_MAX_CLOSEST)]
    named = "several folders" if matches else "no folder"
    closest = f" The closest: {', '.join(matches or close)}." if matches or close else ""
    return ListReply(f"The vault has {named} called “{name}”.{closest}", ())


def _closest_tags(snapshot: VaultSnapshot, tag: str) -> list[str]:
    tags = {name.casefold(): name for note in snapshot.notes.values() for name in note.tags}
    return [tags[key] for key in difflib.get_close_matches(tag.casefold(), tags, n=_MAX_CLOSEST)]
