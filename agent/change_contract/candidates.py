"""What code finds in a change request before any model reads it: the notes it may mean, quoted values, days.

The model never writes a path: it picks a target from the candidates gathered here. A note named in the request
(by title, alias, path or [[link]]) is the strongest sign, so when one is named only named notes are candidates;
otherwise the retrieval hits for the request are, unless it names a day. The daily note of a day the request names
("today", "yesterday", an ISO date, or "daily note" for today) comes first, missing or not: a missing one is created
from its template when the change is approved, unless a note of that date's name exists elsewhere. A request naming
neither a note nor a day gets today's daily note after the hits, or before them for a new task in a vault that keeps
daily notes. A request naming a note no note matches ("the Dune note") gets no candidates but `Findings.missing`: a
hit offered instead is what the 0.5B changed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from pathlib import PurePosixPath

from agent.change_contract.due_dates import due_date, due_marker, without_due_date
from agent.change_contract.findings import Candidate, CandidateTask, Findings, NoteTask, TaskState, task_state
from agent.change_contract.request_values import blanked, named_days, new_folder, quoted_values, written_days
from agent.change_contract.request_words import given_names
from agent.change_contract.template_choice import VaultTemplates, requested_template, template_named, vault_templates
from agent.change_contract.vault_references import (
    MAX_HIT_CANDIDATES,
    closest_titles,
    move_destinations,
    named_folders,
    named_headings,
    named_notes,
    named_targets,
    new_task_text,
    requested_folder,
    resolve_note,
    vault_folders,
)
from agent.propose.task_filter import task_filter
from agent.tools.reader import VaultReader
from agent.tools.snapshot import VaultSnapshot
from core.domain import Note
from rag.notes.obsidian_config import DailyNotesConfig, daily_note_path
from rag.notes.task_notes import task_note, task_notes_config

# What findings.py, vault_references.py and template_choice.py hold now stays importable from here.
__all__ = [
    "Candidate",
    "CandidateTask",
    "Findings",
    "TaskState",
    "gather",
    "move_destinations",
    "named_folders",
    "named_headings",
    "named_notes",
    "requested_folder",
    "requested_template",
    "task_state",
    "template_named",
    "vault_folders",
    "vault_templates",
]

MAX_HEADINGS = 40  # per candidate: a note with hundreds of headings must not flood the prompt
MAX_TASKS = 60  # per candidate, for the same reason


def _offered_hits(snapshot: VaultSnapshot, hits: Sequence[str], destinations: Sequence[re.Match[str]]) -> list[str]:
    """Return the retrieval hits that may be targets: notes, not those a move's destination words found."""
    away = {match["name"].casefold() for match in destinations}

    def is_destination(path: str) -> bool:  # the note named like the folder, or a note already in it
        folder = str(PurePosixPath(path).parent).casefold()
        return snapshot.notes[path].title.casefold() in away or bool({folder, folder.rsplit("/", 1)[-1]} & away)

    notes = [path for path in dict.fromkeys(hits) if path in snapshot.notes and not is_destination(path)]
    return notes[:MAX_HIT_CANDIDATES]


def gather(
    reader: VaultReader, request: str, *, hits: Sequence[str], cited: Sequence[str] = (), is_new_task: bool = False
) -> Findings:
    """Return the candidates for `request`: named notes (else the retrieval `hits`), then named days' daily notes.

    A request referring back ("tag that note", "add it to this one") and naming no note has the notes the previous
    answer cited (`cited`, link targets) as its candidates: the hits for "add the tag favorite" found a note with a
    "Favorites" heading, and the 1.5B picked it. A request naming a note that no note matches gets no hits either.
    `is_new_task`: the request adds a task; naming no note, it goes to today's daily note first when the vault
    keeps daily notes (today's exists, or settings say where they go): users expect "add a task to buy milk" in
    today's note, not in a note retrieval found for "milk". Otherwise the note would be a new file at the vault's
    root (Obsidian's default), which the hits come before.
    """
    snapshot = reader.snapshot()
    # "… due Friday": the day is the new task's due date, no daily note to put it in, and no words of the task.
    due = due_date(request, reader.today()) if is_new_task else None
    request = request if due is None else without_due_date(request, due)
    destinations = move_destinations(snapshot, request)
    text = blanked(request, [match.span() for match in destinations])
    days = named_days(text, reader.today())
    named, missing = named_targets(snapshot, text, days, cited, is_new_task=is_new_task)
    # A request naming a day ("today's daily note") means that day's note: retrieval hits for its words (an old
    # daily note, the daily template) offered beside it were what the 0.5B picked, in two runs of three. A note
    # named but missing ("the Dune note") has no stand-in: the 0.5B tagged the daily note retrieval found instead.
    offered = [] if days or missing else _offered_hits(snapshot, hits, destinations)
    candidates = [_note_candidate(snapshot, path) for path in named or offered]
    written = written_days(text)
    daily_config = reader.daily_notes_config(snapshot)  # read once: each day's path and whether the vault keeps them
    for day in reversed(days):  # each goes first: the first named ends first
        daily = _daily_candidate(daily_config, snapshot, day, is_written=day in written)
        candidates = [daily, *(c for c in candidates if c.path != daily.path)]
    if not (named or days or missing):  # "add the tag x" may still mean today's note
        daily = _daily_candidate(daily_config, snapshot, reader.today(), is_written=False)
        others = [c for c in candidates if c.path != daily.path]
        keeps_daily_notes = daily.exists or daily_config.is_set
        candidates = [daily, *others] if is_new_task and keeps_daily_notes else [*others, daily]
    templates = VaultTemplates(reader, snapshot)  # listed only for a request naming a template, or a name
    names = given_names(request, is_template=templates.is_template)
    quoted = quoted_values(request)
    return Findings(
        candidates=tuple(candidates),
        quoted=quoted,
        folders=named_folders(snapshot, request) or tuple(filter(None, [new_folder(request)])),
        is_named=bool(named),
        names=names,
        place=requested_folder(snapshot, request, names),
        template=requested_template(templates, request),
        missing=tuple(missing) if not named else (),
        closest=closest_titles(snapshot, missing) if not named else (),
        task=new_task_text(snapshot, request) if is_new_task and not quoted else "",
        due=due_marker(snapshot, due.day) if due is not None else "",
        task_filter=task_filter(reader.root, snapshot.tasks) if is_new_task else "",
    )


def _daily_candidate(config: DailyNotesConfig, snapshot: VaultSnapshot, day: date, *, is_written: bool) -> Candidate:
    path = daily_note_path(config, day)
    if is_written and path not in snapshot.notes:
        # The date written ("[[2023-09-12]]") names a note as Obsidian resolves a link, by name anywhere: kepano-
        # obsidian keeps Daily/2023-09-12.md without a daily-notes setting, and a second one was proposed at the root.
        path = resolve_note(snapshot, PurePosixPath(path).stem) or path
    existing = _note_candidate(snapshot, path) if path in snapshot.notes else None
    headings, tasks = (existing.headings, existing.tasks) if existing is not None else ((), ())
    label = f"daily note {day.isoformat()}"
    return Candidate(path, label, headings, day, exists=existing is not None, tasks=tasks)


def _note_candidate(snapshot: VaultSnapshot, path: str) -> Candidate:
    note = snapshot.notes[path]
    headings = tuple(dict.fromkeys(heading.text for heading in note.headings))[:MAX_HEADINGS]
    tasks = tuple(CandidateTask(task.text, task_state(task.status), task.line) for task in note.tasks)
    return Candidate(path, note.title, headings, tasks=tasks[:MAX_TASKS], note_task=_note_task(snapshot, note))


def _note_task(snapshot: VaultSnapshot, note: Note) -> NoteTask | None:
    """Return the task `note` is, when it is a task note: "mark Renew passport as done" sets its status."""
    config = task_notes_config(snapshot.root)
    found = task_note(note, config)
    if found is None:
        return None
    state: TaskState = "done" if found.is_done else "open"
    return NoteTask(found.title, state, config.key("status"), config.done_status, config.open_status)
