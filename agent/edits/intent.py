"""Recognising a request to change the vault, so the relevance floor does not refuse it as an unanswerable question.

The floor refuses questions the notes don't cover before any model runs. "Add a task to today's daily note" is
not a question about the notes, and refusing it would make the write tools unreachable. Only the first words
decide (an imperative edit verb, after polite openers), so a question that merely mentions "add" still meets the
floor. Getting this wrong is cheap either way: a missed edit request is refused as before, and a question taken
for an edit request reaches the model with the retrieved notes and the grounding rules.
"""

from __future__ import annotations

import re

EDIT_VERBS = frozenset(
    {
        "add", "append", "prepend", "create", "make", "write", "insert", "put", "tag", "untag", "rename", "move",
        "delete", "remove", "archive", "trash", "set", "change", "update", "replace", "toggle", "tick", "uncheck",
        "mark", "jot", "log", "record", "start", "draft", "new",
        # German
        "füge", "hinzufügen", "erstelle", "erstell", "lege", "leg", "schreibe", "schreib", "verschiebe",
        "benenne", "lösche", "entferne", "setze", "ändere", "markiere", "hake", "trage", "notiere",
    }
)  # fmt: skip
OPENERS = (
    "please", "pls", "can you", "could you", "would you", "will you", "i want you to", "i'd like you to",
    "i want to", "i'd like to", "let's", "lets", "go ahead and", "bitte", "kannst du", "könntest du", "würdest du",
)  # fmt: skip
# German puts the verb last after a modal opener: "Kannst du eine Notiz erstellen?"
GERMAN_OPENERS = ("bitte", "kannst du", "könntest du", "würdest du")
GERMAN_INFINITIVES = frozenset(
    {
        "hinzufügen", "erstellen", "anlegen", "schreiben", "eintragen", "notieren", "verschieben", "umbenennen",
        "löschen", "entfernen", "setzen", "ändern", "markieren", "abhaken", "taggen", "ergänzen", "aktualisieren",
    }
)  # fmt: skip
_WORD = re.compile(r"[\w'’]+")


def looks_like_edit_request(message: str) -> bool:
    """Return True when `message` starts like an instruction to change notes ("add a task to ...", "tag these")."""
    text = message.strip().lower().replace("’", "'")  # phones type "I’d like to", "let’s" with a curly apostrophe
    words = _WORD.findall(text)
    if words and words[-1] in GERMAN_INFINITIVES and text.startswith(GERMAN_OPENERS):
        return True
    changed = True
    while changed:
        changed = False
        for opener in OPENERS:
            if text.startswith(opener + " ") or text.startswith(opener + ","):
                text = text[len(opener) + 1 :].lstrip(" ,")
                changed = True
    first = _WORD.match(text)
    return first is not None and first.group(0) in EDIT_VERBS
