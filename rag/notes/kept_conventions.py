"""What a vault copied without its `.obsidian/` settings still shows of them, in its notes.

An export, a synced copy or a folder of Markdown has lost Obsidian's and its plugins' settings, but not the notes
they shaped: the tag nearly every task holds is the Tasks plugin's global filter, and done tasks dated "✅ 2024-02-19"
are the plugin's doing. Read only when the vault has no `.obsidian/` folder (`obsidian_config.has_settings`); the
daily notes folder is read so too (`obsidian_config.kept_daily_notes_folder`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from core.domain import Task
from rag.notes.inline import find_tags
from rag.notes.obsidian_config import TasksPluginSettings
from rag.notes.task_fields import parse_task_fields

KEPT_TAG_SHARE = 0.9  # of a vault's tasks that hold one tag, for a new task to hold it too (`kept_task_tag`)
KEPT_TAG_MIN_TASKS = 20  # fewer tasks are no convention to follow


def kept_task_tag(task_texts: Iterable[str]) -> str:
    """Return the tag nearly all of a vault's tasks hold ("#task"), or "" when there is no such convention.

    The Tasks plugin's global filter is a setting; a vault copied without `.obsidian/` has lost it, but not its
    tasks: 844 of obsidian-tasks-demo's 896 checkboxes hold "#task", and one of its notes says an item without it
    "is not a task". A new task added there should hold it too. KEPT_TAG_SHARE of KEPT_TAG_MIN_TASKS or more.
    """
    counts: Counter[str] = Counter()  # by the tag as compared (Obsidian's tags ignore case)
    spelled: dict[str, str] = {}  # as first written
    tasks = 0
    for text in task_texts:
        tasks += 1
        held = {tag.casefold(): f"#{tag}" for tag in find_tags(text)}  # as Obsidian reads a tag
        counts.update(held.keys())
        for key, tag in held.items():
            spelled.setdefault(key, tag)
    if tasks < KEPT_TAG_MIN_TASKS or not counts:
        return ""
    key, held_by = counts.most_common(1)[0]
    return spelled[key] if held_by >= KEPT_TAG_SHARE * tasks else ""


KEPT_DONE_DATE_SHARE = 0.5  # of a vault's done tasks that carry a done date, for the Tasks plugin to be in use
KEPT_DONE_MIN_TASKS = 5  # fewer done tasks are no convention to follow


def kept_tasks_plugin_settings(tasks: Iterable[Task]) -> TasksPluginSettings | None:
    """Return the Tasks plugin's settings a vault's tasks show it used, or None when they show no plugin.

    The plugin dates a task it completes ("✅ 2024-02-19", or Dataview's "[completion:: …]"): where half the done
    tasks or more are so dated (of KEPT_DONE_MIN_TASKS or more), a task completed now gets its date too, in the form
    most of them use, and the tag nearly all the tasks hold is its global filter (`kept_task_tag`). 50 of
    obsidian-tasks-demo's 79 done tasks are dated; none of kepano-obsidian's or vaultofknowledge's.
    """
    done = dated = dataview = 0
    texts = []
    for task in tasks:
        texts.append(task.text)
        if not task.is_done:
            continue
        done += 1
        if parse_task_fields(task.text).done is not None:
            dated += 1
            dataview += "completion::" in task.text.replace(" ", "").casefold()  # Dataview's, as due_marker tells
    if done < KEPT_DONE_MIN_TASKS or dated < KEPT_DONE_DATE_SHARE * done:
        return None
    return TasksPluginSettings(global_filter=kept_task_tag(texts), is_dataview_format=dataview * 2 > dated)
