"""The state of a vault folder as tests lay it out and compare it: its notes, every file's hash, its folders."""

from __future__ import annotations

import hashlib
from pathlib import Path


def vault_hashes(root: Path) -> dict[str, str]:
    """Return the SHA-256 of every file under `root` (symlinks as their target text), hidden folders included."""
    hashes: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_symlink():
            hashes[relative] = "link:" + str(path.readlink())
        elif path.is_file():
            hashes[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def write_notes(root: Path, notes: dict[str, str]) -> Path:
    """Write each note (vault-relative path -> text) under `root`, folders made as needed; return `root`."""
    for path, text in notes.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def folders(root: Path) -> list[str]:
    """Return every folder under `root` (vault-relative, hidden ones included), sorted."""
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_dir())
