"""Where a vault's index lives: the default DATA_DIR of each vault, and the rule that keeps it apart from the vault.

The default does not depend on the working directory: `librarian serve` started in a clone, `librarian mcp` started
by Claude Desktop in `/` and a CLI command in the vault itself all find the same index for the same vault. It is a
folder per vault (its name and a hash of its resolved path) under the user's data directory, so two vaults never
share an index by accident.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

DEFAULT_VAULT = Path("./sample_vault")
APP_FOLDER = "vault-librarian"
# Before per-vault defaults, DATA_DIR defaulted to this folder of the working directory.
LEGACY_DATA_DIR = Path("data")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_NAME_CHARS = 40


def user_data_home() -> Path:
    """Return the user's data directory: XDG_DATA_HOME when set, else the platform's usual place."""
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    if xdg:
        return Path(xdg).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"])
    return Path.home() / ".local" / "share"


def default_data_dir(vault_path: Path) -> Path:
    """Return the DATA_DIR a vault gets when none is set, e.g. ~/.local/share/vault-librarian/Notes-1a2b3c4d."""
    vault = vault_path.expanduser().resolve()
    name = _UNSAFE.sub("-", vault.name).strip("-.")[:_NAME_CHARS] or "vault"
    digest = hashlib.sha256(str(vault).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return user_data_home() / APP_FOLDER / f"{name}-{digest}"


def data_dir_of(settings: Mapping[str, object]) -> Path:
    """Return the default DATA_DIR for the settings validated so far (their VAULT_PATH)."""
    vault = settings.get("vault_path")
    return default_data_dir(vault if isinstance(vault, Path) else DEFAULT_VAULT)


def check_separate_dirs(vault_path: Path, data_dir: Path) -> None:
    """Refuse a DATA_DIR inside the vault (it would be indexed and synced) or a vault inside DATA_DIR."""
    vault = vault_path.expanduser().resolve()
    data = data_dir.expanduser().resolve()
    if data == vault or data.is_relative_to(vault):
        raise ValueError(f"DATA_DIR ({data}) must not be inside the vault ({vault}); choose a folder outside it")
    if vault.is_relative_to(data):
        raise ValueError(f"the vault ({vault}) must not be inside DATA_DIR ({data})")
