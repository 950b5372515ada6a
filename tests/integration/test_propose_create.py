"""Creating notes by proposal over a copy of sample_vault: templates, note names, daily notes, base items.

Every call only proposes: the vault stays byte-identical until a proposal is applied with the file writer.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.propose import WRITE_TOOLS, ProposalToolbox
from agent.propose.toolbox import CREATE_TOOLS
from agent.tools.bases import BASES
from agent.tools.reader import VaultReader
from core.edits import ProposedEdit
from core.errors import InvalidRequest, NotFound
from edits.apply import apply_edits
from edits.proposals import SqliteProposalStore
from edits.text.body import add_task
from edits.writers.files import FileVaultWriter
from tests.edit_fakes import open_change_log, write_settings, write_tools_reader
from tests.vault_state import vault_hashes

NOW = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)  # a Friday; the daily notes run to 2026-11-16
SAMPLE = Path(__file__).resolve().parents[2] / "sample_vault"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE, root)
    (root / "Private").mkdir()
    (root / "Private" / "diary.md").write_text("secret\n", encoding="utf-8")
    return root


def make_reader(vault: Path) -> VaultReader:
    return write_tools_reader(vault, NOW)


def make_toolbox(vault: Path, store: SqliteProposalStore, **overrides: object) -> ProposalToolbox:
    settings = write_settings(**{"private_folders": ("Private",), **overrides})
    return ProposalToolbox(
        make_reader(vault),
        store,
        settings,
        conversation_id="c1",
        clock=lambda: NOW,
        tools=(*WRITE_TOOLS, *CREATE_TOOLS),
    )


def propose(vault: Path, store: SqliteProposalStore, tool: str, **arguments: object) -> ProposedEdit:
    """Run one call on a fresh toolbox; check it proposed exactly one change and wrote nothing."""
    before = vault_hashes(vault)
    toolbox = make_toolbox(vault, store)
    toolbox.run_blocking(tool, json.dumps(arguments))
    assert vault_hashes(vault) == before
    [proposal] = toolbox.proposals
    return proposal


def refuse(vault: Path, store: SqliteProposalStore, tool: str, error: type[Exception], message: str, **args: object):
    before = vault_hashes(vault)
    with pytest.raises(error, match=message):
        make_toolbox(vault, store).run_blocking(tool, json.dumps(args))
    assert vault_hashes(vault) == before
    assert store.pending("c1", NOW) == []


def apply(vault: Path, tmp_path: Path, proposal: ProposedEdit) -> None:
    log = open_change_log(tmp_path / "data")
    report = asyncio.run(
        apply_edits([proposal], writer=FileVaultWriter(vault), log=log, settings=write_settings(), now=NOW)
    )
    log.close()
    assert [outcome.status for outcome in report.outcomes] == ["applied"]


def write_config(vault: Path, name: str, config: dict[str, object]) -> None:
    (vault / ".obsidian" / f"{name}.json").write_text(json.dumps(config), encoding="utf-8")


def template(name: str) -> str:
    return (SAMPLE / "Templates" / f"{name}.md").read_text(encoding="utf-8")


# edit_note create from a template


def test_create_from_a_template_fills_title_date_and_time_then_adds_content(vault: Path, store) -> None:
    proposal = propose(
        vault, store, "edit_note", command="create", path="Meetings/Kickoff", template="Meeting Template",
        content="Agenda drafted.",
    )  # fmt: skip
    expected = template("Meeting Template").replace("{{date}}", "2026-11-20").replace("{{time}}", "09:30")
    assert (proposal.path, proposal.kind, proposal.base_hash) == ("Meetings/Kickoff.md", "create", None)
    # The template ends in a list item: the text added after it is a paragraph of its own, not part of that item.
    assert proposal.new_text == expected.replace("{{title}}", "Kickoff") + "\nAgenda drafted.\n"


def test_create_from_a_template_alone_keeps_its_text(vault: Path, store) -> None:
    proposal = propose(
        vault, store, "edit_note", command="create", path="Reviews/W47", template="weekly review template"
    )
    assert proposal.new_text == template("Weekly Review Template").replace("{{date:GGGG-[W]WW}}", "2026-W47")


def test_template_formats_and_templater_code_follow_the_vaults_settings(vault: Path, store) -> None:
    write_config(vault, "templates", {"folder": "Templates", "dateFormat": "DD.MM.YYYY", "timeFormat": "h:mm A"})
    (vault / "Templates" / "Custom.md").write_text(
        "{{title}}: {{date}} {{time}} {{date:dddd}} {{time:HH:mm:ss}} <% tp.file.title %>\n", encoding="utf-8"
    )
    proposal = propose(vault, store, "edit_note", command="create", path="Inbox/Log", template="Custom")
    assert proposal.new_text == "Log: 20.11.2026 9:30 AM Friday 09:30:00 <% tp.file.title %>\n"


def test_unknown_template_and_template_outside_create_are_refused(vault: Path, store) -> None:
    refuse(vault, store, "edit_note", NotFound, "no template named 'Recipe'.*Meeting Template",
           command="create", path="Inbox/Soup", template="Recipe")  # fmt: skip
    refuse(vault, store, "edit_note", InvalidRequest, "only for command create",
           command="append", path="Inbox/Quick capture.md", template="Meeting Template", content="x")  # fmt: skip


# edit_note: which note a name means, where a new note goes


@pytest.mark.parametrize(
    ("ref", "path"),
    [
        ("Sourdough", "Areas/Cooking/Sourdough.md"),
        ("[[Sourdough]]", "Areas/Cooking/Sourdough.md"),
        ("[[Garden MOC#In the ground right now|garden]]", "MOCs/Garden MOC.md"),
        ("kestrel", "Projects/Home Server Migration.md"),
        ("Areas/Cooking/Sourdough", "Areas/Cooking/Sourdough.md"),
        ("Inbox/Quick capture.md", "Inbox/Quick capture.md"),
    ],
)
def test_edits_accept_a_name_alias_or_link(vault: Path, store, ref: str, path: str) -> None:
    proposal = propose(vault, store, "edit_note", command="append", path=ref, content="added")
    assert proposal.path == path
    text = (vault / path).read_text(encoding="utf-8")
    last = text.rstrip("\n").rsplit("\n", 1)[-1].lstrip()
    ends_in_list_item = last.startswith(("- ", "* ", "+ ")) or last[:1].isdigit()  # "added" must not join that item
    assert proposal.new_text == text + ("\n" if ends_in_list_item else "") + "added\n"


def test_an_existing_exact_path_wins_over_a_name(vault: Path, store) -> None:
    (vault / "Sourdough.md").write_text("root note\n", encoding="utf-8")
    proposal = propose(vault, store, "edit_note", command="append", path="Sourdough", content="added")
    assert (proposal.path, proposal.new_text) == ("Sourdough.md", "root note\nadded\n")


def test_a_name_resolves_inside_the_writable_folders(vault: Path, store) -> None:
    toolbox = make_toolbox(vault, store, writable_folders=("Areas",))
    toolbox.run_blocking("edit_note", json.dumps({"command": "add_tag", "path": "Sourdough", "value": "bread"}))
    assert [p.path for p in toolbox.proposals] == ["Areas/Cooking/Sourdough.md"]


@pytest.mark.parametrize(
    ("ref", "error", "message"),
    [
        ("Ideas", InvalidRequest, "matches several notes: .*Projects/Ideas.md"),
        ("Sourdoug", NotFound, "does not exist .*did you mean: Areas/Cooking/Sourdough.md"),
        ("diary", NotFound, "'diary' does not exist"),
        ("Private/diary.md", InvalidRequest, "private folder"),
    ],
)
def test_unknown_ambiguous_and_private_names_are_refused(vault, store, ref: str, error, message: str) -> None:
    refuse(vault, store, "edit_note", error, message, command="append", path=ref, content="x")


@pytest.mark.parametrize(
    ("app", "ref", "path"),
    [
        ({"newFileLocation": "folder", "newFileFolderPath": "Inbox"}, "Idea", "Inbox/Idea.md"),
        ({"newFileLocation": "folder", "newFileFolderPath": "Inbox"}, "[[Idea]]", "Inbox/Idea.md"),
        ({"newFileLocation": "folder", "newFileFolderPath": "Areas/Garden/"}, "Idea.md", "Areas/Garden/Idea.md"),
        ({"newFileLocation": "folder", "newFileFolderPath": "Nowhere"}, "Idea", "Idea.md"),
        ({"newFileLocation": "folder", "newFileFolderPath": "/"}, "Idea", "Idea.md"),
        ({"newFileLocation": "root", "newFileFolderPath": "Inbox"}, "Idea", "Idea.md"),
        ({"newFileLocation": "current"}, "Idea", "Idea.md"),
        ({}, "Idea", "Idea.md"),
        ({"newFileLocation": "folder", "newFileFolderPath": "Inbox"}, "Projects/Idea", "Projects/Idea.md"),
    ],
)
def test_a_new_note_without_a_folder_goes_to_the_default_location(vault, store, app, ref: str, path: str) -> None:
    write_config(vault, "app", app)
    proposal = propose(vault, store, "edit_note", command="create", path=ref, content="# Idea")
    assert (proposal.path, proposal.new_text) == (path, "# Idea\n")


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("What is RAG?", r"'What is RAG\?' contains '\?': Obsidian does not allow .*e\.g\. 'What is RAG'"),
        ("Ideas #garden", "'Ideas #garden' contains '#'.*links break on # .*write the #tag in its content"),
        ("Meeting: Bob", "'Meeting: Bob' contains ':'.*e.g. 'Meeting Bob'"),
        ("Inbox/idea|x", r"'idea\|x' contains '\|'"),
        ("[[Idea#Plans]]", "'Idea#Plans' contains '#'"),
        ("Projects/Q3: plans/Kickoff", "'Q3: plans' contains ':'"),
        ("Inbox/ .md", "is empty"),
    ],
)
def test_create_refuses_names_obsidian_refuses_or_links_break_on(vault, store, ref: str, message: str) -> None:
    refuse(vault, store, "edit_note", InvalidRequest, message, command="create", path=ref, content="x")


def test_a_new_note_may_go_in_an_existing_folder_whatever_its_name(vault: Path, store) -> None:
    (vault / "Ideas #1").mkdir()
    (vault / "Ideas #1" / "First.md").write_text("first\n", encoding="utf-8")
    proposal = propose(vault, store, "edit_note", command="create", path="Ideas #1/Second", content="x")
    assert (proposal.path, proposal.operation) == ("Ideas #1/Second.md", "create")


def test_an_empty_created_note_says_so(vault: Path, store) -> None:
    (vault / "Templates" / "Blank.md").write_text("", encoding="utf-8")
    proposal = propose(vault, store, "edit_note", command="create", path="Inbox/Empty", template="Blank")
    assert (proposal.path, proposal.new_text, proposal.operation) == ("Inbox/Empty.md", "", "create (empty note)")
    (vault / "Inbox" / "Inbox.base").write_text("filters: 'file.inFolder(\"Inbox\")'\n", encoding="utf-8")
    item = propose(vault, store, "add_base_item", base="Inbox", title="Blank")
    assert (item.path, item.new_text) == ("Inbox/Blank.md", "")
    assert item.operation == "add item to base Inbox/Inbox.base (empty note)"


# edit_daily_note


def test_append_under_a_heading_of_an_existing_daily_note(vault: Path, store) -> None:
    proposal = propose(
        vault, store, "edit_daily_note", command="append", date="2026-11-16", heading="Log", content="- 21:00 Stretch"
    )
    text = (vault / "Daily" / "2026-11-16.md").read_text(encoding="utf-8")
    anchor = "Swapped *Infinite Jest* out of the plan.\n"
    assert (proposal.path, proposal.kind) == ("Daily/2026-11-16.md", "replace")
    assert proposal.new_text == text.replace(anchor, anchor + "- 21:00 Stretch\n")


def test_a_missing_daily_note_is_created_from_its_template_for_that_day(vault: Path, store, tmp_path: Path) -> None:
    proposal = propose(
        vault, store, "edit_daily_note", command="append", date="tomorrow", heading="Log", content="- 10:00 Long run"
    )
    rendered = (
        template("Daily Template")
        .replace("{{date:dddd, D MMMM YYYY}}", "Saturday, 21 November 2026")
        .replace("{{date}}", "2026-11-21")
        .replace("{{time}}", "09:30")
    )
    assert (proposal.path, proposal.kind, proposal.base_hash) == ("Daily/2026-11-21.md", "create", None)
    assert proposal.new_text == rendered.replace("- 09:30 \n", "- 09:30 \n- 10:00 Long run\n")
    assert proposal.operation == "create daily note 2026-11-21 and append"
    apply(vault, tmp_path, proposal)
    assert (vault / "Daily" / "2026-11-21.md").read_text(encoding="utf-8") == proposal.new_text


def test_add_task_to_the_daily_note(vault: Path, store) -> None:
    proposal = propose(vault, store, "edit_daily_note", command="add_task", date="2026-11-16", content="Book physio")
    text = (vault / "Daily" / "2026-11-16.md").read_text(encoding="utf-8")
    anchor = "- [ ] Jonas reviews the chunker PR 📅 2026-11-20\n"  # the note's last task
    assert proposal.new_text == text.replace(anchor, anchor + "- [ ] Book physio\n")  # next to the other tasks
    under_plan = propose(
        vault, store, "edit_daily_note", command="add_task", date="2026-11-16", heading="Plan", content="Stretch"
    )
    assert under_plan.new_text == text.replace(anchor, anchor + "- [ ] Stretch\n")


def test_a_task_fills_the_empty_task_a_template_left() -> None:
    note = "# 2026-12-01\n\n## Plan\n- [ ] \n\n## Links\n- [[Home]]\n"
    assert add_task(note, "Call the plumber") == note.replace("- [ ] \n", "- [ ] Call the plumber\n")
    assert add_task(note, "Stretch", heading="Plan") == note.replace("- [ ] \n", "- [ ] Stretch\n")


def test_a_task_in_a_note_without_tasks_goes_at_its_end_and_code_is_no_task() -> None:
    note = "# Note\n\n```\n- [ ] not a task\n```\n\ntext\n"
    assert add_task(note, "Real task") == note + "- [ ] Real task\n"


def test_daily_settings_name_the_folder_format_and_template(vault: Path, store) -> None:
    write_config(vault, "daily-notes", {"folder": "Journal", "format": "DD-MM-YYYY", "template": "Day"})
    (vault / "Templates" / "Day.md").write_text(
        "# {{title}} ({{date:dddd}})\n\n[[{{yesterday}}]] | [[{{tomorrow}}]]\n", encoding="utf-8"
    )
    proposal = propose(vault, store, "edit_daily_note", command="prepend", date="2026-12-31", content="Party")
    assert proposal.path == "Journal/31-12-2026.md"
    assert proposal.new_text == "Party\n# 31-12-2026 (Thursday)\n\n[[30-12-2026]] | [[01-01-2027]]\n"


def test_a_missing_daily_note_without_a_template_starts_empty(vault: Path, store) -> None:
    write_config(vault, "daily-notes", {"folder": "Daily"})
    proposal = propose(vault, store, "edit_daily_note", command="add_task", content="Water the garlic")
    assert (proposal.path, proposal.new_text) == ("Daily/2026-11-20.md", "- [ ] Water the garlic\n")


def test_daily_note_refusals_store_nothing(vault: Path, store) -> None:
    refuse(vault, store, "edit_daily_note", InvalidRequest, "is not a date", command="append", date="soon",
           content="x")  # fmt: skip
    refuse(vault, store, "edit_daily_note", NotFound, "no heading 'Dreams'", command="append", date="2026-11-16",
           heading="Dreams", content="x")  # fmt: skip
    write_config(vault, "daily-notes", {"folder": "Daily", "template": "Templates/Gone"})
    refuse(vault, store, "edit_daily_note", NotFound, "daily notes template 'Templates/Gone' cannot be used",
           command="append", content="x")  # fmt: skip


# add_base_item

READING_BASE = """\
filters:
  and:
    - file.inFolder("Resources/Books")
    - file.hasTag("book")
views:
  - type: table
    name: To read
    filters:
      and:
        - note.status == "to-read"
        - 'priority == 2 || priority == 3'
    order: [file.name, author, status]
  - type: table
    name: Fiction
    filters:
      not:
        - genre == "non-fiction"
"""


def query_base(vault: Path, base: str, view: str) -> str:
    reply = BASES.call(make_reader(vault), {"command": "query", "base": base, "view": view})
    return "\n".join(part.text for part in reply.parts)


def test_a_base_item_lands_where_the_base_lists_it(vault: Path, store, tmp_path: Path) -> None:
    proposal = propose(
        vault, store, "add_base_item", base="Projects", view="Active", title="Greenhouse",
        properties={"due": "2027-03-01"}, content="# Greenhouse",
    )  # fmt: skip
    assert (proposal.path, proposal.kind, proposal.operation) == (
        "Projects/Greenhouse.md",
        "create",
        "add item to base Projects/Projects.base",
    )
    assert proposal.new_text == "---\nstatus: active\ndue: '2027-03-01'\n---\n# Greenhouse\n"
    assert "[[Greenhouse]]" not in query_base(vault, "Projects", "Active")
    apply(vault, tmp_path, proposal)
    assert "| [[Greenhouse]] | 2027-03-01 |" in query_base(vault, "Projects", "Active")


def test_a_base_item_gets_the_tags_and_properties_its_filters_ask_for(vault: Path, store, tmp_path: Path) -> None:
    (vault / "Resources" / "Books" / "Reading.base").write_text(READING_BASE, encoding="utf-8")
    proposal = propose(
        vault, store, "add_base_item", base="Reading", view="To read", title="Dune",
        properties={"author": "Frank Herbert", "tags": ["scifi"]},
    )  # fmt: skip
    assert proposal.path == "Resources/Books/Dune.md"
    assert proposal.new_text == (
        "---\ntags:\n  - scifi\n  - book\nstatus: to-read\npriority: 2\nauthor: Frank Herbert\n---\n"
    )
    apply(vault, tmp_path, proposal)
    assert "| [[Dune]] | Frank Herbert | to-read |" in query_base(vault, "Reading", "To read")


def test_an_or_group_the_given_properties_meet_asks_for_nothing_more(vault: Path, store) -> None:
    proposal = propose(
        vault,
        store,
        "add_base_item",
        base="Projects",
        view="Active",
        title="Shed",
        properties={"status": "in-progress"},
    )
    assert proposal.new_text == "---\nstatus: in-progress\n---\n"


def test_a_base_without_a_folder_filter_uses_the_default_location(vault: Path, store) -> None:
    (vault / "Resources" / "Books" / "Reading.base").write_text("filters: 'file.hasTag(\"book\")'\n", encoding="utf-8")
    proposal = propose(vault, store, "add_base_item", base="Reading", title="Dune")
    assert (proposal.path, proposal.new_text) == ("Inbox/Dune.md", "---\ntags:\n  - book\n---\n")


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"base": "Projects", "title": "Garden Ideas"}, InvalidRequest,
         r"fails the filters of Projects/Projects.base: !file.name.contains\(\"Ideas\"\)"),
        ({"base": "Projects", "view": "Active", "title": "Shed", "properties": {"status": "paused"}}, InvalidRequest,
         "fails the filters of view 'Active': .*note.status == .*in-progress"),
        ({"base": "Reading", "view": "Fiction", "title": "SPQR", "properties": {"genre": "non-fiction"}},
         InvalidRequest, "fails the filters of view 'Fiction': .*not"),
        ({"base": "Impossible", "title": "Anything"}, InvalidRequest, r"file.ext == \"canvas\""),
        ({"base": "Projects", "title": "Balcony Irrigation", "properties": {"status": "paused"}}, InvalidRequest,
         "already exists"),
        ({"base": "Recipes", "title": "Soup"}, NotFound, "no base named 'Recipes'"),
        ({"base": "Projects", "view": "Someday", "title": "Soup"}, NotFound, "has no view 'Someday'"),
        ({"base": "Projects", "title": "Sub/Soup"}, InvalidRequest, "'Sub/Soup' contains '/': Obsidian does not"),
        ({"base": "Projects", "title": "Soup #veg"}, InvalidRequest, "contains '#'.*write the #tag in its content"),
    ],
)  # fmt: skip
def test_base_items_the_base_would_not_list_are_refused(vault, store, arguments, error, message: str) -> None:
    (vault / "Resources" / "Books" / "Reading.base").write_text(READING_BASE, encoding="utf-8")
    (vault / "Inbox" / "Impossible.base").write_text("filters: 'file.ext == \"canvas\"'\n", encoding="utf-8")
    refuse(vault, store, "add_base_item", error, message, **arguments)


BOOKS_BASE = """\
filters:
  and:
    - categories.contains(link("Books"))
    - '!file.name.contains("Template")'
views:
  - type: table
    name: Books
  - type: table
    name: Rated
    filters: 'formula.score > 3'
"""
AUTHOR_BASE = """\
filters: 'file.inFolder("Resources/Books")'
views:
  - type: table
    name: Author
    filters:
      and:
        - list(author).contains(this)
"""


def test_a_base_item_gets_the_category_link_its_filter_asks_for(vault: Path, store, tmp_path: Path) -> None:
    (vault / "Inbox" / "Books.base").write_text(BOOKS_BASE, encoding="utf-8")
    proposal = propose(vault, store, "add_base_item", base="Books", title="Dune 2")
    assert (proposal.path, proposal.new_text) == ("Inbox/Dune 2.md", "---\ncategories:\n  - '[[Books]]'\n---\n")
    apply(vault, tmp_path, proposal)  # no note is called Books: the links match unresolved, by name
    assert "| [[Dune 2]] |" in query_base(vault, "Books", "Books")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"base": "Books", "view": "Rated", "title": "Dune", "properties": {"categories": ["[[Books]]"]}},
         r"cannot check .*view 'Rated': 'formula.score > 3' \(formulas are not computed\)\. Nothing was proposed\. "
         r"Use edit_note create .*'Inbox/Dune.md'.*so far the note would be:\n---\ncategories:\n"
         r"  - '\[\[Books\]\]'\n---"),
        ({"base": "Books", "title": "Template Dune"}, "fails the filters of .*Books.base: !file.name.contains"),
        ({"base": "Authors", "view": "Author", "title": "Dune"},
         r"the filters of view 'Author': list\(author\).contains\(this\) \(`this` is the base file itself"),
    ],
)  # fmt: skip
def test_base_filters_that_cannot_be_checked_are_not_taken_as_met(vault, store, arguments, message: str) -> None:
    (vault / "Inbox" / "Books.base").write_text(BOOKS_BASE, encoding="utf-8")
    (vault / "Resources" / "Books" / "Authors.base").write_text(AUTHOR_BASE, encoding="utf-8")
    refuse(vault, store, "add_base_item", InvalidRequest, message, **arguments)


def test_create_tools_are_offered_with_their_parameters(vault: Path, store) -> None:
    specs = {spec.name: spec for spec in make_toolbox(vault, store).specs()}
    assert {"edit_note", "edit_daily_note", "add_base_item"} <= set(specs)
    assert "Templater <% %> code is kept as written" in json.dumps(specs["edit_note"].parameters)
    assert {"base", "view", "title", "properties", "content"} <= set(specs["add_base_item"].parameters["properties"])
