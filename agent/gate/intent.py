"""Recognising a request to change the vault, so the relevance floor does not refuse it as an unanswerable question.

The floor refuses questions the notes don't cover before any model runs. "Add a task to today's daily note" is
not a question about the notes, and refusing it would make the write tools unreachable. Only the first words
decide (an imperative edit verb, after polite openers), so a question that merely mentions "add" still meets the
floor. Getting this wrong is cheap either way: a missed edit request is refused as before, and a question taken
for an edit request reaches the model with the retrieved notes and the grounding rules.

The edit gate asks the same question of each turn that proposed changes (`asked_change`): did the user's message
ask for a change at all, and for a delete or a move? There a miss costs more: a proposal nobody asked for is
marked, and a delete or move nobody asked for needs "yes delete" / "yes move" instead of a plain yes.

A sentence asking to carry out what a note says ("follow the instructions in X") is a request to act but asks for
no change (`AskedChange.follows_note`, `agent.gate.note_instructions`): no write tool is offered for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.gate.note_instructions import is_note_instruction_request
from core.edits import DestructiveKind

EDIT_VERBS = frozenset(
    {
        "add", "append", "prepend", "create", "make", "write", "insert", "put", "tag", "untag", "rename", "move",
        "delete", "remove", "archive", "trash", "set", "change", "update", "replace", "toggle", "tick", "uncheck",
        "mark", "jot", "log", "record", "start", "draft", "new", "erase", "relocate", "reopen", "untick",
        # German
        "füge", "hinzufügen", "erstelle", "erstell", "lege", "leg", "schreibe", "schreib", "verschiebe",
        "benenne", "lösche", "entferne", "setze", "ändere", "markiere", "hake", "trage", "notiere", "archiviere",
        "build", "generate",
        # French
        "ajoute", "ajouter", "crée", "créer", "cree", "supprime", "supprimer", "efface", "déplace", "déplacer",
        "renomme", "renommer", "mets", "marque", "coche", "écris", "range", "tague",
    }
)  # fmt: skip
OPENERS = (
    "please", "pls", "can you", "could you", "would you", "will you", "i want you to", "i'd like you to",
    "i want to", "i'd like to", "let's", "lets", "go ahead and", "bitte", "kannst du", "könntest du", "würdest du",
    # a later sentence of the message: "What is in my Inbox? And delete the empty note."
    "and", "also", "then", "now", "ok", "okay", "und", "dann", "jetzt", "außerdem",
    "peux-tu", "pourrais-tu", "peux tu", "pourrais tu", "merci de", "s'il te plaît", "s'il vous plaît", "stp", "svp",
    "et", "puis", "ensuite",
)  # fmt: skip
# One pass over any run of openers ("please, can you, please add"): a message of a thousand "and"s costs one scan.
_OPENERS = re.compile("(?:(?:" + "|".join(map(re.escape, OPENERS)) + ")[ ,]+)*")
# German puts the verb last after a modal opener: "Kannst du eine Notiz erstellen?"
GERMAN_OPENERS = ("bitte", "kannst du", "könntest du", "würdest du")
GERMAN_INFINITIVES = frozenset(
    {
        "hinzufügen", "erstellen", "anlegen", "schreiben", "eintragen", "notieren", "verschieben", "umbenennen",
        "löschen", "entfernen", "setzen", "ändern", "markieren", "abhaken", "taggen", "ergänzen", "aktualisieren",
        "archivieren",
    }
)  # fmt: skip
_WORD = re.compile(r"[\w'’]+")
# "In the How To folder, " (or "In the folder X, ", "Im Ordner X, ") before the request itself.
FOLDER_CLAUSE = re.compile(
    r"^\s*(?:(?:in|into|under|inside|im|in\s+den)\s+(?:the\s+|my\s+)?[^,\n]{1,60}?\s+(?:folder|ordner)"
    r"|(?:in|into)\s+the\s+folder\s+[^,\n]{1,60}?|(?:im|in\s+den)\s+ordner\s+[^,\n]{1,60}?)\s*,\s*",
    re.IGNORECASE,
)
# "In the nectarine tart recipe, add ..." (or "Dans la note X, ajoute ..."): the note named before the request.
PLACE_CLAUSE = re.compile(
    r"^\s*(?:in|on|for|under|inside|dans|pour|im|in\s+der|in\s+den)\s+(?:the\s+|my\s+|la\s+|le\s+|ma\s+|mon\s+)?"
    # Only a clause naming a note: "In the Librarian project, change requests still open?" is a question.
    r"(?=[^,\n]{0,60}?(?:\bnotes?\b|\bpage\b|\brecipe\b|\bnotiz\b|\bseite\b|\[\[))[^,\n]{1,60}?\s*,\s*",
    re.IGNORECASE,
)


def looks_like_edit_request(message: str) -> bool:
    """Return True when `message` asks to act rather than asks a question.

    It starts like an instruction to change notes ("add a task to ...", "tag these"), or one of its sentences asks
    to carry out what a note says ("follow the steps in X").
    """
    return _request_verb(message) is not None or asked_change(message).follows_note


def _request_verb(message: str) -> str | None:
    """Return the edit verb `message` starts with (after polite openers), or None when it starts otherwise."""
    # Phones type "I’d like to", "let’s" with a curly apostrophe.
    text = message[:INTENT_CHARS].strip().lower().replace("’", "'")
    words = _WORD.findall(text)
    if words and words[-1] in GERMAN_INFINITIVES and text.startswith(GERMAN_OPENERS):
        return str(words[-1])
    rest = _without_openers(text)
    if _REMIND_TO.match(rest):  # "remind me to renew the passport": a task to add ("remind me what ..." asks)
        return "remind"
    if _TASK_DONE.match(rest):  # "check off the battery task", "complete Renew passport": a task to mark done
        return "complete"
    first = _WORD.match(rest)
    return first.group(0) if first is not None and first.group(0) in EDIT_VERBS else None


_REMIND_TO = re.compile(r"remind\s+(?:me|us)\s+to\b")
# As the change contract reads "mark … done" (agent/change_contract/operations.py); "check" alone asks to look.
# "Complete" and "finish" only of a task: "Complete list of my books?" asks for a list.
_TASK_DONE = re.compile(r"(?:check|cross)\s+(?:it\s+|them\s+)?off\b|(?:complete|finish)\b(?=.*\b(?:task|to-?do)\b)")


def _without_openers(text: str) -> str:
    """Return lowercased `text` without the polite openers it starts with ("please", "can you", "bitte", ...).

    A leading folder or note clause goes too: "In the How To folder, create a note ...", "In the tart recipe, add
    ..." start with their verb after it.
    """
    text = text.strip().lower().replace("’", "'")
    # "please, in the X folder, add"
    for strip in (_OPENERS.match, lambda t: FOLDER_CLAUSE.match(t) or PLACE_CLAUSE.match(t), _OPENERS.match):
        opened = strip(text)
        text = text[opened.end() :] if opened is not None else text
    return text


# Words that ask for a delete or a move in a sentence that asks for a change. "Archive" only as its first verb:
# "add a task to my Archive note" asks for no move.
KIND_WORDS: dict[str, DestructiveKind] = {
    **dict.fromkeys(("delete", "remove", "trash", "erase", "lösche", "löschen", "entferne", "entfernen"), "delete"),
    **dict.fromkeys(("papierkorb", "supprime", "supprimer", "efface", "effacer", "corbeille"), "delete"),
    **dict.fromkeys(("move", "rename", "relocate", "verschiebe", "verschieben", "benenne", "umbenennen"), "move"),
    **dict.fromkeys(("archiviere", "archivieren", "déplace", "déplacer", "renomme", "renommer"), "move"),
}
KIND_VERBS: dict[str, DestructiveKind] = {"archive": "move", "range": "move"}  # French "range": files away
_SENTENCES = re.compile(r"[.!?;:\n]+")
# How much of a message is read for its intent: requests come first or in the sentences after a question, and
# a pasted megabyte must not cost more than a paragraph. Text beyond this counts as asking for nothing.
INTENT_CHARS = 4_000
_CREW_RUN = re.compile(r"^\s*(?:please\s+|bitte\s+)?(?:run|start|führe|starte)\b.*\b(?:crew|team)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class AskedChange:
    """What the user's message asked for: a change at all, which destructive kinds, and to follow a note's orders.

    `follows_note`: a sentence asks to carry out what a note says (`agent.gate.note_instructions`); that sentence
    asks for no change, and the turn is offered no write tool.
    """

    is_change: bool
    kinds: frozenset[DestructiveKind] = frozenset()
    follows_note: bool = False


def asked_change(message: str) -> AskedChange:
    """Return what `message` asks to change: a change when one of its sentences starts like an edit request.

    "What is in my Inbox?" asks for nothing; "Delete the empty note" asks for a delete; "Tidy up: move X to
    Archive" asks for a move. A kind counts only when a sentence asking for a change names it.
    """
    kinds: set[DestructiveKind] = set()
    is_change = follows_note = False
    for sentence in _SENTENCES.split(message[:INTENT_CHARS]):
        if _CREW_RUN.match(sentence):  # "run the Daily-Briefing crew": its writes are what was asked for
            is_change = True
            continue
        if is_note_instruction_request(_without_openers(sentence)):  # "make the changes described in X" too
            follows_note = True
            continue
        verb = _request_verb(sentence)
        if verb is None:
            continue
        is_change = True
        kinds.update(KIND_WORDS[word] for word in _WORD.findall(sentence.lower()) if word in KIND_WORDS)
        if verb in KIND_VERBS:
            kinds.add(KIND_VERBS[verb])
    return AskedChange(is_change=is_change, kinds=frozenset(kinds), follows_note=follows_note)


# A polite request, even as a question: "Can you add ...?", "Könntest du ... erstellen?"
_ASKS_TO = re.compile(
    r"^\W*(?:please\s+|pls\s+)?(?:can|could|would|will)\s+you\b|^\W*(?:kannst|könntest|würdest)\s+du\b", re.IGNORECASE
)


def is_surely_change_request(message: str) -> bool:
    """Return True when `message` asks to change notes and is no question that merely starts with an edit verb.

    `looks_like_edit_request` may take a question for a request ("Update on the garden project?"), which costs the
    chat little. Where the guess decides that no answer is given (`librarian ask`, the reply without a model), a
    message ending in "?" counts only when it asks politely ("Can you add ...?").
    """
    if not looks_like_edit_request(message):
        return False
    return not message.rstrip().endswith("?") or _ASKS_TO.match(message) is not None
