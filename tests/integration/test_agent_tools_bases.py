"""The `bases` read tool over sample_vault's Projects.base and hand-written bases: views, rows, honest gaps."""

from __future__ import annotations

import textwrap

import pytest

from agent.tools import ToolRegistry
from app.wiring import Services
from core.errors import InvalidRequest, NotFound
from tests.integration.tool_calls import call, indexed_registry

# The services start from sample_vault's index, built once per session (tests/conftest.py).
pytestmark = pytest.mark.indexed

GARDEN_BASE = """\
filters:
  and:
    - file.hasTag("area/garden")
    - file.ext == "md"
views:
  - type: table
    name: Touched this week
    filters:
      and:
        - file.mtime > now() - "7d"
    order: [file.name, planted]
  - type: cards
    name: Outside the garden folder
    filters:
      not:
        - file.inFolder("Areas/Garden")
"""


@pytest.fixture
def tools(services: Services) -> ToolRegistry:
    (services.settings.vault_path / "Areas" / "Garden" / "Garden.base").write_text(GARDEN_BASE, encoding="utf-8")
    return indexed_registry(services)


def table_rows(text: str) -> list[list[str]]:
    """Return the body rows of the markdown table in a tool result, as lists of cells."""
    lines = [line for line in text.splitlines() if line.startswith("| ")][2:]  # after the header and separator
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


def test_bases_are_listed_and_their_views_described(tools: ToolRegistry) -> None:
    listed = call(tools, "bases", command="list")
    assert listed.text.splitlines() == ["2 base(s):", "- Areas/Garden/Garden.base", "- Projects/Projects.base"]
    views = call(tools, "bases", command="views", base="Projects")
    assert 'Filters shared by every view: {"and": ["file.inFolder(\\"Projects\\")"' in views.text
    assert (
        "- All projects (table): columns: Project, Status, Started, Due, Days open; sorted by note.status "
        in views.text
    )
    assert "- Active (table): columns: Project, Due, file.mtime; filters: " in views.text and "limit 20" in views.text


def test_query_returns_the_views_rows_filtered_and_sorted_like_obsidian(tools: ToolRegistry) -> None:
    found = call(tools, "bases", command="query", base="Projects/Projects.base")
    assert found.text.startswith("Base Projects/Projects.base, view 'All projects' (table): 9 row(s).")
    rows = table_rows(found.text)
    assert [row[0] for row in rows] == [
        "[[Vault Librarian]]",  # status ascending: active, decided, done, draft, in-progress, paused
        "[[Chunking Strategy]]",
        "[[Embedding Model Choice]]",
        "[[Home Server Migration]]",
        "[[Incremental Indexing]]",
        "[[Retrieval Architecture]]",
        "[[Deployment Notes]]",
        "[[Evaluation Plan]]",
        "[[Balcony Irrigation]]",
    ]  # Projects/Ideas.md (name contains "Ideas") and the .canvas (not md) are filtered out
    assert rows[0] == ["[[Vault Librarian]]", "active", "2026-10-20", "2026-12-15", "?"]
    assert found.anchors == tuple(row[0] for row in rows)
    assert "Not evaluated here: column 'formula.days_open' (formulas are not computed)." in found.text


def test_query_applies_a_views_own_filters_and_matches_view_names_loosely(tools: ToolRegistry) -> None:
    active = call(tools, "bases", command="query", base="projects", view="ACTIVE")
    rows = table_rows(active.text)
    assert [row[:2] for row in rows] == [
        ["[[Deployment Notes]]", ""],
        ["[[Evaluation Plan]]", ""],
        ["[[Vault Librarian]]", "2026-12-15"],
    ]
    assert "(?)" not in active.text and "Not evaluated" not in active.text


def test_not_filters_and_unsupported_expressions_are_reported_not_fatal(tools: ToolRegistry) -> None:
    outside = call(tools, "bases", command="query", base="Garden", view="Outside the garden folder")
    assert {row[0] for row in table_rows(outside.text)} == {
        "[[Garden Review 2025]]",
        "[[2026-11-08]]",
        "[[2026-11-10 Allotment Committee]]",
        "[[Garden MOC]]",
        "[[Balcony Irrigation]]",
        "[[Teaming with Microbes]]",
    }
    recent = call(tools, "bases", command="query", base="Garden", view="Touched this week")
    rows = table_rows(recent.text)
    assert len(rows) == 12 and all(row[0].endswith("(?)") for row in rows)
    assert "[[Garlic]] (?) | 2026-11-08" in recent.text
    assert "Not evaluated here: 'file.mtime > now() - \"7d\"'" in recent.text
    assert "Rows marked (?) passed every filter that could be evaluated" in recent.text


def test_unknown_bases_views_and_broken_yaml_are_clear_errors(tools: ToolRegistry, services: Services) -> None:
    with pytest.raises(NotFound, match="no base named 'Recipes'; bases: Areas/Garden/Garden.base, Projects/"):
        call(tools, "bases", command="query", base="Recipes")
    with pytest.raises(NotFound, match="has no view 'Done'; its views: All projects, Active"):
        call(tools, "bases", command="query", base="Projects", view="Done")
    broken = services.settings.vault_path / "Broken.base"
    broken.write_text(textwrap.dedent("views:\n  - name: [unclosed\n"), encoding="utf-8")
    with pytest.raises(InvalidRequest, match="Broken.base is not a valid base: invalid YAML"):
        call(tools, "bases", command="views", base="Broken")
