"""The vault folder as the plugin sees it: decoded paths, traversal checks, listings and NoteJson."""

from __future__ import annotations

import json
import mimetypes
import re
from pathlib import Path
from urllib.parse import quote, unquote

from rag.notes.markdown import parse_note
from tests.obsidian_standin.errors import ApiError

_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def decode_component(raw: str) -> str:
    """Decode like JavaScript's decodeURIComponent; raise ValueError where it would throw."""
    if _PERCENT.search(raw):
        raise ValueError(f"malformed percent-encoding in {raw!r}")
    return unquote(raw, errors="strict")


def vault_relative(raw_path: str) -> str:
    """Decode the whole path after /vault/ at once (3.x/4.x) and refuse escapes with 40021 (4.1.3+)."""
    try:
        path = decode_component(raw_path)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(40021) from exc
    if path.startswith("/") or "\\" in path or "\x00" in path:
        raise ApiError(40021)
    kept: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if not kept:
                raise ApiError(40021)
            kept.pop()
        elif segment not in ("", "."):
            kept.append(segment)
    normalised = "/".join(kept)
    return f"{normalised}/" if path.endswith("/") and normalised else normalised


class VaultFolder:
    """File operations confined to one folder."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def locate(self, path: str) -> Path:
        """Return the absolute path for a vault path, refusing symlinks that lead outside with 40021."""
        target = (self.root / path).resolve()
        if target != self.root and self.root not in target.parents:
            raise ApiError(40021)
        return target

    def files(self) -> list[str]:
        """Return every file's vault path that Obsidian would index (no dot-prefixed segments)."""
        found = []
        for entry in self.root.rglob("*"):
            relative = entry.relative_to(self.root).as_posix()
            if entry.is_file() and not any(part.startswith(".") for part in relative.split("/")):
                found.append(relative)
        return found

    def listing(self, folder: str) -> list[str] | None:
        """Return the direct children of `folder` ("" = root), sub-folders as "name/"; None if it has no files."""
        prefix = f"{folder}/" if folder else ""
        children: set[str] = set()
        for path in self.files():
            if path.startswith(prefix):
                head, slash, _ = path[len(prefix) :].partition("/")
                children.add(head + slash)
        if folder and not children:
            return None
        return sorted(children, key=lambda name: name.encode("utf-16-be"))

    def is_file(self, path: str) -> bool:
        """Tell whether `path` names a file; like the plugin's adapter stat, dot paths (`.trash/...`) count too.

        Only listings leave dot entries out (they come from Obsidian's file index, which skips them).
        """
        return bool(path) and self.locate(path).is_file()

    def read_text(self, path: str) -> str:
        """Return a note's text, or raise 404."""
        if not self.is_file(path):
            raise ApiError(40400)
        return self.locate(path).read_text(encoding="utf-8")

    def write(self, path: str, data: bytes) -> None:
        """Write bytes, creating parent folders."""
        target = self.locate(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def content_type_for(path: str) -> str:
    """Return the Content-Type `mime-types.lookup` gives (literally "false" for unknown extensions)."""
    if path.endswith(".md"):
        return "text/markdown; charset=utf-8"
    guessed, _ = mimetypes.guess_type(path)
    return guessed or "false"


def content_disposition(path: str) -> str:
    """Return the attachment header the plugin sends with a raw read."""
    encoded = quote(path, safe="/;,?:@&=+$-_.!~*'()#").replace(",", "%2C", 1)
    return f'attachment; filename="{encoded}"'


def note_json(folder: VaultFolder, path: str) -> str:
    """Return the NoteJson document (key order tags, frontmatter, stat, path, content), 2-space indented."""
    text = folder.read_text(path)
    note = parse_note(path, text)
    stat = folder.locate(path).stat()
    body = {
        "tags": list(note.tags),
        "frontmatter": dict(note.frontmatter),
        "stat": {
            "ctime": int(stat.st_ctime * 1000),
            "mtime": int(stat.st_mtime * 1000),
            "size": stat.st_size,
        },
        "path": path,
        "content": text,
    }
    return json.dumps(body, indent=2, ensure_ascii=False, default=str)
