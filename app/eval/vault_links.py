"""Whether a cited link opens something in the vault: its note resolves as in Obsidian, and so does its heading."""

from __future__ import annotations

from app.eval.matching import WrittenLink
from core.settings import VaultSettings
from rag.notes.links import LinkResolver, heading_key
from rag.notes.markdown import parse_note
from rag.notes.vault import read_note_text, scan_vault


class VaultLinks:
    """Resolve the links of replies against the vault's notes as they are on disk now (headings read lazily)."""

    def __init__(self, settings: VaultSettings) -> None:
        self._root = settings.path
        self._resolver = LinkResolver(scan_vault(settings).notes)
        self._anchors: dict[str, frozenset[str]] = {}

    def note_of(self, link: WrittenLink) -> str | None:
        """Return the vault path the link's note resolves to, or None."""
        return self._resolver.resolve(link.target, source_path="").path if link.target else None

    def is_valid(self, link: WrittenLink) -> bool:
        """Return True when the note exists and so does the heading (the innermost one) or block it names."""
        path = self.note_of(link)
        if path is None:
            return False
        if not link.subpath:
            return True
        last = link.subpath[-1]
        return (last if last.startswith("^") else heading_key(last)) in self._anchors_of(path)

    def _anchors_of(self, path: str) -> frozenset[str]:
        if path not in self._anchors:
            try:
                _, text, _ = read_note_text(self._root, path)
            except OSError:
                return frozenset()  # gone since the scan: nothing in it can be linked to
            note = parse_note(path, text)
            self._anchors[path] = frozenset(
                [*(heading_key(heading.text) for heading in note.headings), *(f"^{b.id}" for b in note.block_ids)]
            )
        return self._anchors[path]
