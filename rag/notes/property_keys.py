"""Property keys by what they say: those under which a note dates itself rather than what it is about.

Templates and plugins date notes in their properties: "created:", "last:" (kepano-obsidian's template),
"creation date:" (obsidian-tasks-demo), "date modified:" (the Linter plugin). Such a date says when the user wrote or
touched the note. The answer check reads them so (rag/answer/record_dates.py).
"""

from __future__ import annotations

import re

# Keys under which a note dates itself, as templates and plugins name them (lower case, words spaced).
KEEPING_KEYS = frozenset(
    {
        "created", "created at", "created on", "creation date", "date created", "date added", "added",
        "modified", "modified at", "date modified", "last modified", "updated", "updated at", "date updated",
        "last updated", "edited", "last edited", "lastmod", "last", "mtime", "ctime",
        "erstellt", "geändert", "aktualisiert",
    }
)  # fmt: skip


# Verbs of a question asking about that keeping ("When did I create it?"), which such a date may answer.
KEEPING_VERBS = (
    "create", "created", "creation", "added", "modify", "modified", "update", "updated", "edit", "edited", "changed",
    "erstellt", "geändert", "aktualisiert",
)  # fmt: skip


def normal_key(key: str) -> str:
    """Return a property's key as compared: lower case, words spaced ("Date_Created" -> "date created")."""
    return " ".join(re.split(r"[\s_\-]+", key.casefold())).strip()


def is_keeping_key(key: str) -> bool:
    """Return True when `key`, written any way, is one under which a note dates itself."""
    return normal_key(key) in KEEPING_KEYS
