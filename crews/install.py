"""`librarian crew install-examples`: copy the example crews (and runs.base) into the crew root, never over a file.

The user runs it: the files are written directly, not through the edit layer, whose fixed denylist refuses the
crew root to every edit (`edits.scope`). Installed schedules run only once enabled (`crews.teams.approvals`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crews.logs.runlog import BASE_FILE, is_outdated_base
from edits.writers.files import write_atomically

EXAMPLES = Path(__file__).with_name("examples")


@dataclass(frozen=True, slots=True)
class Installed:
    """What installing the examples did: files written and files left as they were."""

    written: tuple[str, ...]
    kept: tuple[str, ...]


def example_files() -> list[Path]:
    """Return the example files shipped with the package (team notes, agent notes, runs.base)."""
    return sorted(path for path in EXAMPLES.rglob("*") if path.is_file() and path.suffix in (".md", ".base"))


def base_text() -> str:
    """Return the shipped runs.base (Obsidian Bases: a table of every run)."""
    return (EXAMPLES / BASE_FILE).read_text(encoding="utf-8")


def install_examples(vault_root: Path, crew_root: str) -> Installed:
    """Copy the examples under `vault_root/crew_root`; an existing file is never overwritten (edit them freely).

    The one exception is a runs.base shipped by an earlier version and never edited (crews.logs.runlog.OUTDATED_BASES).
    """
    written, kept = [], []
    for source in example_files():
        relative = source.relative_to(EXAMPLES).as_posix()
        target = vault_root / crew_root / relative
        shown = f"{crew_root}/{relative}"
        if (target.exists() or target.is_symlink()) and not is_outdated_base(target):
            kept.append(shown)
            continue
        write_atomically(target, source.read_text(encoding="utf-8"))
        written.append(shown)
    return Installed(tuple(written), tuple(kept))
