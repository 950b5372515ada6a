"""What a crew's actions plan and check against: the vault, the write rules, the crew root and the run's day.

`{daily}` (today's daily note, where the Daily notes settings put it) and `{date}` (today, YYYY-MM-DD) stand for
the run's day in a team's `write_scope` and in action params. A missing daily note starts from the Daily notes
template, found as Obsidian resolves the setting (a link to a note).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from core.errors import NotFound
from core.settings import CrewSettings, VaultSettings, WriteSettings
from edits.text.templates import new_daily_note_text
from edits.writers.files import read_exact_text
from rag.notes.links import LinkResolver
from rag.notes.obsidian_config import daily_note_path, daily_notes_config
from rag.notes.vault import clean_relative_path, is_private, scan_vault

DAILY_PLACEHOLDER = "{daily}"
DATE_PLACEHOLDER = "{date}"


@dataclass(frozen=True, slots=True)
class ActionContext:
    """The vault and the rules a run's actions work under (built once per run by the runner)."""

    vault: VaultSettings  # root, ignore globs (the crew root among them), private folders
    writes: WriteSettings  # the edit layer's rules: WRITABLE_FOLDERS, PRIVATE_FOLDERS, MAX_NOTE_WRITE_BYTES ...
    crew_root: str  # vault-relative; never written by a crew
    today: date
    now: datetime  # local time ({{time}} in templates)

    @classmethod
    def for_run(
        cls, vault: VaultSettings, writes: WriteSettings, crews: CrewSettings, *, now: datetime
    ) -> ActionContext:
        """Return the context of a run started at `now` (local time: today is the user's day)."""
        return cls(vault=vault, writes=writes, crew_root=crews.root.strip("/"), today=now.date(), now=now)

    @property
    def root(self) -> Path:
        """Return the vault folder."""
        return self.vault.path

    def read(self, path: str) -> str | None:
        """Return a note's exact text (the bytes collection hashed), None when it does not exist."""
        return read_exact_text(self.root, path)

    def daily_path(self) -> str:
        """Return the path of today's daily note (it may not exist yet)."""
        return daily_note_path(daily_notes_config(self.root), self.today)

    def expand(self, text: str) -> str:
        """Return `text` with `{daily}` and `{date}` filled in for the run's day."""
        if DAILY_PLACEHOLDER in text:
            text = text.replace(DAILY_PLACEHOLDER, self.daily_path())
        return text.replace(DATE_PLACEHOLDER, self.today.isoformat())

    def new_daily_note_text(self) -> str:
        """Return the text today's daily note starts with when a run creates it: its template filled in, or ""."""
        return new_daily_note_text(
            daily_notes_config(self.root), day=self.today, now=self.now, find_note=self.find_note, read=self.read
        )

    def find_note(self, ref: str) -> str:
        """Return the note a setting names ("Templates/Daily", "Daily template"), resolved as Obsidian resolves a link.

        The exact path is tried first, so a template in a folder IGNORE_GLOBS keeps out of the index still works.
        Private folders and the crew root are never used.
        """
        target = clean_relative_path(ref.strip().removeprefix("[[").removesuffix("]]"), what="note")
        for candidate in (target, f"{target}.md"):
            if candidate.lower().endswith(".md") and self._may_use(candidate) and self.read(candidate) is not None:
                return candidate
        resolver = LinkResolver(scan_vault(self.vault).all_paths)
        found = [path for path in resolver.candidates(target, source_path="") if path.lower().endswith(".md")]
        usable = [path for path in found if self._may_use(path)]
        if not usable:
            raise NotFound(f"no note named {ref!r}")
        return usable[0]

    def is_private(self, path: str) -> bool:
        """Return True for a path in PRIVATE_FOLDERS (as the vault or the write settings name them)."""
        return is_private(path, (*self.vault.private_folders, *self.writes.private_folders))

    def _may_use(self, path: str) -> bool:
        return not self.is_private(path) and not is_in_folder(path, self.crew_root)


def is_in_folder(path: str, folder: str) -> bool:
    """Return True when `path` is `folder` or lies in it, ignoring case and Unicode form (to err on the safe side)."""
    return bool(folder.strip("/")) and is_private(path, (folder,))
