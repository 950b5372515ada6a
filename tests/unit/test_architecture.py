"""Layering rules from STYLE.md, checked over the source with `ast`: imports point inward, modules stay small."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "rag", "edits", "llm_client", "agent", "crews", "sync", "app")
SUPPORT_DIRS = ("tests", "bench")  # not layered, but size and naming rules apply
FRONTS = {"agent", "crews", "sync", "app"}
# What each layer must never import: app -> agent | crews | sync -> edits, llm_client -> rag -> core. The fronts
# below app never import each other: the edit layer (edits/) and the model client (llm_client/) are what they share.
FORBIDDEN = {
    "core": {"rag", "edits", "llm_client"} | FRONTS,
    "rag": {"edits", "llm_client"} | FRONTS,
    "edits": {"llm_client"} | FRONTS,
    "llm_client": {"rag", "edits"} | FRONTS,
    "agent": FRONTS - {"agent"},
    "crews": FRONTS - {"crews"},
    "sync": FRONTS - {"sync"},
    "app": set(),
}
CORE_THIRD_PARTY = {"pydantic", "pydantic_settings"}
BANNED_MODULE_NAMES = {"utils", "helpers", "common", "misc", "manager"}
MAX_MODULE_LINES = 500


def source_files() -> list[Path]:
    return [path for package in PACKAGES if (ROOT / package).is_dir() for path in (ROOT / package).rglob("*.py")]


def support_files() -> list[Path]:
    """Test and benchmark modules: outside the layers, but held to the same size and naming rules."""
    return [path for folder in SUPPORT_DIRS if (ROOT / folder).is_dir() for path in (ROOT / folder).rglob("*.py")]


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_there_are_sources_to_check() -> None:
    assert len(source_files()) > 10


def test_there_are_tests_and_benchmarks_to_check() -> None:
    checked = {path.relative_to(ROOT).parts[0] for path in support_files()}
    assert checked == set(SUPPORT_DIRS)


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_inward(path: Path) -> None:
    layer = path.relative_to(ROOT).parts[0]
    bad = imported_roots(path) & FORBIDDEN[layer]
    assert not bad, f"{path.relative_to(ROOT)} ({layer}) must not import {sorted(bad)}"


@pytest.mark.parametrize("path", [p for p in source_files() if p.relative_to(ROOT).parts[0] == "core"], ids=str)
def test_core_imports_only_stdlib_and_pydantic(path: Path) -> None:
    allowed = set(sys.stdlib_module_names) | CORE_THIRD_PARTY | {"core", "__future__"}
    extra = imported_roots(path) - allowed
    assert not extra, f"{path.relative_to(ROOT)} imports {sorted(extra)}"


@pytest.mark.parametrize("path", source_files() + support_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_small_and_well_named(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines (limit {MAX_MODULE_LINES})"
    assert path.stem not in BANNED_MODULE_NAMES


def test_the_chat_agent_is_well_under_a_third_of_the_code() -> None:
    # The agent is one front; what every front shares (edits, the model client) lives below it.
    lines = {package: sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / package).rglob("*.py"))
             for package in PACKAGES if (ROOT / package).is_dir()}  # fmt: skip
    share = lines["agent"] / sum(lines.values())
    assert share < 0.31, f"agent/ holds {share:.0%} of the code"


def test_no_module_level_settings_instance() -> None:
    offenders = []
    entry_points = {ROOT / "app" / "cli" / "main.py", ROOT / "app" / "http" / "main.py", ROOT / "sync" / "__main__.py"}
    for path in source_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Call):
                func = node.value.func
                if isinstance(func, ast.Name) and func.id == "Settings" and path not in entry_points:
                    offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


# The fronts in app/ are laid out by front (http, cli, mcp, web, eval) over the shared services and process setup;
# only the composition root (wiring) stays at the top.
APP_TOP_LEVEL_MODULES = {"__init__", "wiring"}
# The chat agent's own machinery. Every front shows proposals and undo plans with `edits.messages`, and reaches the
# agent only through `app.services.answering` (and `app.services.change_requests`, its light edit-request detector);
# the tool registry (agent.tools, agent.propose) is shared by design.
CHAT_AGENT_INTERNALS = ("agent.gate", "agent.graph", "agent.answerer", "agent.turn", "agent.prompts")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_app_is_laid_out_by_front() -> None:
    flat = {path.stem for path in (ROOT / "app").glob("*.py")}
    assert flat <= APP_TOP_LEVEL_MODULES, f"modules at the top of app/: {sorted(flat - APP_TOP_LEVEL_MODULES)}"


@pytest.mark.parametrize("path", [p for p in source_files() if p.relative_to(ROOT).parts[0] == "app"], ids=str)
def test_fronts_reach_the_chat_agent_only_through_answering(path: Path) -> None:
    if path in (ROOT / "app" / "services" / "answering.py", ROOT / "app" / "services" / "change_requests.py"):
        return
    bad = [m for m in imported_modules(path) if m.startswith(CHAT_AGENT_INTERNALS)]
    assert not bad, f"{path.relative_to(ROOT)} imports the chat agent's {sorted(bad)}"


@pytest.mark.parametrize("path", sorted((ROOT / "app" / "cli").glob("*.py")), ids=lambda p: p.name)
def test_cli_commands_do_not_import_the_cli_that_imports_them(path: Path) -> None:
    if path.name in ("main.py", "__main__.py"):
        return
    assert "app.cli.main" not in imported_modules(path), f"{path.name} imports app.cli.main (an import circle)"
