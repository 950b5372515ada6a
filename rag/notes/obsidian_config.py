"""Obsidian's own settings (`.obsidian/`): where notes go (Daily notes, Templates, new notes), how tasks are written.

Read fresh on every call (the files are tiny and the user may change them in Obsidian at any time); an absent or
broken file means Obsidian's defaults, as in the app.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePosixPath

from rag.notes.moment import format_moment, iso_day
from rag.notes.vault import clean_relative_path

DEFAULT_DAILY_FORMAT = "YYYY-MM-DD"  # Obsidian's default when the Daily notes plugin has no format set
DEFAULT_TEMPLATE_DATE_FORMAT = "YYYY-MM-DD"  # the Templates plugin's defaults for {{date}} and {{time}}
DEFAULT_TEMPLATE_TIME_FORMAT = "HH:mm"
FALLBACK_TEMPLATES_FOLDER = "Templates"
TASKS_PLUGIN_CONFIG = "plugins/obsidian-tasks-plugin/data"  # the Tasks plugin's settings: .obsidian/<this>.json


_DEFAULT_DAILY_NAME = re.compile(r"\d{4}-\d{2}-\d{2}\.md")  # a daily note named in DEFAULT_DAILY_FORMAT
PERIODIC_NOTES = "periodic-notes"  # the Periodic Notes plugin's id; its settings: .obsidian/plugins/<id>/data.json


@dataclass(frozen=True, slots=True)
class DailyNotesConfig:
    """Daily notes as `.obsidian/daily-notes.json` sets them: folder, Moment.js file-name format, template.

    `template` is the template note as the setting names it ("Templates/Daily", usually without `.md`); "" for none.
    `is_set`: settings say where daily notes go (False: Obsidian's defaults, nothing says the vault keeps them).
    """

    folder: str = ""
    format: str = DEFAULT_DAILY_FORMAT
    template: str = ""
    is_set: bool = False


@dataclass(frozen=True, slots=True)
class TemplateFormats:
    """The Templates plugin's Moment.js formats for `{{date}}` and `{{time}}` (`.obsidian/templates.json`)."""

    date: str = DEFAULT_TEMPLATE_DATE_FORMAT
    time: str = DEFAULT_TEMPLATE_TIME_FORMAT


def plugin_config(root: Path, name: str) -> dict[str, object]:
    """Return an `.obsidian/<name>.json` setting, or {} when absent or broken (Obsidian's defaults)."""
    try:
        loaded = json.loads((root / ".obsidian" / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def text_setting(config: dict[str, object], key: str) -> str:
    """Return a setting's text, stripped ("" when it is missing or not text)."""
    value = config.get(key)
    return value.strip() if isinstance(value, str) else ""


def flag_setting(config: dict[str, object], key: str, default: bool) -> bool:
    """Return a true/false setting, or `default` when it is missing or not true/false."""
    value = config.get(key)
    return value if isinstance(value, bool) else default


def daily_notes_config(root: Path, note_paths: Iterable[str] | None = None) -> DailyNotesConfig:
    """Return where Obsidian puts daily notes: folder, format and template (root, YYYY-MM-DD and none by default).

    The Periodic Notes plugin, enabled with its daily notes on, opens and creates them in its own settings' place
    (many vaults use it instead of the core plugin); otherwise the Daily notes plugin's settings say; in a vault with
    no `.obsidian/` folder at all, the daily notes it keeps (`kept_daily_notes_folder`, given `note_paths` if listed).
    """
    periodic = plugin_config(root, f"plugins/{PERIODIC_NOTES}/data").get("daily")
    if isinstance(periodic, dict) and flag_setting(periodic, "enabled", False) and _is_enabled(root, PERIODIC_NOTES):
        config, is_set = periodic, True
    else:  # an empty settings file still says the vault uses the plugin
        config, is_set = plugin_config(root, "daily-notes"), (root / ".obsidian" / "daily-notes.json").is_file()
    folder = text_setting(config, "folder").strip("/")  # Obsidian normalises "/Journal/" and "/" (the root)
    if not has_settings(root):  # no settings at all: the daily notes the vault has say where they go
        found = kept_daily_notes_folder(root, note_paths)
        if found is not None:
            return DailyNotesConfig(folder=found, is_set=True)
    return DailyNotesConfig(
        folder=clean_relative_path(folder, what="daily notes folder"),
        format=text_setting(config, "format") or DEFAULT_DAILY_FORMAT,
        template=text_setting(config, "template"),
        is_set=is_set,
    )


def kept_daily_notes_folder(root: Path, note_paths: Iterable[str] | None = None) -> str | None:
    """Return the folder holding most of the vault's notes named as daily notes are by default (2023-09-12.md).

    A vault copied without its `.obsidian/` folder (an export, a synced copy, a folder of Markdown) has lost its
    Daily notes settings; kepano's vault keeps "Daily/2023-09-12.md", and "today's daily note" is meant to go beside
    it, not in the root, where Obsidian's defaults would put it. None when no such note is found, or when no folder
    holds more than half of them. `note_paths`: the vault's notes (vault-relative), when the caller has them listed
    already; else the vault's folders are walked, dot-folders aside.
    """
    paths = map(PurePosixPath, _daily_named_paths(root) if note_paths is None else note_paths)
    folders: Counter[str] = Counter(
        path.parent.as_posix() for path in paths if _DEFAULT_DAILY_NAME.fullmatch(path.name) and iso_day(path.name[:10])
    )
    if not folders:
        return None
    kept, count = folders.most_common(1)[0]
    return ("" if kept == "." else kept) if count * 2 > folders.total() else None


def _daily_named_paths(root: Path) -> Iterator[str]:
    """Yield the vault-relative paths of the files under `root` named as daily notes, dot-entries aside."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif _DEFAULT_DAILY_NAME.fullmatch(entry.name):
                yield Path(entry.path).relative_to(root).as_posix()


def _is_enabled(root: Path, plugin: str) -> bool:
    """Return True when community plugin `plugin` is turned on (listed in `.obsidian/community-plugins.json`)."""
    try:
        enabled = json.loads((root / ".obsidian" / "community-plugins.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(enabled, list) and plugin in enabled


def daily_note_path(config: DailyNotesConfig, day: date) -> str:
    """Return the vault path the daily note of `day` has, or would have once created (folder + formatted name)."""
    name = clean_relative_path(format_moment(config.format, day), what="daily note name")
    return f"{config.folder}/{name}.md" if config.folder else f"{name}.md"


def template_formats(root: Path) -> TemplateFormats:
    """Return the Templates plugin's date and time formats (YYYY-MM-DD and HH:mm by default)."""
    config = plugin_config(root, "templates")
    return TemplateFormats(
        date=text_setting(config, "dateFormat") or DEFAULT_TEMPLATE_DATE_FORMAT,
        time=text_setting(config, "timeFormat") or DEFAULT_TEMPLATE_TIME_FORMAT,
    )


def configured_templates_folder(root: Path) -> str | None:
    """Return the Templates plugin's folder setting, or None when it has none (the caller decides the fallback)."""
    folder = plugin_config(root, "templates").get("folder")
    if isinstance(folder, str) and folder.strip():
        return clean_relative_path(folder, what="templates folder")
    return None


def tasks_global_filter(root: Path) -> str:
    """Return the Tasks plugin's global filter ("#task"), or "" when it has none (every checkbox is a task then).

    With one set, a checkbox line without it is no task to the plugin: no query lists it, no done date is set.
    """
    return text_setting(plugin_config(root, TASKS_PLUGIN_CONFIG), "globalFilter")


def has_settings(root: Path) -> bool:
    """Return True when the vault keeps Obsidian's settings (a `.obsidian/` folder); an exported copy has none."""
    return (root / ".obsidian").is_dir()


def counts_as_task(root: Path) -> Callable[[str], bool]:
    """Return whether a checkbox's text is a task to the Tasks plugin: it holds the global filter, when one is set.

    With "#task" set, "- [ ] Buy milk 📅 2026-12-05" is a checklist item to the plugin: no query lists it.
    """
    wanted = tasks_global_filter(root)
    return (lambda text: holds_global_filter(text, wanted)) if wanted else (lambda _text: True)


def holds_global_filter(text: str, wanted: str) -> bool:
    """Return True when a task's `text` holds the global filter `wanted` as a word ("#task", not "#tasks")."""
    return re.search(rf"(?<!\S){re.escape(wanted)}(?!\S)", text) is not None


@dataclass(frozen=True, slots=True)
class TasksPluginSettings:
    """The Tasks plugin's settings that decide what completing a task writes; the plugin's defaults otherwise."""

    global_filter: str = ""
    is_dataview_format: bool = False  # taskFormat "dataview": [due:: 2024-03-04] instead of 📅 2024-03-04
    sets_done_date: bool = True  # setDoneDate: ✅ today on a completed task
    sets_created_date: bool = False  # setCreatedDate: ➕ today on a new task, the next occurrence included
    is_recurrence_on_next_line: bool = False  # recurrenceOnNextLine: the next occurrence goes below, not above
    removes_scheduled_date: bool = False  # removeScheduledDateOnRecurrence (when a start or due date is left)


def tasks_plugin_settings(root: Path) -> TasksPluginSettings | None:
    """Return the Tasks plugin's settings, or None when the vault has no Tasks plugin configured.

    The plugin writes its `data.json` when it is first enabled, so without that file no plugin acts on completed
    tasks; a broken file means the plugin's defaults.
    """
    if not (root / ".obsidian" / f"{TASKS_PLUGIN_CONFIG}.json").is_file():
        return None
    config = plugin_config(root, TASKS_PLUGIN_CONFIG)
    defaults = TasksPluginSettings()
    return TasksPluginSettings(
        global_filter=text_setting(config, "globalFilter"),
        is_dataview_format=config.get("taskFormat") == "dataview",
        sets_done_date=flag_setting(config, "setDoneDate", defaults.sets_done_date),
        sets_created_date=flag_setting(config, "setCreatedDate", defaults.sets_created_date),
        is_recurrence_on_next_line=flag_setting(config, "recurrenceOnNextLine", defaults.is_recurrence_on_next_line),
        removes_scheduled_date=flag_setting(config, "removeScheduledDateOnRecurrence", defaults.removes_scheduled_date),
    )


def new_note_folder(root: Path) -> str:
    """Return the folder for new notes ("Default location for new notes" in `.obsidian/app.json`; "" = root).

    "folder" means `newFileFolderPath` when that folder exists (Obsidian falls back to the root otherwise);
    "root" and "current" (the open note's folder: there is none here) mean the vault root.
    """
    config = plugin_config(root, "app")
    if config.get("newFileLocation") != "folder":
        return ""
    folder = clean_relative_path(text_setting(config, "newFileFolderPath").strip("/"), what="new notes folder")
    return folder if folder and (root / folder).is_dir() else ""
