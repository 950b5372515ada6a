"""Reading the text a note shows through `![[embed]]`, so transcluded text is findable from that note."""

from __future__ import annotations

from pathlib import Path

from core.domain import Link
from rag.notes.links import LinkResolver
from rag.notes.transclusion import extract_embedded_text
from rag.notes.vault import read_note_text


class EmbedReader:
    """Resolves embeds against the vault, reading each embedded note at most once per run."""

    def __init__(self, root: Path, resolver: LinkResolver, known_texts: dict[str, str], *, max_bytes: int) -> None:
        self._root = root
        self._max_bytes = max_bytes
        self._resolver = resolver
        self._texts: dict[str, str | None] = dict(known_texts)

    def lookup(self, source: str, link: Link) -> str | None:
        """Return the text `link` (an embed in `source`) shows, or None for images, misses and self-embeds."""
        target = self._resolver.resolve(link.target, source_path=source).path if link.target else source
        if target is None or not target.lower().endswith(".md"):
            return None
        if target == source and not (link.heading or link.block):
            return None
        text = self._text_of(target)
        if text is None:
            return None
        return extract_embedded_text(text, heading=link.heading, block=link.block)

    def _text_of(self, path: str) -> str | None:
        if path not in self._texts:
            file = self._root / path
            try:
                if file.stat().st_size > self._max_bytes:
                    self._texts[path] = None
                else:
                    self._texts[path] = read_note_text(self._root, path)[1]
            except OSError:
                self._texts[path] = None
        return self._texts[path]
