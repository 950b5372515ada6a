"""The operations a change contract may name, which of them a request's words call for, and the tool call each is.

Each operation is one call of an existing propose-only write tool (agent/propose/), with arguments built here by
code from the validated contract: the model chooses, code writes the call. The request's words narrow the choice
before the model sees it ("tag" offers the tag operations only), since a small model picks among few options far
better than among many.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent.change_contract.findings import Candidate, TaskState
from agent.change_contract.request_words import CHANGE_VERBS, given_names
from agent.gate.intent import FOLDER_CLAUSE

Values = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation: its name in the contract, what the model reads about it, and the value fields it needs."""

    name: str
    description: str
    fields: tuple[str, ...]  # value fields besides operation (and target, when `has_target`)
    has_target: bool = True
    is_daily_ok: bool = False  # may target a daily note that does not exist yet (it is created from its template)


OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation("append", "add text at the end of the note", ("text",), is_daily_ok=True),
        Operation("prepend", "add text at the start of the note (after its properties)", ("text",), is_daily_ok=True),
        Operation("append_to_section", "add text at the end of one heading's section", ("heading", "text")),
        Operation("add_task", "add a task (a '- [ ]' line)", ("text",), is_daily_ok=True),
        Operation("complete_task", "mark one of the note's open or in-progress tasks as done", ("task",)),
        Operation("reopen_task", "mark one of the note's done tasks as not done", ("task",)),
        Operation("add_tag", "add a tag to the note's properties", ("tag",)),
        Operation("remove_tag", "remove a tag from the note", ("tag",)),
        Operation("add_alias", "add an alias (another name) to the note", ("alias",)),
        Operation("set_property", "set a frontmatter property to a value", ("property", "value")),
        Operation("remove_property", "remove a frontmatter property", ("property",)),
        Operation("create_note", "create a new note with a name and text", ("name", "text"), has_target=False),
        Operation("move_note", "move the note into a folder", ("folder",)),
        Operation("rename_note", "give the note a new name", ("name",)),
        Operation("delete_note", "delete the note (into .trash/)", ()),
    )
}
# The tasks each may pick: a task not done (open, in progress `[/]`, any other mark) is completed, a done or
# cancelled one reopened.
TASK_STATES: dict[str, tuple[TaskState, ...]] = {"complete_task": ("open", "other"), "reopen_task": ("done",)}
GENERAL = ("append", "add_task", "add_tag", "set_property", "append_to_section", "create_note")

_REMOVAL = {
    "remove", "delete", "untag", "drop", "entferne", "lösche", "entfernen", "löschen",
    "supprime", "supprimer", "retire", "enlève", "efface",
}  # fmt: skip
# (cue words, operation when adding, operation when removing); the first rows that match decide.
_CUES: tuple[tuple[frozenset[str], str, str | None], ...] = (
    (frozenset({"tag", "tags", "untag", "tagge", "taggen", "tague", "étiquette"}), "add_tag", "remove_tag"),
    (frozenset({"alias", "aliases"}), "add_alias", None),
    (frozenset({"property", "properties", "frontmatter", "field", "metadata", "eigenschaft", "propriété"}),
     "set_property", "remove_property"),
    (frozenset({"task", "tasks", "todo", "to-do", "checkbox", "remind", "aufgabe", "tâche"}), "add_task", None),
    (frozenset({"section", "heading", "abschnitt", "überschrift"}), "append_to_section", None),
    (frozenset({"move", "archive", "relocate", "verschiebe", "verschieben", "archiviere", "déplace"}),
     "move_note", None),
    (frozenset({"rename", "umbenennen", "benenne", "renomme", "renommer"}), "rename_note", None),
    (frozenset({"prepend", "top", "beginning"}), "prepend", None),
)  # fmt: skip
# "Mark the task "send Steph the mockups" as done", "tick off ...", "Hake ... ab": a task of a note, not a new one.
_COMPLETES = re.compile(
    r"\b(?:as|als|comme)\s+(?:done|completed?|finished|erledigt|fait|terminée?)\b|\bmark\b.*\bdone\b"
    r"|\b(?:check|tick|cross)\s+off\b|\babhaken\b|\bhake\b.*\bab\b|\bcoche\b"
    r"|^\W*(?:please\s+|bitte\s+)?(?:complete|finish|tick)\b",
    re.IGNORECASE,
)
_REOPENS = re.compile(
    r"\b(?:reopen|re-open|uncheck|untick|not\s+done|undone|unerledigt|wieder\s+öffnen)\b", re.IGNORECASE
)
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”|„[^“”\n]*[“”]|«[^»\n]*»')
_CREATE = re.compile(
    r"^\W*(?:please\s+|bitte\s+)?(?:create|make|start|new|build|erstelle|lege|crée|créer|cree)(?!\w)", re.IGNORECASE
)
_DELETE = re.compile(
    r"^\W*(?:please\s+|bitte\s+)?(?:delete|trash|erase|remove|lösche|supprime|efface)(?!\w)", re.IGNORECASE
)


# A second change joined to the first ("... to 9 and add the tag cyberpunk", "to Catan and to Futurama"): a
# conjunction, then a verb of change or a second place. "Tips and Tricks" or "salt and pepper" join no change.
_ANOTHER_CHANGE = re.compile(
    r"\b(?:and|und|et|then|dann|puis|also)\s+(?:then\s+|also\s+|dann\s+|aussi\s+)?"
    rf"(?:{CHANGE_VERBS}|to|from|into|in|on|zu|zum|zur|à|au|(?:the\s+|my\s+)?notes?)\b",
    re.IGNORECASE,
)


def asks_for_more(request: str) -> bool:
    """Return True when `request` seems to join a second change to the first (outside its quoted text).

    A contract holds one change; a reply proposing it must say that anything else asked was left for later.
    """
    text = _QUOTED.sub(" ", request)
    for name in given_names(request):  # "Create a note called Research and Notes": one name
        text = text.replace(name, " ")
    return bool(_ANOTHER_CHANGE.search(text))


def cued_operations(request: str) -> list[str]:
    """Return the operations `request` calls for, or the general ones when its words call for none in particular."""
    # "(Please,) in the How To folder, create a note called ...": the verb comes after the clause.
    request = FOLDER_CLAUSE.sub("", re.sub(r"^\W*(?:please|bitte)[\s,]+", "", request, flags=re.IGNORECASE), count=1)
    unquoted = _QUOTED.sub(" ", request)  # a task "tag the photos" asks for a task, not a tag
    # After a colon comes the text to add ("Append to X: harvesting is not done yet", "...: the price range in the
    # Archive"): its words are no cue.
    head = unquoted.split(":", 1)[0]
    words = set(re.findall(r"[\w-]+", head.casefold()))
    if _CREATE.match(request) and words & {"note", "notiz", "called", "named", "appelée", "nommée", "intitulée"}:
        return ["create_note"]
    if _REOPENS.search(head):
        return ["reopen_task"]
    if _COMPLETES.search(head):
        return ["complete_task"]
    is_removal = bool(words & _REMOVAL)
    chosen: list[str] = []
    for cues, adding, removing in _CUES:
        if words & cues or (adding == "add_tag" and "#" in head):
            chosen.append(removing if is_removal and removing else adding)
    if chosen:
        return list(dict.fromkeys(chosen))
    if _DELETE.match(request):
        return ["delete_note"]
    return list(GENERAL)


def is_new_task(operations: Sequence[str]) -> bool:
    """Return True when the operations a request's words call for add a task (not merely the general ones)."""
    return "add_task" in operations and tuple(operations) != GENERAL


def tool_call(operation: str, values: Values, target: Candidate | None) -> tuple[str, dict[str, object]]:
    """Return the write tool and its arguments (built by code) for a validated contract."""
    op = OPERATIONS[operation]
    if target is not None and target.day is not None and (op.is_daily_ok or operation == "append_to_section"):
        command = {"append_to_section": "append"}.get(operation, operation)
        arguments: dict[str, object] = {"command": command, "date": target.day.isoformat(), "content": values["text"]}
        if operation == "append_to_section":
            arguments["heading"] = values["heading"]
        return "edit_daily_note", arguments
    path = target.path if target is not None else ""
    if operation == "create_note":
        arguments = {"command": "create", "path": _new_note_path(values), "content": values["text"]}
        return "edit_note", {**arguments, "template": values["template"]} if values.get("template") else arguments
    if operation == "move_note":
        return "move_note", {"path": path, "new_path": values["folder"].rstrip("/") + "/"}
    if operation == "rename_note":
        return "move_note", {"path": path, "new_path": values["name"]}
    if operation == "delete_note":
        return "delete_note", {"path": path}
    if operation in ("complete_task", "reopen_task") and target is not None:
        if (change := target.status_change(values["task"], TASK_STATES[operation])) is not None:
            # The note is the task (a task note): its status property says it is done, there is no checkbox.
            return "edit_note", {"path": path, "command": "set_property", "property": change[0], "value": change[1]}
        # By line: the model picked the text from the note's own tasks; two tasks of that text take the first. A
        # completion never toggles: a toggle would reopen a task in progress.
        line = target.task_line(values["task"], TASK_STATES[operation])
        command = "complete_task" if operation == "complete_task" else "toggle_task"
        return "edit_note", {"command": command, "path": path, "line": line or 0, "content": values["task"]}
    return "edit_note", {"path": path, **_edit_note_values(operation, values)}


def _new_note_path(values: Values) -> str:
    """Return where a new note goes: its name, in the folder code found for it (`folder`, create_note only)."""
    name = values.get("name", "")
    return f"{values['folder'].rstrip('/')}/{name}" if values.get("folder") else name


def _new_note_parts(values: Values) -> str:
    template = f" from the template “{values['template']}”" if values.get("template") else ""
    text = f" with the text “{values['text']}”" if values.get("text") else ""
    return f"{template}{text}" or " (empty)"


def _edit_note_values(operation: str, values: Values) -> dict[str, object]:
    if operation in ("add_tag", "remove_tag"):
        return {"command": operation, "value": values["tag"]}
    if operation == "add_alias":
        return {"command": operation, "value": values["alias"]}
    if operation == "set_property":
        return {"command": operation, "property": values["property"], "value": values["value"]}
    if operation == "remove_property":
        return {"command": operation, "property": values["property"]}
    if operation == "append_to_section":
        return {"command": operation, "heading": values["heading"], "content": values["text"]}
    return {"command": operation, "content": values["text"]}  # append, prepend, add_task


def describe(operation: str, values: Values, target: Candidate | None) -> str:
    """Return what the contract asks for, in words, for the reply ("add the tag 'x' to `Note.md`")."""
    where = f"`{target.path}`" if target is not None else "a new note"
    shown = {
        "append": f"append “{values.get('text', '')}” to {where}",
        "prepend": f"add “{values.get('text', '')}” at the start of {where}",
        "append_to_section": f"append “{values.get('text', '')}” to the section “{values.get('heading', '')}” of "
        f"{where}",
        "add_task": f"add the task “{values.get('text', '')}” to {where}",
        "add_tag": f"add the tag “{values.get('tag', '')}” to {where}",
        "remove_tag": f"remove the tag “{values.get('tag', '')}” from {where}",
        "add_alias": f"add the alias “{values.get('alias', '')}” to {where}",
        "set_property": f"set the property “{values.get('property', '')}” to “{values.get('value', '')}” in {where}",
        "remove_property": f"remove the property “{values.get('property', '')}” from {where}",
        "create_note": f"create the note “{_new_note_path(values)}”{_new_note_parts(values)}",
        "move_note": f"move {where} into the folder “{values.get('folder', '')}”",
        "rename_note": f"rename {where} to “{values.get('name', '')}”",
        "delete_note": f"delete {where}",
        "complete_task": f"mark the task “{values.get('task', '')}” in {where} as done",
        "reopen_task": f"mark the task “{values.get('task', '')}” in {where} as not done",
    }
    return shown.get(operation, operation)
