"""Bases filter expressions: the supported subset evaluates like Obsidian; the rest is reported, never fatal."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from agent.tools.bases.filters import Row, column_value, matches
from agent.tools.snapshot import build_snapshot
from rag.notes.markdown import parse_note
from rag.notes.vault import FileStat

ALPHA = """\
---
status: active
count: 3
due: 2026-12-15
tags: [area/garden]
---
# Alpha

See [[Beta]].
"""


@pytest.fixture
def row() -> Row:
    notes = {
        "Projects/Alpha.md": parse_note("Projects/Alpha.md", ALPHA),
        "Beta.md": parse_note("Beta.md", "# Beta\n"),
    }
    snapshot = build_snapshot(Path("/vault"), notes, {path: FileStat(0, 120) for path in notes}, ("Beta.base",))
    return Row(snapshot, "Projects/Alpha.md", date(2026, 11, 5))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('file.inFolder("Projects")', True),
        ('file.inFolder("Proj")', False),
        ('file.hasTag("area")', True),  # nested tags match their parent
        ('file.hasTag("recipe", "area/garden")', True),
        ('file.hasLink("Beta")', True),
        ('file.hasLink("Gamma")', False),
        ('file.hasProperty("Status")', True),
        ('file.ext == "md" && file.name == "Alpha.md" && file.basename == "Alpha"', True),
        ('file.folder == "Projects"', True),
        ('note.status == "active" && !(count < 2)', True),
        ('status != "active" || file.size > 100', True),
        ('count == "3"', True),  # a quoted number still compares as the number
        ('note.due < "2027-01-01" && note.due > today()', True),
        ('date(note.due) == "2026-12-15"', True),
        ('!file.name.contains("Ideas")', True),
        ('note.status.startsWith("act") && note.status.endsWith("ive")', True),
        ("note.missing.isEmpty() && !note.status.isEmpty()", True),
        ('file.tags.contains("area/garden")', True),
        ("note.missing > 3", False),
    ],
)
def test_supported_expressions_evaluate_per_file(row: Row, expression: str, expected: bool) -> None:
    problems: set[str] = set()
    assert matches(expression, row, problems) is expected
    assert not problems


@pytest.mark.parametrize(
    "expression",
    [
        "formula.days_open > 10",
        'file.mtime > now() - "7d"',
        "file.ctime > 0",
        'status.matches("a")',
        "status ==",
        "'open",
    ],
)
def test_unsupported_expressions_are_unknown_and_reported(row: Row, expression: str) -> None:
    problems: set[str] = set()
    assert matches(expression, row, problems) is None
    assert len(problems) == 1 and expression in problems.pop()


def test_filter_trees_use_three_valued_logic(row: Row) -> None:
    problems: set[str] = set()
    assert matches({"or": ["formula.x", 'status == "active"']}, row, problems) is True
    assert matches({"and": ["formula.x", 'status == "done"']}, row, problems) is False
    assert matches({"and": ["formula.x", 'status == "active"']}, row, problems) is None
    assert matches({"not": ['file.inFolder("Projects")']}, row, problems) is False
    assert matches({"not": ["formula.x"]}, row, problems) is None
    assert matches(['file.ext == "md"', "count > 2"], row, problems) is True
    assert matches({"xor": []}, row, problems) is None
    assert any("not a filter" in problem for problem in problems)


def test_columns_read_file_fields_and_properties(row: Row) -> None:
    assert column_value("file.name", row) == "Alpha.md"
    assert column_value("status", row) == "active"
    assert column_value("note.due", row) == "2026-12-15"
    assert column_value("note.absent", row) is None
    other = Row(row.snapshot, "Beta.base", row.today)
    assert column_value("file.ext", other) == "base" and column_value("status", other) is None
