"""Which vault a DATA_DIR's index belongs to: recorded when it is first taken, and another vault refused.

An index holds one vault. Indexing a second vault into it would delete the first one's notes from the index (they
are not in the vault indexed) and answer from the wrong notes, without a word. So the owner of a DATA_DIR
(app/process/ownership.py) records the vault's resolved path in `DATA_DIR/vault.json` the first time, and every later
owner with another vault is refused, naming both, until it says `--switch-vault` explicitly. An index holding notes
none of which are in the vault (one made before the record, or another vault mounted at the same path) is refused
too; an index made before the record is adopted by the first vault that holds any of its notes.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path

from core.data_dirs import LEGACY_DATA_DIR, default_data_dir
from core.errors import InvalidRequest
from core.settings import Settings

logger = logging.getLogger(__name__)
VAULT_FILE = "vault.json"
SWITCH_OPTION = "--switch-vault"


class VaultMismatch(InvalidRequest):
    """The DATA_DIR holds the index of another vault."""

    def __init__(self, data_dir: Path, vault: Path, recorded: str) -> None:
        super().__init__(
            f"DATA_DIR {data_dir} holds the index of {recorded}, not of the vault {vault}; nothing was changed. "
            f"Give this vault a DATA_DIR of its own (with DATA_DIR unset each vault gets one, here "
            f"{default_data_dir(vault)}), or replace that index with one of this vault: "
            f"`librarian index {vault} {SWITCH_OPTION}`"
        )
        self.recorded = recorded


def describe_data_dir(settings: Settings) -> str:
    """Return the line each command says at start: the vault, and where its index is (and why there)."""
    from sync.watermarks import WATERMARKS_FILE

    vault = settings.vault_path.expanduser().resolve()
    data_dir = settings.data_dir.expanduser().resolve()
    line = f"vault {vault}, index in {data_dir}" + ("" if settings.has_data_dir_set else " (this vault's default)")
    legacy = LEGACY_DATA_DIR.resolve()  # the default of earlier versions, in the working directory
    has_legacy = legacy != data_dir and (legacy / WATERMARKS_FILE).is_file()
    if not settings.has_data_dir_set and has_legacy and recorded_vault(legacy) in (None, str(vault)):
        line += f"; an index made by an earlier version may be in {legacy}: set DATA_DIR={legacy} to use it"
    return line


def recorded_vault(data_dir: Path) -> str | None:
    """Return the vault DATA_DIR's index was built for, or None when it records none."""
    try:
        data = json.loads((data_dir / VAULT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    vault = data.get("vault") if isinstance(data, dict) else None
    return vault if isinstance(vault, str) and vault else None


def check_vault(data_dir: Path, vault_path: Path) -> None:
    """Refuse a vault other than the one DATA_DIR records (read only: for processes that do not own it)."""
    vault = vault_path.expanduser().resolve()
    recorded = recorded_vault(data_dir)
    if recorded is not None and Path(recorded) != vault:
        raise VaultMismatch(data_dir, vault, recorded)


def claim_vault(data_dir: Path, vault_path: Path, *, switch: bool = False) -> None:
    """Record `vault_path` as DATA_DIR's vault, or refuse it when the index belongs to another (call as its owner).

    Another vault is one at another path, or one at the recorded path holding none of the indexed notes (Docker
    mounts every vault at /vault, and an index made before the record has none).

    Args:
        data_dir: the DATA_DIR this process holds.
        vault_path: the vault it is about to index or serve.
        switch: replace the record of another vault (its notes leave the index at the next run).

    Raises:
        VaultMismatch: the index belongs to another vault and `switch` is False.

    """
    vault = vault_path.expanduser().resolve()
    recorded = recorded_vault(data_dir)
    other = recorded if recorded is not None and Path(recorded) != vault else _stranger(data_dir, vault)
    if other is not None and not switch:
        raise VaultMismatch(data_dir, vault, other)
    if other is not None:
        logger.warning("DATA_DIR %s now indexes %s instead of %s", data_dir, vault, other)
    if other is None and recorded is not None:
        return
    record = {"vault": str(vault), "recorded_at": datetime.now(UTC).isoformat(timespec="seconds")}
    path = data_dir / VAULT_FILE
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record), encoding="utf-8")
    temporary.replace(path)


def _stranger(data_dir: Path, vault: Path) -> str | None:
    """Describe the index when it holds notes, none of them in `vault`, while `vault` has notes; else None.

    An empty vault is no stranger: an unmounted drive must not look like another vault, and the indexer keeps
    the index of a vault that shows no notes (sync/reindex.py).
    """
    from sync.watermarks import WATERMARKS_FILE, SqliteWatermarkStore

    if not (data_dir / WATERMARKS_FILE).is_file():
        return None
    watermarks = SqliteWatermarkStore(data_dir / WATERMARKS_FILE)
    try:
        paths = list(watermarks.all())
    finally:
        watermarks.close()
    if not paths or any((vault / path).is_file() for path in paths) or next(vault.rglob("*.md"), None) is None:
        return None
    return f"other notes ({len(paths)} indexed, none of them in this vault)"
