"""The vault as collectors read it: scanned once, templates and the crew root left out, each note read exactly.

A note's content hash is taken over the same text the writers compare (`edits.writers.files.read_exact_text`:
exact bytes, strict UTF-8, BOM and line endings kept), so a later write's staleness check sees any edit since.
Only what the model is shown is shortened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from core.errors import InvalidRequest
from crews.collectors.base import CollectContext, CollectorError
from edits.diffs import content_hash
from rag.answer.reading_view import visible_text
from rag.answer.secrets import REDACTED, redact_secrets
from rag.notes.frontmatter import read_frontmatter
from rag.notes.obsidian_config import FALLBACK_TEMPLATES_FOLDER, configured_templates_folder
from rag.notes.scanner import split_lines
from rag.notes.vault import VaultScan, clean_relative_path, is_ignored, is_private, read_note_text, scan_vault

MAX_ITEM_CHARS = 4_000  # of one note's text kept in the material (the renderer shortens further to fit)
MAX_VALUE_CHARS = 300  # of one frontmatter text value shown
MAX_LIST_ITEMS = 30  # of one frontmatter list shown
MAX_KEYS = 30  # frontmatter properties shown per note
Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class NoteText:
    """One note as read for a collector."""

    path: str
    text: str  # exact text, as the writer compares it
    content_hash: str
    frontmatter: Mapping[str, object]
    frontmatter_error: str | None
    has_frontmatter: bool
    body: str  # the text after the frontmatter

    @property
    def title(self) -> str:
        """Return the note's `title` property (TaskNotes keeps one), else its file name."""
        value = self.frontmatter.get("title")
        return value.strip() if isinstance(value, str) and value.strip() else PurePosixPath(self.path).stem


@dataclass(slots=True)
class VaultNotes:
    """The notes a collector may read, from one scan of the vault, and the ones it had to skip (with why)."""

    context: CollectContext
    scan: VaultScan
    templates: str | None
    skipped: list[str] = field(default_factory=list)

    @classmethod
    def open(cls, context: CollectContext) -> VaultNotes:
        """Scan the vault once (dot-folders, IGNORE_GLOBS and PRIVATE_FOLDERS are never listed)."""
        scan = scan_vault(context.vault)
        templates = configured_templates_folder(scan.root)
        if templates is None and (scan.root / FALLBACK_TEMPLATES_FOLDER).is_dir():
            templates = FALLBACK_TEMPLATES_FOLDER
        return cls(context=context, scan=scan, templates=templates)

    def folder(self, folder: str) -> str:
        """Return `folder` as the vault spells it ("" for the whole vault), or raise CollectorError."""
        try:
            wanted = clean_relative_path(folder, what="folder")
        except InvalidRequest as exc:
            raise CollectorError(exc.message) from exc
        if not wanted:
            return ""
        if self.is_excluded(wanted):
            raise CollectorError(f"the folder '{wanted}' is private or ignored; crews never read it")
        if (self.scan.root / wanted).is_dir():
            return wanted
        # Forgive the case ("tasknotes"), as Obsidian's own search does, when one folder fits.
        depth = wanted.count("/") + 1
        spelled = {
            head
            for path in self.scan.notes
            if path.count("/") >= depth and (head := "/".join(path.split("/")[:depth])).casefold() == wanted.casefold()
        }
        if len(spelled) == 1:
            return spelled.pop()
        raise CollectorError(f"the folder '{wanted}' does not exist in the vault")

    def is_excluded(self, path: str) -> bool:
        """Return True for a path in the crew root, or one IGNORE_GLOBS or PRIVATE_FOLDERS name."""
        vault = self.context.vault
        return (
            self.in_crew_root(path) or is_ignored(path, vault.ignore_globs) or is_private(path, vault.private_folders)
        )

    def in_crew_root(self, path: str) -> bool:
        """Return True for a path in the crew root (the scan already left out what the ignore globs name)."""
        crew_root = self.context.crew_root.strip("/")
        return bool(crew_root) and (path == crew_root or path.startswith(f"{crew_root}/"))

    def is_template(self, path: str) -> bool:
        """Return True for a note in the templates folder."""
        return bool(self.templates) and path.startswith(f"{self.templates}/")

    def paths(self, folder: str) -> list[str]:
        """Return the notes under `folder` (recursive), templates left out unless `folder` is the templates folder."""
        prefix = f"{folder}/" if folder else ""
        keep_templates = bool(folder) and self.is_template(prefix)
        return sorted(
            (
                path
                for path in self.scan.notes
                if path.startswith(prefix)
                and not self.in_crew_root(path)
                and (keep_templates or not self.is_template(path))
            ),
            key=str.casefold,
        )

    def read(self, path: str) -> NoteText | None:
        """Return the note split into frontmatter and body, or None (see `read_text`)."""
        text = self.read_text(path)
        return note_text(path, text) if text is not None else None

    def read_text(self, path: str) -> str | None:
        """Return the note's exact text, or None (and a line in `skipped`) when it is too large, not UTF-8 or gone.

        The scan has already refused symlinks and anything outside the vault, so the bytes are read directly
        (`O_NOFOLLOW`), not through the writer's per-path checks: the same bytes `read_exact_text` returns, at a
        fraction of its cost over thousands of notes.
        """
        stat = self.scan.notes.get(path)
        if stat is not None and stat.size > self.context.vault.max_note_bytes:
            self.skipped.append(f"{path}: larger than MAX_NOTE_BYTES ({stat.size:,} bytes)")
            return None
        try:
            data, _, _ = read_note_text(self.scan.root, path)
            text = data.decode("utf-8")  # strict and BOM kept, as read_exact_text reads it
        except FileNotFoundError:
            self.skipped.append(f"{path}: no longer exists")
            return None
        except UnicodeDecodeError:
            self.skipped.append(f"{path}: not UTF-8 text")
            return None
        except OSError as exc:
            self.skipped.append(f"{path}: cannot be read ({exc.strerror or exc})")
            return None
        return text

    def shown_text(self, text: str) -> str:
        """Return note text as the model may see it: comments removed, secrets masked, at most MAX_ITEM_CHARS."""
        visible = visible_text(text).strip()
        if self.context.vault.redact_secrets:
            visible = redact_secrets(visible)
        return cap_text(visible, MAX_ITEM_CHARS)

    def shown_frontmatter(self, note: NoteText, keys: tuple[str, ...] | None = None) -> dict[str, object]:
        """Return the note's properties worth showing: scalars and lists of scalars, short, secrets masked."""
        wanted = {key.casefold() for key in keys} if keys is not None else None
        shown: dict[str, object] = {}
        for key, value in note.frontmatter.items():
            if len(shown) >= MAX_KEYS:
                break
            if wanted is not None and key.casefold() not in wanted:
                continue
            compact = _compact(value)
            if compact is None or (key == "title" and compact == note.title):
                continue
            shown[key] = self._masked(key, compact)
        return shown

    def _masked(self, key: str, value: object) -> object:
        if not self.context.vault.redact_secrets or not isinstance(value, str):
            return value
        # The keyword detector reads `key: value` lines: `password: hunter2` is a secret, `hunter2` alone is not.
        return REDACTED if redact_secrets(f"{key}: {value}") != f"{key}: {value}" else value


def note_text(path: str, text: str) -> NoteText:
    """Split a note's exact text into frontmatter and body."""
    lines = split_lines(text)
    front = read_frontmatter(lines)
    has_frontmatter = front.body_start > 0
    return NoteText(
        path=path,
        text=text,
        content_hash=content_hash(text),
        frontmatter=front.data,
        frontmatter_error=front.error,
        has_frontmatter=has_frontmatter,
        body="\n".join(lines[front.body_start :]) if has_frontmatter else text.removeprefix("\ufeff"),
    )


def cap_text(text: str, limit: int) -> str:
    """Return `text` within `limit` characters, cut at a line end when one is near, saying how much was cut."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    newline = head.rfind("\n")
    head = head[:newline] if newline > limit // 2 else head
    return f"{head.rstrip()}\n… [{len(text) - len(head):,} more characters not shown]"


def _compact(value: object) -> object:
    """Return a property value as shown (None: nothing worth showing, e.g. an empty or nested value)."""
    if isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return cap_text(value, MAX_VALUE_CHARS) if value.strip() else None
    if isinstance(value, list):
        items = [item for item in value if isinstance(item, Scalar) and item != ""]
        if not items or len(items) < len(value) - value.count(None):
            return None  # a list of objects (time entries, reminders): bookkeeping, not a field to triage
        return items[:MAX_LIST_ITEMS]
    return None


def value_strings(value: object) -> list[str]:
    """Return a property value as the strings a filter or an output compares: scalars and list items."""
    items = value if isinstance(value, list) else [value]
    strings = []
    for item in items:
        if isinstance(item, bool):
            strings.append("true" if item else "false")
        elif isinstance(item, int | float | str) and str(item).strip():
            strings.append(str(item).strip())
    return strings
