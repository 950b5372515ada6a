"""The JSON schema a change contract must meet, built per request, and the check of a reply against it.

`operation` is an enum of the operations offered, `target` an enum of the candidate paths code found, and each
value field has a tight pattern (one line, a tag without '#' or spaces, a file name Obsidian allows). A quoted
string in the request is the text: text fields are then an enum of the quoted strings, so the model copies them
exactly; a name the request gives a note ("called Plum Pruning") is likewise the only name allowed. The schema is
sent as `response_format` (a grammar on llama.cpp, Ollama, LM Studio and vLLM); endpoints that ignore it get the
same checks here, and the reply's errors go back to the model once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema

from agent.change_contract.findings import Candidate, Findings
from agent.change_contract.operations import OPERATIONS, TASK_STATES
from agent.change_contract.request_values import values_after
from agent.change_contract.request_words import NAME_PATTERN, gives_text
from agent.change_contract.vault_references import named_headings
from llm_client.replies.reply_json import OutputInvalid, schema_response_format
from rag.notes.inline import TAG
from rag.notes.task_fields import parse_task_fields

SCHEMA_NAME = "change-v1"
MAX_TEXT_CHARS = 500
MAX_FOLDERS = 40
_MAX_ERRORS = 3
# One line of text; a tag: no spaces, '#' or punctuation that ends a tag in Obsidian; a name: no character
# Obsidian refuses in file names or links break on (agent.propose.paths.FORBIDDEN_IN_NAMES).
PATTERNS = {
    "text": rf"^[^\n]{{1,{MAX_TEXT_CHARS}}}$",
    "tag": r"^[^\s#,.;:!?\[\]\"'`]{1,80}$",
    "alias": r"^[^\n\[\]|#^]{1,100}$",
    "property": r"^[A-Za-z][A-Za-z0-9_ -]{0,39}$",
    "value": r"^[^\n]{1,200}$",
    "name": NAME_PATTERN,
}
COPIED = ("tag", "alias", "name")  # values the request must hold word for word (a text may be composed)
_HASHTAG = re.compile(r"(?<![\w#])#([^\s#,.;:!?\[\]\"'`]{1,80})")


@dataclass(frozen=True, slots=True)
class Contract:
    """A validated reply: the operation, the target candidate (None for a new note) and the value fields."""

    operation: str
    target: Candidate | None
    values: dict[str, str]


def value_schema(field: str, findings: Findings, request: str, targets: Sequence[Candidate]) -> dict[str, Any]:
    """Return the schema of one value field, bound to what code found where it can be."""
    if field == "text" and findings.quoted:
        texts = [value for value in findings.quoted if value not in findings.names]  # 'called "X"' names, not text
        return {"type": "string", "enum": texts or list(findings.quoted)}
    if field == "text" and findings.task:  # a new task's words, unquoted: copied by code, never reworded
        return {"type": "string", "enum": [findings.task]}
    if field == "name" and findings.names:
        return {"type": "string", "enum": list(findings.names)}
    if field == "tag" and (tags := list(dict.fromkeys(_HASHTAG.findall(request)))):
        return {"type": "string", "enum": tags}
    if field in ("tag", "alias") and (given := _given_values(request, field)):
        return {"type": "string", "enum": given}
    if field == "heading":  # the headings the request names, when it names any
        headings = named_headings(request, targets) or list(dict.fromkeys(h for c in targets for h in c.headings))
        return {"type": "string", "enum": headings}
    if field == "folder":
        return {"type": "string", "enum": list(findings.folders[:MAX_FOLDERS])}
    return {"type": "string", "pattern": PATTERNS[field]}


def task_choices(operation: str, findings: Findings, targets: Sequence[Candidate], request: str = "") -> list[str]:
    """Return the tasks a complete (open ones) or reopen (done ones) may pick.

    Those the request quotes; else the checkbox tasks it writes out (their words, without the plugin's markers);
    else a task note it names, the note itself ("Mark Renew passport as done": not its checkbox "Get new passport
    photos taken"; "Mark Buy three 9 V batteries as done in the Replace smoke detector batteries note": the
    checkbox, though the note is named too); else all, less a task note named only as the place of the task
    ("Tick off the battery task in the Replace smoke detector batteries note": the 1.5B picked the note itself).
    """
    states = TASK_STATES[operation]
    tasks = list(dict.fromkeys(text for target in targets for text in target.task_texts(states)))
    quoted = [value.casefold() for value in findings.quoted]
    named = [text for text in tasks if any(value in text.casefold() for value in quoted)]
    own = {target.note_task.title for target in targets if target.note_task is not None}
    # Its words without the plugin's markers nor tags: "Bake a cake" is "#task Bake a cake 🔼 🛫 2021-11-25", where
    # every task holds the global filter (the 0.5B, offered all of ACME's, marked another one done).
    boxes = [text for text in tasks if text not in own and _writes(request, _untagged(text))]
    as_task = {text for text in own if _writes(request, text, as_task=True)}
    notes = [text for text in tasks if text in as_task]
    # A task note named only as the place of the task asked for is not that task: its checkboxes are.
    placed = {text for text in own - as_task if _writes(request, text)}
    inside = [text for text in tasks if text not in placed]
    return named or boxes or notes or inside or tasks


def _untagged(task: str) -> str:
    """Return a task's words without its fields' markers and its tags ("#task Bake a cake 🔼" -> "Bake a cake")."""
    return TAG.sub(" ", parse_task_fields(task).description)


def _writes(request: str, text: str, *, as_task: bool = False) -> bool:
    """Return True when `request` holds `text` whole, as words (any case).

    `as_task`: not only where it names the place of another task ("the battery task in the Replace smoke detector
    batteries note", "… in Renew passport").
    """
    words = " ".join(text.split())
    if not words:
        return False
    found = re.finditer(rf"(?<!\w){re.escape(words)}(?!\w)", request, re.IGNORECASE)
    return any(not (as_task and _is_place(request, match)) for match in found)


_PLACE_BEFORE = re.compile(r"\b(?:in|from|of|within|inside|im|in\s+der|aus)\s+(?:(?:the|my|der|dem|meiner)\s+)?$", re.I)
_PLACE_AFTER = re.compile(r"^\s+(?:note|page|file|notiz|seite)\b", re.IGNORECASE)


def _is_place(request: str, match: re.Match[str]) -> bool:
    return bool(_PLACE_BEFORE.search(request[: match.start()]) or _PLACE_AFTER.match(request[match.end() :]))


def targets_for(operation: str, findings: Findings) -> list[Candidate]:
    """Return the candidates `operation` may target: existing notes, or a missing daily note where that is fine."""
    op = OPERATIONS[operation]
    if not op.has_target:
        return []
    return [c for c in findings.candidates if c.exists or (op.is_daily_ok and c.day is not None)]


def offered(operations: Sequence[str], findings: Findings) -> list[str]:
    """Return the operations that can be offered at all: a target to choose, headings or folders to choose from."""
    usable = []
    for name in operations:
        op = OPERATIONS[name]
        if not op.has_target and findings.missing and len(operations) > 1:
            continue  # 'Append "x" to the Dune note' with no Dune note: no new note instead, unless asked for one
        targets = targets_for(name, findings)
        if op.has_target and not targets:
            continue
        if "heading" in op.fields and not any(c.headings for c in targets):
            continue
        if "folder" in op.fields and not findings.folders:
            continue
        if "task" in op.fields and not task_choices(name, findings, targets):
            continue
        usable.append(name)
    return usable


def branch(operation: str, findings: Findings, request: str) -> dict[str, Any]:
    """Return the schema of a contract naming `operation`: the operation, its target enum, its value fields."""
    op = OPERATIONS[operation]
    targets = targets_for(operation, findings)
    properties: dict[str, Any] = {"operation": {"type": "string", "enum": [operation]}}
    if op.has_target:
        properties["target"] = {"type": "string", "enum": [c.path for c in targets]}
    for field in op.fields:
        if field == "task":  # open tasks to complete, done ones to reopen
            properties[field] = {"type": "string", "enum": task_choices(operation, findings, targets, request)}
        elif field == "text" and operation == "create_note" and not gives_text(request):
            properties[field] = {"type": "string", "enum": [""]}  # no text asked for: an empty note (or its template)
        else:
            properties[field] = value_schema(field, findings, request, targets)
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def contract_schema(operations: Sequence[str], findings: Findings, request: str) -> dict[str, Any]:
    """Return the schema for a reply choosing one of `operations` (already `offered`)."""
    branches = [branch(name, findings, request) for name in operations]
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """Return OpenAI's `response_format` asking for `schema` (llm_client drops it where an endpoint refuses it)."""
    return schema_response_format(SCHEMA_NAME, schema)


def validate(data: object, operations: Sequence[str], findings: Findings, request: str) -> Contract:
    """Return the contract `data` (the parsed reply) states, or raise OutputInvalid saying what is wrong."""
    if not isinstance(data, dict):
        raise OutputInvalid("the reply must be one JSON object")
    operation = data.get("operation")
    if operation not in operations:
        raise OutputInvalid(f"'operation' must be one of: {', '.join(operations)}")
    schema = branch(str(operation), findings, request)
    cleaned = _enum_cased(_stripped(data), schema)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(cleaned))
    if errors:
        raise OutputInvalid("; ".join(_error_text(error) for error in errors[:_MAX_ERRORS]))
    values = {key: str(value) for key, value in cleaned.items() if key not in ("operation", "target")}
    if operation == "create_note" and findings.place:
        values["folder"] = findings.place  # chosen by code, never by the model (see vault_references.requested_folder)
    if operation == "create_note" and findings.template:
        values["template"] = findings.template  # likewise (template_choice.requested_template)
    target = findings.candidate(str(cleaned["target"])) if "target" in cleaned else None
    for field in COPIED:
        if field in values:
            values[field] = _as_written(values[field], request, field)
    if "value" in values:  # "to paused": not the 1.5B's "Paused" (a value may be composed, so it is not refused)
        values["value"] = _in_request_case(values["value"], request) or values["value"]
    if values.get("task") and target is not None and not _has_task(target, str(operation), values["task"]):
        target = _note_of_task(findings, str(operation), values["task"], chosen=target)
    if values.get("heading") and target is not None and values["heading"] not in target.headings:
        raise OutputInvalid(
            f"'{values['heading']}' is not a heading of {target.path}; its headings are: "
            + (", ".join(target.headings) or "none")
        )
    return Contract(str(operation), target, values)


def _given_values(request: str, field: str) -> list[str]:
    """Return the values the request names right after "tag"/"alias" that such a value may be ("" for none)."""
    return [value for value in values_after(request, field) if re.match(PATTERNS[field], value)]


def _as_written(value: str, request: str, field: str) -> str:
    """Return `value` as the request spells it ("books", not the model's "Books"), or raise OutputInvalid.

    Tags and names keep the user's case: Obsidian shows a tag as first written, and a note's name is its file name.
    """
    found = _in_request_case(value, request) or _within_request(value, request)
    if found is None:
        raise OutputInvalid(f"'{field}' must be copied from the request; '{value}' is not in it")
    return found


def _in_request_case(value: str, request: str) -> str | None:
    """Return `value` as the request writes it as a word, None when the request holds no such word.

    As given where the request has it so ("the tag garden" beside "Garden Plan"), else in the request's case.
    """
    word = rf"(?<!\w){re.escape(value)}(?!\w)"
    if re.search(word, request) is not None:
        return value
    found = re.search(word, request, re.IGNORECASE)
    return found[0] if found is not None else None


def _within_request(value: str, request: str) -> str | None:
    """Return `value` as the request writes it inside a longer word, case aside (None: not in it)."""
    found = re.search(re.escape(value), request, re.IGNORECASE)
    return found[0] if found is not None else None


def _has_task(target: Candidate, operation: str, text: str) -> bool:
    return target.task_line(text, TASK_STATES[operation]) is not None


def _note_of_task(findings: Findings, operation: str, text: str, *, chosen: Candidate) -> Candidate:
    """Return the one note found whose task `text` is, where the model paired it with another (`chosen`).

    Both are picked from what code found, and the task says which note it is in: asked "Mark the task 'Order seed
    potatoes' as done", the 1.5B named the task of a daily note and, as its target, the seed inventory, twice. Not
    where the request names its notes (the user's note is meant, and lacks that task), nor when several hold it.
    """
    holding = [] if findings.is_named else [c for c in findings.candidates if _has_task(c, operation, text)]
    if len(holding) != 1:
        raise OutputInvalid(f"'{text}' is not a task of {chosen.path} that this change can mark")
    return holding[0]


def _enum_cased(data: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Return `data` with a value that differs from one of its enum's only in case spelled as the enum spells it.

    Endpoints without a grammar let the model write "Books" for the request's "books"; the request's is meant.
    """
    fixed = dict(data)
    for field, spec in schema.get("properties", {}).items():
        value, allowed = fixed.get(field), spec.get("enum")
        if isinstance(value, str) and allowed and value not in allowed:
            fixed[field] = next((a for a in allowed if isinstance(a, str) and a.casefold() == value.casefold()), value)
    return fixed


def _stripped(data: dict[str, Any]) -> dict[str, Any]:
    """Return `data` with a leading '#' off a tag (a model writes "#x" for the tag x) and strings trimmed."""
    cleaned = {key: value.strip() if isinstance(value, str) else value for key, value in data.items()}
    if isinstance(cleaned.get("tag"), str):
        cleaned["tag"] = cleaned["tag"].lstrip("#")
    return cleaned


def _error_text(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path) or "the reply"
    if error.validator == "enum":
        allowed = error.validator_value if isinstance(error.validator_value, list) else []
        return f"'{where}' must be one of: {', '.join(map(str, allowed))}"
    if error.validator == "pattern":
        return f"'{where}' has characters it may not hold (one line; a tag without '#' or spaces)"
    return f"'{where}': {error.message[:200]}"
