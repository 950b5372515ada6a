"""One consistent view of the vault for a tool call: parsed notes, the resolved link graph, safe path handling."""

from __future__ import annotations

import difflib
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from core.domain import Link, Note, Task
from core.errors import AppError, InvalidRequest, NotFound
from rag.notes.frontmatter import property_of
from rag.notes.links import LinkResolver, heading_key
from rag.notes.vault import FileStat, clean_relative_path

_MAX_SUGGESTIONS = 5


def unwrap_note_ref(text: str) -> str:
    """Return a note reference without its link syntax: "![[Note#Heading|alias]]" -> "Note#Heading"."""
    ref = text.strip().removeprefix("!")
    if ref.startswith("[[") and ref.endswith("]]"):
        ref = ref[2:-2]
    return ref.split("|", 1)[0].strip()


def parse_note_ref(text: str) -> tuple[str, str]:
    """Split a note reference ("Note", "Folder/Note.md", "[[Note#Heading|alias]]") into (target, subpath)."""
    target, _, subpath = unwrap_note_ref(text).partition("#")
    return target.strip(), subpath.strip()


def has_tag(tags: Iterable[str], wanted: str) -> bool:
    """Return True when a tag equals `wanted` or is nested under it, ignoring case ("area" has "area/garden")."""
    key = wanted.strip().lstrip("#").casefold()
    return any(tag.casefold() == key or tag.casefold().startswith(f"{key}/") for tag in tags)


def property_value(note: Note, name: str) -> tuple[bool, object]:
    """Return (present, value) of a frontmatter property, matching its name case-insensitively like Obsidian."""
    return property_of(note.frontmatter, name)


@dataclass(frozen=True, slots=True)
class ResolvedLink:
    """A link written in `source` and the vault path it resolves to (None when unresolved)."""

    source: str
    link: Link
    path: str | None


@dataclass(frozen=True, slots=True)
class VaultSnapshot:
    """The vault at one moment: every note parsed, every file path, and links resolved both ways."""

    root: Path
    notes: Mapping[str, Note]
    stats: Mapping[str, FileStat]
    other_files: tuple[str, ...]
    resolver: LinkResolver
    outgoing: Mapping[str, tuple[ResolvedLink, ...]]
    incoming: Mapping[str, tuple[ResolvedLink, ...]]

    def anchor(self, path: str, heading_path: tuple[str, ...] = ()) -> str:
        """Return the citation that opens `path` at its innermost heading: [[Note#Heading]]."""
        return self.resolver.anchor_for(path, heading_path[-1] if heading_path else None)

    def heading_path_at(self, path: str, line: int) -> tuple[str, ...]:
        """Return the heading path of the section holding `line` of a note (() before any heading)."""
        found: tuple[str, ...] = ()
        for section in self.notes[path].sections:
            if section.line_start <= line:
                found = section.heading_path
        return found

    def in_folder(self, path: str, folder: str) -> bool:
        """Return True when `path` lies in `folder` or one of its sub-folders ("" is the whole vault)."""
        return not folder or path.lower().startswith(f"{folder.lower()}/")

    def tasks(self) -> Iterator[Task]:
        """Yield every task of every note, note by note."""
        return (task for note in self.notes.values() for task in note.tasks)

    def note_folders(self) -> set[str]:
        """Return every folder holding a note, in it or in a sub-folder ("Projects" of "Projects/Librarian/A.md")."""
        folders: set[str] = set()
        for path in self.notes:
            parts = path.split("/")[:-1]
            folders.update("/".join(parts[: depth + 1]) for depth in range(len(parts)))
        return folders

    def note_named(self, ref: str) -> str | None:
        """Return the path of the note `ref` names as `find_note` finds it, or None (none, several, or no name).

        No closest titles are looked for: asked once or twice a turn, that took 0.36 s over 2,721 notes.
        """
        try:
            return self._resolve(ref, suggest=False)[0]
        except AppError:
            return None

    def find_note(self, ref: str) -> str:
        """Return the path of the note `ref` names (path, name, alias or link), or raise NotFound / InvalidRequest."""
        return self.resolve_note_ref(ref)[0]

    def resolve_note_ref(self, ref: str) -> tuple[str, str]:
        """Return the path of the note `ref` names and the `#heading` or `#^block` it points into ("" for none).

        A path naming a note whose file name holds "#" ("Notes/F# tips.md", legal on disk, common in notes from git)
        is that note, not the heading " tips.md" of "Notes/F". A link or name ("[[Q#1]]", "A#B") is read as Obsidian
        reads it, a note and a heading, and as a whole name only when no note has the name before "#": our citations
        of such notes ("[[F# tips]]") come back that way, and "[[Q#1]]" stays heading 1 of Q beside a "Sub/Q#1.md".
        """
        return self._resolve(ref, suggest=True)

    def _resolve(self, ref: str, *, suggest: bool) -> tuple[str, str]:
        """Return what `resolve_note_ref` returns; `suggest`: its NotFound names the closest titles."""
        whole = unwrap_note_ref(ref)
        is_path = "#" in whole and not ref.strip().startswith("[[") and ("/" in whole or whole.lower().endswith(".md"))
        found = self._lookup_whole(whole) if is_path else None
        if found is not None:
            return found, ""
        target, subpath = parse_note_ref(ref)
        if not target:
            raise InvalidRequest("no note given: pass a name such as 'Sourdough' or a path like 'Daily/2026-11-05.md'")
        target = clean_relative_path(target, what="note")
        found = self._lookup(target)
        if "#" in whole and (found is None or not self._holds(found, subpath)):
            # No note has the name before "#", or it has no such heading: "[[F# tips]]" beside a "Notes/F.md".
            whole_found = self._lookup_whole(whole)
            if whole_found is not None:
                return whole_found, ""
        if found is None:
            raise NotFound(f"no note named '{target}'" + (self._suggest(target) if suggest else ""))
        return found, subpath

    def _holds(self, path: str, subpath: str) -> bool:
        """Return True when the note at `path` has the heading (its last level) or block `subpath` points to."""
        note = self.notes[path]
        if subpath.startswith("^"):
            return subpath[1:] in {block.id for block in note.block_ids}
        wanted = heading_key(subpath.split("#")[-1])
        return any(heading_key(heading.text) == wanted for heading in note.headings)

    def _lookup_whole(self, name: str) -> str | None:
        """Return the note a name holding "#" names as a whole, or None (also for a name no note path can have)."""
        try:
            return self._lookup(clean_relative_path(name, what="note"))
        except InvalidRequest:
            return None

    def _lookup(self, target: str) -> str | None:
        """Return the note `target` names by path, name or alias; None for none; InvalidRequest for several."""
        candidates = self.resolver.candidates(target, source_path="") or self._candidates_in_nfc(target)
        notes = [path for path in candidates if path in self.notes]
        if len(notes) == 1:
            return notes[0]
        if len(notes) > 1 and notes[0] == target:
            return notes[0]
        if notes:
            raise InvalidRequest(f"'{target}' matches several notes: {', '.join(notes)}; pass the full path of one")
        if candidates:
            raise InvalidRequest(f"'{candidates[0]}' is not a note (markdown file); it cannot be read as text")
        wanted = _name_key(target)
        by_alias = [path for path, note in self.notes.items() if wanted in map(_name_key, note.aliases)]
        return by_alias[0] if len(by_alias) == 1 else None

    def _candidates_in_nfc(self, target: str) -> list[str]:
        """Return the paths `target` names when both are compared in NFC, spelled as on disk.

        A vault synced from macOS often stores names decomposed ("Cafe\u0301 Notes.md") while people and models
        type them composed ("Café Notes"); both name one note, which must be found, not created a second time.
        """
        on_disk: dict[str, list[str]] = defaultdict(list)
        for path in (*self.notes, *self.other_files):
            on_disk[unicodedata.normalize("NFC", path)].append(path)
        wanted = unicodedata.normalize("NFC", target)
        if wanted == target and all(len(paths) == 1 and paths[0] == key for key, paths in on_disk.items()):
            return []  # nothing is spelled differently in NFC: the resolver has already answered
        found = LinkResolver(on_disk).candidates(wanted, source_path="")
        return [path for key in found for path in on_disk[key]]

    def _suggest(self, target: str) -> str:
        """Return a hint naming notes whose title is close to `target` (typos, partial names)."""
        paths = self.closest_notes(target)
        if not paths:
            return "; use search_notes to find it"
        return "; did you mean: " + ", ".join(paths) + "?"

    def closest_notes(self, target: str, limit: int = _MAX_SUGGESTIONS) -> list[str]:
        """Return the paths of the notes whose title is close to `target` (typos, partial names), closest first."""
        wanted = PurePosixPath(target).stem.casefold()
        by_title: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.notes):
            by_title[PurePosixPath(path).stem.casefold()].append(path)
        close = difflib.get_close_matches(wanted, by_title, n=limit, cutoff=0.6)
        close += [title for title in by_title if wanted in title and title not in close]
        # A title the name holds as words: "Dune Messiah" is closest to "Dune".
        close += [title for title in by_title if _holds_words(wanted, title) and title not in close]
        return [path for title in close for path in by_title[title]][:limit]

    def folder_exists(self, folder: str) -> bool:
        """Return True for "" (the vault root) or a folder holding at least one visible file."""
        return any(self.in_folder(path, folder) for path in (*self.notes, *self.other_files))

    def require_folder(self, text: str) -> str:
        """Return `text` as a vault folder spelled as on disk ("" for the root), or raise NotFound."""
        folder = clean_relative_path(text, what="folder")
        if not folder:
            return ""
        for path in (*self.notes, *self.other_files):
            if self.in_folder(path, folder):
                return path[: len(folder)]
        raise NotFound(f"no folder '{folder}' in the vault; use the vault tool's list_folder to see the folders")


def _holds_words(text: str, words: str) -> bool:
    """Return True when `text` holds `words` (four letters or more) as whole words.

    Found by `str.find`, not a pattern per title: a vault's thousands of titles each compiled one, every time.
    """
    if len(words) < 4:
        return False
    start = text.find(words)
    while start >= 0:
        end = start + len(words)
        if not (start and _is_word_char(text[start - 1])) and not (end < len(text) and _is_word_char(text[end])):
            return True
        start = text.find(words, start + 1)
    return False


def _is_word_char(char: str) -> bool:
    r"""Return True for a character of a word, as a pattern's `\w` reads one: a letter, a digit or "_"."""
    return char.isalnum() or char == "_"


def _name_key(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def build_snapshot(
    root: Path, notes: Mapping[str, Note], stats: Mapping[str, FileStat], other_files: tuple[str, ...]
) -> VaultSnapshot:
    """Resolve every link of every note once, so backlinks, orphans and unresolved links are lookups."""
    resolver = LinkResolver([*notes, *other_files])
    outgoing: dict[str, tuple[ResolvedLink, ...]] = {}
    incoming: dict[str, list[ResolvedLink]] = defaultdict(list)
    for path, note in notes.items():
        resolved = []
        for link in note.links:
            target = resolver.resolve(link.target, source_path=path).path if link.target else path
            item = ResolvedLink(path, link, target)
            resolved.append(item)
            if target is not None and target != path:
                incoming[target].append(item)
        outgoing[path] = tuple(resolved)
    return VaultSnapshot(
        root=root,
        notes=notes,
        stats=stats,
        other_files=other_files,
        resolver=resolver,
        outgoing=outgoing,
        incoming={path: tuple(items) for path, items in incoming.items()},
    )
