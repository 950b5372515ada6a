"""Crew collectors over real files: a copy of sample_vault and vaults generated per test."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from core.domain import Chunk, SearchFilters, SearchHit
from core.settings import Settings
from crews.collectors import CollectContext, CollectorError, collect, validate_params
from crews.definitions import CollectorTask, TeamSpec
from crews.model import Material
from edits.diffs import content_hash
from edits.writers.files import read_exact_text
from rag.notes.frontmatter import read_frontmatter
from rag.notes.markdown import parse_note
from rag.notes.task_fields import find_tasks

TODAY = date(2026, 11, 25)
TRIAGE = {
    "folder": "TaskNotes",
    "where_missing": ["priority"],
    "where_in": {"status": ["open", "in-progress"]},
    "include_content": True,
    "limit": 15,
}


def context_for(root: Path, tmp_path: Path, **settings: Any) -> CollectContext:
    vault = Settings(_env_file=None, vault_path=root, data_dir=tmp_path / "data", **settings).vault
    return CollectContext(vault=vault, today=TODAY, now=datetime(2026, 11, 25, 7, 0))


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def task_texts(material: Material) -> list[str]:
    return [task.text for item in material.items for task in item.tasks]


@pytest.fixture
def sample(vault: Path, tmp_path: Path) -> CollectContext:
    return context_for(vault, tmp_path)


def test_task_triage_query_finds_open_task_notes_missing_priority(sample: CollectContext, vault: Path) -> None:
    found = collect("tasknotes.query", TRIAGE, sample)
    assert [item.path for item in found.items] == [
        "TaskNotes/Book the car service.md",
        "TaskNotes/Call the landlord about the radiator.md",
        "TaskNotes/File the tax return.md",
        "TaskNotes/Replace smoke detector batteries.md",
    ]  # "Cancel the streaming subscription" is done; the others have a priority
    item = found.item("TaskNotes/File the tax return.md")
    assert item is not None and item.title == "File the tax return"
    assert item.content_hash == content_hash(read_exact_text(vault, item.path) or "")
    assert item.frontmatter["status"] == "in-progress" and item.frontmatter["contexts"] == ["@home"]
    assert "title" not in item.frontmatter  # shown as the item's title already
    assert item.text is not None and item.text.startswith("Through ELSTER")
    assert found.folder_values["priority"] == {"high", "low", "normal"}
    assert found.folder_values["contexts"] == {"@errands", "@home", "@work"}
    assert found.summary.startswith("4 note(s) in TaskNotes/ (missing priority; status in open, in-progress)")


def test_content_is_left_out_unless_asked(sample: CollectContext) -> None:
    found = collect("tasknotes.query", {**TRIAGE, "include_content": False}, sample)
    assert found.items and all(item.text is None for item in found.items)


def test_filters_equal_in_and_missing_compare_like_obsidian(tmp_path: Path) -> None:
    root = write(
        tmp_path / "v",
        {
            "T/a.md": "---\nstatus: Open\ncontexts: ['@home', '@work']\npriority: ''\n---\nA",
            "T/b.md": "---\nstatus: open\ncontexts: ['@work']\npriority: high\n---\nB",
            "T/c.md": "---\nstatus: waiting\ncontexts: []\n---\nC",
            "T/d.md": "---\nstatus: done\npriority: null\n---\nD",
            "T/plain.md": "No frontmatter at all.",
            "T/broken.md": "---\nstatus: [open\n---\nbroken",
        },
    )
    context = context_for(root, tmp_path)

    def paths(**params: object) -> list[str]:
        return [item.path for item in collect("tasknotes.query", {"folder": "T", **params}, context).items]

    assert paths(where={"status": "open"}) == ["T/a.md", "T/b.md"]  # case-insensitive
    assert paths(where={"contexts": "@home"}) == ["T/a.md"]  # a list contains the value
    assert paths(where={"Contexts": ["@home", "@work"]}) == ["T/a.md"]  # all of them
    assert paths(where_in={"status": ["waiting", "done"]}) == ["T/c.md", "T/d.md"]
    assert paths(where_missing=["priority"]) == ["T/a.md", "T/c.md", "T/d.md", "T/plain.md"]  # absent, empty, null
    assert paths(where_missing="contexts") == ["T/c.md", "T/d.md", "T/plain.md"]
    assert paths() == ["T/a.md", "T/b.md", "T/c.md", "T/d.md", "T/plain.md"]  # not T/broken.md
    summary = collect("tasknotes.query", {"folder": "T"}, context).summary
    assert "1 note(s) with invalid frontmatter left out (T/broken.md)" in summary


def test_limit_keeps_the_first_notes_by_path_and_says_how_many_more(tmp_path: Path) -> None:
    root = write(tmp_path / "v", {f"T/{n:02d}.md": f"---\nstatus: open\n---\n{n}" for n in range(12)})
    found = collect("tasknotes.query", {"folder": "T", "limit": 5}, context_for(root, tmp_path))
    assert [item.path for item in found.items] == [f"T/{n:02d}.md" for n in range(5)]
    assert "7 more matched beyond the limit of 5" in found.summary
    assert found.folder_values["status"] == {"open"}


def test_a_folder_that_does_not_exist_or_leaves_the_vault_is_a_clear_error(sample: CollectContext) -> None:
    with pytest.raises(CollectorError, match="the folder 'Tasks' does not exist in the vault"):
        collect("tasknotes.query", {"folder": "Tasks"}, sample)
    with pytest.raises(CollectorError, match="leaves the vault"):
        collect("tasks.open", {"folder": "../elsewhere"}, sample)
    with pytest.raises(CollectorError, match="hidden"):
        collect("tasknotes.query", {"folder": ".obsidian"}, sample)
    assert collect("tasknotes.query", {"folder": "tasknotes", "limit": 1}, sample).items  # the case is forgiven


def test_bad_params_are_refused_before_anything_is_read(sample: CollectContext) -> None:
    with pytest.raises(CollectorError, match="has no param 'folders' \\(did you mean 'folder'\\?\\)"):
        collect("tasknotes.query", {"folders": "TaskNotes"}, sample)
    with pytest.raises(CollectorError, match="unknown collector 'notes.all'"):
        collect("notes.all", {}, sample)


def test_templates_the_crew_root_and_private_folders_are_never_collected(tmp_path: Path) -> None:
    task_note = "---\nstatus: open\n---\n- [ ] Secret errand 📅 2026-11-20\n"
    root = write(
        tmp_path / "v",
        {
            "Templates/Task.md": task_note,
            "_crews/Team.md": task_note,
            "Journal/Diary.md": task_note,
            "Work/Real.md": task_note.replace("Secret", "Real"),
        },
    )
    context = context_for(root, tmp_path, private_folders=("Journal",))
    assert [item.path for item in collect("tasknotes.query", {}, context).items] == ["Work/Real.md"]
    assert task_texts(collect("tasks.open", {}, context)) == ["Real errand"]
    with pytest.raises(CollectorError, match="private or ignored"):
        collect("tasknotes.query", {"folder": "Journal"}, context)
    with pytest.raises(CollectorError, match="private or ignored"):
        collect("tasknotes.query", {"folder": "_crews"}, context)
    # A folder asked for by name may be the templates folder itself.
    assert [item.path for item in collect("tasknotes.query", {"folder": "Templates"}, context).items] == [
        "Templates/Task.md"
    ]


def test_with_the_tasks_plugins_global_filter_only_checkboxes_holding_it_are_tasks(tmp_path: Path) -> None:
    root = write(
        tmp_path / "v",
        {
            ".obsidian/plugins/obsidian-tasks-plugin/data.json": '{"globalFilter": "#task"}',
            "Inbox/Note.md": "- [ ] #task Real task 📅 2026-11-20\n- [ ] Packing list item\n",
        },
    )
    assert task_texts(collect("tasks.open", {}, context_for(root, tmp_path))) == ["#task Real task"]


def test_the_crew_root_is_left_out_even_when_the_ignore_globs_do_not_name_it(tmp_path: Path) -> None:
    root = write(tmp_path / "v", {"_ops/Team.md": "- [ ] Crew task\n", "Inbox/Note.md": "- [ ] Real task\n"})
    bare = context_for(root, tmp_path, crews_root="_elsewhere")
    assert task_texts(collect("tasks.open", {}, bare)) == ["Crew task", "Real task"]
    told = CollectContext(vault=bare.vault, today=TODAY, now=bare.now, crew_root="_ops")
    assert task_texts(collect("tasks.open", {}, told)) == ["Real task"]


TASKS_NOTE = """# Errands

- [ ] Overdue dentist 📅 2026-11-20 ⏫
- [/] Due today report [due:: 2026-11-25]
- [ ] Soon bins 📅 2026-12-02 🔁 every week
- [ ] Later trip 📅 2026-12-03
- [ ] Scheduled call ⏳ 2026-11-27
- [ ] Undated chore 🔽
- [x] Done thing 📅 2026-11-20 ✅ 2026-11-21
- [-] Cancelled thing 📅 2026-11-20
- [ ]
    - [ ] Nested step (due:: 2026-11-24)

```
- [ ] Not a task, in a code block 📅 2026-11-20
```
"""


def test_open_tasks_within_the_window_keep_overdue_and_due_soon(tmp_path: Path) -> None:
    root = write(tmp_path / "v", {"Inbox/Errands.md": TASKS_NOTE})
    context = context_for(root, tmp_path)
    week = collect("tasks.open", {"due_within_days": 7}, context)
    assert task_texts(week) == [
        "Overdue dentist",
        "Nested step",
        "Due today report",
        "Scheduled call",
        "Soon bins",
    ]  # earliest first; 2026-12-03 is a day past the week; the undated chore is left out
    tasks = {task.text: task for task in week.items[0].tasks}
    assert tasks["Overdue dentist"].due == "2026-11-20" and tasks["Overdue dentist"].priority == "high"
    assert tasks["Due today report"].status == "/" and tasks["Due today report"].line == 4
    assert tasks["Soon bins"].recurrence == "every week" and tasks["Scheduled call"].scheduled == "2026-11-27"
    assert week.summary.startswith("5 open task(s) in 1 note(s), due or scheduled by 2026-12-02 or overdue: 2 overdue")
    assert week.as_of == "2026-11-25"
    with_undated = collect("tasks.open", {"due_within_days": 7, "include_undated": True}, context)
    assert task_texts(with_undated)[-1] == "Undated chore"
    everything = task_texts(collect("tasks.open", {}, context))
    assert len(everything) == 7 and "Later trip" in everything and "Done thing" not in everything


def test_the_task_limit_keeps_the_earliest_and_groups_them_by_note(tmp_path: Path) -> None:
    root = write(
        tmp_path / "v",
        {"A.md": "- [ ] a-late 📅 2026-12-01\n- [ ] a-early 📅 2026-11-01\n", "B.md": "- [ ] b-mid 📅 2026-11-15\n"},
    )
    found = collect("tasks.open", {"limit": 2}, context_for(root, tmp_path))
    assert [(item.path, [task.text for task in item.tasks]) for item in found.items] == [
        ("A.md", ["a-early"]),
        ("B.md", ["b-mid"]),
    ]
    assert "1 more beyond the limit" in found.summary


def test_open_tasks_of_sample_vault_for_the_daily_briefing(sample: CollectContext, vault: Path) -> None:
    found = collect("tasks.open", {"due_within_days": 7, "limit": 40}, sample)
    texts = task_texts(found)
    assert texts[:2] == ["Get new biometric passport photos taken", "Book the appointment at the Bürgeramt"]
    assert "Lena: implement one-level transclusion expansion" in texts  # due 2026-11-26
    assert "Collect the receipts for the home office costs" not in texts  # [due:: 2099-06-30]
    assert not any(item.path.startswith("Templates/") for item in found.items)
    passport = found.item("TaskNotes/Renew passport.md")
    assert passport is not None and passport.content_hash == content_hash(read_exact_text(vault, passport.path) or "")


def test_the_daily_note_of_a_day_present_and_absent(sample: CollectContext, vault: Path) -> None:
    present = collect("daily.note", {"date": "2026-11-16"}, sample)
    (item,) = present.items
    assert item.path == "Daily/2026-11-16.md" and item.title == "2026-11-16"
    assert item.content_hash == content_hash(read_exact_text(vault, item.path) or "")
    assert item.text is not None and item.text.startswith("# Monday, 16 November 2026")
    absent = collect("daily.note", {}, sample)  # today, 2026-11-25, has no note yet
    assert absent.items[0].path == "Daily/2026-11-25.md"
    assert absent.items[0].content_hash is None and absent.items[0].text is None
    assert "does not exist yet" in absent.summary
    yesterday = collect("daily.note", {"date": "yesterday", "include_content": False}, sample)
    assert yesterday.items[0].path == "Daily/2026-11-24.md"


def test_the_daily_note_follows_the_daily_notes_settings(tmp_path: Path) -> None:
    root = write(tmp_path / "v", {"Journal/2026/11-25 Wednesday.md": "Today.\n"})
    (root / ".obsidian").mkdir()
    settings = {"folder": "/Journal/", "format": "YYYY/MM-DD dddd"}
    (root / ".obsidian" / "daily-notes.json").write_text(json.dumps(settings), encoding="utf-8")
    found = collect("daily.note", {"date": "today"}, context_for(root, tmp_path))
    assert found.items[0].path == "Journal/2026/11-25 Wednesday.md" and found.items[0].text == "Today."
    with pytest.raises(CollectorError, match="private or ignored"):
        collect("daily.note", {}, context_for(root, tmp_path, private_folders=("journal",)))


def _hit(path: str, text: str, heading: tuple[str, ...] = ()) -> SearchHit:
    return SearchHit(Chunk(path=path, title=Path(path).stem, heading_path=heading, anchor="", text=text), 1.0)


def test_search_collects_the_hit_notes_once_each_with_their_passages(sample: CollectContext, vault: Path) -> None:
    asked: list[tuple[str, int, SearchFilters | None]] = []

    def search(query: str, k: int, filters: SearchFilters | None) -> list[SearchHit]:
        asked.append((query, k, filters))
        return [
            _hit("Areas/Garden/Garlic.md", "Planted 60 cloves.", ("Garlic", "Planting")),
            _hit("Areas/Garden/Composting.md", "Browns and greens."),
            _hit("Areas/Garden/Garlic.md", "Mulch with straw.", ("Garlic", "Care")),
            _hit("Areas/Garden/Gone.md", "A note deleted since it was indexed."),
        ]

    context = CollectContext(vault=sample.vault, today=TODAY, now=sample.now, search=search)
    found = collect("search", {"query": "garlic", "k": 4, "folder": "areas/garden", "tags": "#garden"}, context)
    assert asked == [("garlic", 4, SearchFilters(folder="Areas/Garden", tags=("garden",)))]
    assert [item.path for item in found.items] == ["Areas/Garden/Garlic.md", "Areas/Garden/Composting.md"]
    garlic = found.items[0]
    assert garlic.text == "[Garlic > Planting]\nPlanted 60 cloves.\n\n[Garlic > Care]\nMulch with straw."
    assert garlic.content_hash == content_hash(read_exact_text(vault, garlic.path) or "")
    assert garlic.frontmatter["variety"] == "Germidour"
    assert found.folder_values["tags"] == {"area/garden", "soil"}  # the values the hit notes use


def test_search_without_an_index_is_a_clear_error(sample: CollectContext) -> None:
    with pytest.raises(CollectorError, match="needs the search index"):
        collect("search", {"query": "garlic"}, sample)


def test_secrets_in_collected_text_are_masked(tmp_path: Path) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    root = write(tmp_path / "v", {"T/Deploy.md": f"---\nstatus: open\n---\nThe token is {token} for CI.\n"})
    found = collect("tasknotes.query", {"folder": "T", "include_content": True}, context_for(root, tmp_path))
    assert found.items[0].text is not None and token not in found.items[0].text
    assert "[redacted secret]" in found.items[0].text


EXAMPLES = Path(__file__).resolve().parents[2] / "crews" / "examples"


@pytest.mark.parametrize("team_note", ["Task-Triage.md", "Daily-Briefing.md"])
def test_the_example_crews_params_are_valid(team_note: str) -> None:
    lines = (EXAMPLES / team_note).read_text(encoding="utf-8").splitlines()
    spec = TeamSpec.model_validate(dict(read_frontmatter(lines).data))
    collectors = [task for task in spec.tasks if isinstance(task, CollectorTask)]
    assert collectors and all(validate_params(task.collector, task.params) is None for task in collectors)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        (
            "tasknotes.query",
            {"folder": "T", "where_mising": ["priority"]},
            "tasknotes.query has no param 'where_mising' (did you mean 'where_missing'?); it takes folder, "
            "include_content, limit, properties, where, where_in, where_missing",
        ),
        ("tasknotes.query", {"limit": 501}, "tasknotes.query params: limit: Input should be less than or equal to 500"),
        ("tasknotes.query", {"where": {"status": {"is": "open"}}}, "tasknotes.query params: where.status"),
        (
            "tasks.open",
            {"due_within_days": "soon"},
            "tasks.open params: due_within_days: Input should be a valid integer",
        ),
        ("daily.note", {"date": "next week"}, "daily.note params: date: 'next week' is not a date"),
        ("search", {}, "search params: query: Field required"),
        ("search", {"query": "x", "k": 0}, "search params: k: Input should be greater than or equal to 1"),
        ("notes.all", {}, "unknown collector 'notes.all' (known: daily.note, search, tasknotes.query, tasks.open)"),
    ],
)
def test_bad_params_are_named_at_load_time(name: str, params: dict[str, object], message: str) -> None:
    problem = validate_params(name, params)
    assert problem is not None and problem.startswith(message)


def test_good_params_pass_validation() -> None:
    assert validate_params("tasknotes.query", TRIAGE) is None
    assert validate_params("tasks.open", {"due_within_days": 0, "include_undated": True, "folder": "Daily"}) is None
    assert validate_params("daily.note", {"date": "2026-11-05"}) is None
    assert validate_params("search", {"query": "garlic", "tags": ["garden"], "k": 3}) is None
    assert validate_params("tasks.open", None) is None


def test_find_tasks_agrees_with_parse_note_on_every_sample_vault_note(vault: Path) -> None:
    for path in sorted(vault.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        assert find_tasks(text) == list(parse_note(path.name, text).tasks), path


def test_only_simple_properties_are_shown_and_properties_narrows_them(tmp_path: Path) -> None:
    note = (
        "---\ntitle: Fix the bike\nstatus: open\npriority: low\nlong: " + "x" * 400 + "\n"
        "timeEntries:\n  - startTime: 2026-11-01T10:00:00Z\n    endTime: 2026-11-01T11:00:00Z\n---\nBody\n"
    )
    root = write(tmp_path / "v", {"T/Fix the bike.md": note})
    context = context_for(root, tmp_path)
    (item,) = collect("tasknotes.query", {"folder": "T"}, context).items
    assert item.title == "Fix the bike" and set(item.frontmatter) == {"status", "priority", "long"}
    assert str(item.frontmatter["long"]).endswith("more characters not shown]")
    (narrow,) = collect("tasknotes.query", {"folder": "T", "properties": ["Priority"]}, context).items
    assert narrow.frontmatter == {"priority": "low"}


def test_notes_that_cannot_be_read_are_skipped_and_reported(tmp_path: Path) -> None:
    root = write(
        tmp_path / "v",
        {"T/ok.md": "---\nstatus: open\n---\nfine", "T/big.md": "---\nstatus: open\n---\n" + "y" * 5_000},
    )
    (root / "T" / "latin1.md").write_bytes(b"---\nstatus: open\n---\ncaf\xe9")
    found = collect("tasknotes.query", {"folder": "T"}, context_for(root, tmp_path, max_note_bytes=1_000))
    assert [item.path for item in found.items] == ["T/ok.md"]
    assert (
        "2 note(s) not readable (T/big.md: larger than MAX_NOTE_BYTES (5,021 bytes); T/latin1.md: not UTF-8 text)"
        in (found.summary)
    )
