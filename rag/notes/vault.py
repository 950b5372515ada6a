"""Finding the files of a vault: what is a note, what is skipped and why, without following links out."""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path

from core.errors import InvalidRequest
from core.settings import VaultSettings

NOTE_SUFFIX = ".md"


@dataclass(frozen=True, slots=True)
class FileStat:
    """Size and modification time of a file, as the watermarks compare them."""

    mtime_ns: int
    size: int

    @property
    def modified(self) -> datetime:
        """Return when the file was last modified, in local time (as a user reads a note's date)."""
        return datetime.fromtimestamp(self.mtime_ns / 1e9)


@dataclass(slots=True)
class VaultScan:
    """The result of walking a vault once."""

    root: Path
    notes: dict[str, FileStat] = field(default_factory=dict)  # vault-relative POSIX path -> stat
    other_files: list[str] = field(default_factory=list)  # attachments, .base, .canvas: link targets only
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason) worth telling the user
    unreadable: list[str] = field(default_factory=list)  # folders and files that exist but could not be read

    def is_unreadable(self, rel_path: str) -> bool:
        """Return True when `rel_path` is, or lies in, something that could not be read this time."""
        return any(rel_path == bad or rel_path.startswith(f"{bad}/") for bad in self.unreadable)

    @property
    def all_paths(self) -> list[str]:
        """Return every linkable file path (notes and other files)."""
        return [*self.notes, *self.other_files]


_DRIVE = re.compile(r"^[A-Za-z]:")  # a Windows drive: an absolute path


def check_vault_path(path: Path) -> Path:
    """Return the resolved vault root, or raise InvalidRequest saying what is wrong with it."""
    if not str(path).strip():
        raise InvalidRequest("the vault path is empty; set VAULT_PATH or pass the vault folder")
    root = path.expanduser()
    if not root.exists():
        raise InvalidRequest(f"the vault folder {root} does not exist")
    if not root.is_dir():
        raise InvalidRequest(f"the vault path {root} is not a folder")
    if not os.access(root, os.R_OK | os.X_OK):
        raise InvalidRequest(f"the vault folder {root} is not readable")
    return root.resolve()


def is_ignored(rel_path: str, globs: tuple[str, ...]) -> bool:
    """Return True when a vault-relative path, or one of its folders, matches an IGNORE_GLOBS pattern."""
    if not globs:
        return False
    parts = rel_path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in globs:
        bare = pattern.rstrip("/").removesuffix("/**")
        if any(fnmatchcase(prefix, bare) for prefix in prefixes):
            return True
        if fnmatchcase(rel_path, pattern):
            return True
    return False


def _path_key(path: str) -> str:
    # Case-folded and NFC: a folder synced from macOS may be spelled in NFD on disk ("Tagebu\u0308cher") while
    # PRIVATE_FOLDERS was typed in NFC; both must name the same folder, to err on the side of privacy.
    parts = (part for part in path.replace("\\", "/").split("/") if part not in ("", "."))
    return unicodedata.normalize("NFC", "/".join(parts)).casefold()


def is_private(rel_path: str, private_folders: tuple[str, ...]) -> bool:
    """Return True for a path in a PRIVATE_FOLDERS folder (case-insensitive and Unicode-normalised)."""
    path = _path_key(rel_path)
    folders = (_path_key(folder) for folder in private_folders)
    return any(path == folder or path.startswith(f"{folder}/") for folder in folders if folder)


def scan_vault(settings: VaultSettings) -> VaultScan:
    """Walk the vault: notes and other files, skipping dot-entries, IGNORE_GLOBS and symlinks that leave it.

    Dot-entries cover `.obsidian/`, `.trash/`, `.git/` and dotfiles. Symlinks are never followed out of the
    vault; a symlink that stays inside is skipped too, because its target is indexed under its real path.
    """
    root = check_vault_path(settings.path)
    scan = VaultScan(root=root)
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            rel_folder = _relative(root, Path(folder))
            scan.skipped.append((rel_folder, f"folder not readable: {exc.strerror or exc}"))
            scan.unreadable.append(rel_folder)
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = _relative(root, Path(entry.path))
            if is_ignored(rel, settings.ignore_globs) or is_private(rel, settings.private_folders):
                continue
            if entry.is_symlink():
                _note_symlink(root, entry, rel, scan)
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                    continue
                if not entry.is_file(follow_symlinks=False):
                    # FIFOs, sockets and devices: opening a FIFO with no writer would block the run forever.
                    scan.skipped.append((rel, "not a regular file; skipped"))
                    continue
                stat = entry.stat(follow_symlinks=False)
            except OSError as exc:
                scan.skipped.append((rel, f"cannot stat: {exc.strerror or exc}"))
                scan.unreadable.append(rel)
                continue
            if rel.lower().endswith(NOTE_SUFFIX):
                scan.notes[rel] = FileStat(mtime_ns=stat.st_mtime_ns, size=stat.st_size)
            else:
                scan.other_files.append(rel)
    return scan


def _note_symlink(root: Path, entry: os.DirEntry[str], rel: str, scan: VaultScan) -> None:
    target = Path(os.path.realpath(entry.path))
    if not target.is_relative_to(root):
        scan.skipped.append((rel, f"symlink leads outside the vault ({target}); not followed"))


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def read_note_text(root: Path, rel_path: str) -> tuple[bytes, str, list[str]]:
    """Read a note; return its bytes, its text, and warnings (non-UTF-8 bytes are replaced, not fatal)."""
    path = root / rel_path
    # O_NOFOLLOW: a file swapped for a symlink between scan and read is refused rather than followed.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    warnings: list[str] = []
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    data_text = data[bom:]
    try:
        text = data_text.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data_text.decode("utf-8", errors="replace")
        # The offset is counted in the file (BOM included), so a hex editor finds the byte there.
        warnings.append(
            f"not valid UTF-8 (byte 0x{data_text[exc.start]:02x} at offset {exc.start + bom}); "
            "undecodable bytes were replaced"
        )
    return data, text, warnings


def clean_relative_path(text: str, *, what: str = "path") -> str:
    """Return `text` as a vault-relative POSIX path, refusing absolute, parent (`..`) and hidden paths."""
    raw = text.strip().replace("\\", "/")
    if raw.startswith(("/", "~")) or _DRIVE.match(raw):
        raise InvalidRequest(
            f"the {what} '{text}' is absolute; give a vault-relative path such as 'Areas/Garden' or a note name"
        )
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise InvalidRequest(f"the {what} '{text}' leaves the vault: '..' is not allowed")
    if any(part.startswith(".") for part in parts):
        raise InvalidRequest(f"the {what} '{text}' is hidden: .obsidian, .trash and other dot-folders are not readable")
    return "/".join(parts)
