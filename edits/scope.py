"""Where edits may write: path shape, the fixed denylist, private folders, the writable allowlist and size.

Only `.md` notes are writable. "Create an item in a base" creates a `.md` note that matches the base's filters;
`.base` files themselves (and canvases, attachments) are never written. Symlinks are the writers' concern: this
module checks path text only, and the file writer resolves the real path inside the vault.
"""

from __future__ import annotations

import re
import unicodedata

from core.errors import InvalidRequest, OutOfScope
from core.settings import WriteSettings
from rag.notes.vault import is_private as is_private_path

TRASH_FOLDER = ".trash"
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_writable(path: str, *, settings: WriteSettings, for_delete: bool = False) -> str:
    """Return `path` normalised (vault-relative, `/`-separated) when an edit may write it, else raise InvalidRequest.

    Every writer checks its paths here (chat and MCP write tools, HTTP apply, crews' stage 2, `apply_edits`), so
    the fixed denylist wins over every allowlist (WRITABLE_FOLDERS, a crew's `write_scope`) for all of them.

    Args:
        path: the vault-relative note path a tool gave.
        settings: WRITABLE_FOLDERS, PRIVATE_FOLDERS and CREWS_ROOT.
        for_delete: `path` is where a delete puts the note, so `.trash/` is allowed (and the allowlist skipped).

    """
    normalised = check_not_denied(path, settings=settings, allow_trash=for_delete)
    in_trash = for_delete and normalised.startswith(TRASH_FOLDER + "/")
    # DATA_DIR is never inside the vault: Settings refuses that at start (check_separate_dirs).
    if is_private(normalised, settings):
        raise OutOfScope(f"{path!r} is in a private folder; private notes are never read or changed")
    if not normalised.lower().endswith(".md"):
        raise InvalidRequest(f"{path!r}: only Markdown notes (.md) can be written")
    # Exact case on purpose: on a case-sensitive file system "inbox/" is not the allowed "Inbox/".
    writable = any(_is_under(normalised, folder) for folder in settings.writable_folders)
    if settings.writable_folders and not in_trash and not writable:
        allowed = ", ".join(f"{folder}/" for folder in settings.writable_folders)
        raise OutOfScope(f"{path!r} is outside the writable folders ({allowed})")
    return normalised


def check_not_denied(path: str, *, settings: WriteSettings, allow_trash: bool = False) -> str:
    """Return `path` normalised unless it is in the fixed denylist (dot folders and dotfiles, the crew root).

    The crew root holds the crews' definitions: a team note edited by a model (a wider `write_scope`, a new team
    scheduled every minute) would later write without anyone's confirmation. Run logs and `crew install-examples`
    are written there by code, directly (`edits.writers.files.write_atomically`), never through an edit.

    Args:
        path: a vault-relative note path.
        settings: CREWS_ROOT.
        allow_trash: accept `.trash/...` (where a delete puts a note, or an undo brings one back from).

    Raises:
        InvalidRequest: a malformed path, or one in the denylist.

    """
    parts = _split(path)
    in_trash = allow_trash and len(parts) > 1 and parts[0] == TRASH_FOLDER
    for part in parts[1:] if in_trash else parts:
        if part.startswith("."):
            raise InvalidRequest(f"{path!r}: dot folders and dotfiles (.obsidian, .git, .trash) are never written")
    normalised = "/".join(parts)
    if is_in_crew_root(normalised, settings):
        raise InvalidRequest(
            f"{path!r} is in the crew root {settings.crews_root}/: crew definitions and run logs are never changed "
            "by an edit (edit crew notes yourself in Obsidian; `librarian crew enable NAME` approves a schedule)"
        )
    return normalised


def is_in_crew_root(path: str, settings: WriteSettings) -> bool:
    """Return True when `path` lies under CREWS_ROOT (case and Unicode form ignored, as for private folders)."""
    return is_private_path(path, (settings.crews_root,))


def check_size(text: str, *, settings: WriteSettings) -> None:
    """Raise InvalidRequest when `text` is larger than the per-note write limit."""
    size = len(text.encode("utf-8"))
    if size > settings.max_note_bytes:
        raise InvalidRequest(f"the note would be {size} bytes, above the limit of {settings.max_note_bytes} bytes")


def is_private(path: str, settings: WriteSettings) -> bool:
    """Return True when `path` lies in one of PRIVATE_FOLDERS (the indexer's rule: case and Unicode form ignored)."""
    return is_private_path(path, settings.private_folders)


def _split(path: str) -> list[str]:
    if not path or not path.strip():
        raise InvalidRequest("the note path is empty")
    if _CONTROL.search(path):
        raise InvalidRequest(f"{path!r}: control characters are not allowed in note paths")
    if "\\" in path:
        raise InvalidRequest(f"{path!r}: use '/' in vault paths, not backslashes")
    if path.startswith("/") or path.startswith("~") or _DRIVE.match(path):
        raise InvalidRequest(f"{path!r}: absolute paths are refused; give a path relative to the vault")
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise InvalidRequest(f"{path!r}: '..' is refused (it would lead outside the vault)")
    if not parts or path.endswith("/"):
        raise InvalidRequest(f"{path!r} is a folder, not a note")
    return parts


def _is_under(path: str, folder: str) -> bool:
    # NFC on both sides: a folder synced from macOS may be spelled in NFD on disk while the setting was typed in NFC.
    path = unicodedata.normalize("NFC", path)
    prefix = unicodedata.normalize("NFC", folder.strip("/"))
    return not prefix or path == prefix or path.startswith(prefix + "/")
