"""No import cycle among the project's modules: any module can be the first one a process imports.

`agent.due_tasks` imported `agent.tools.daily` (so the `agent.tools` package, whose registry imports the `tasks`
tool), and the `tasks` tool imported `agent.due_tasks`: the test suite, importing `agent.tools` first, passed,
while `python -m bench.answer_quality`, reaching `agent.due_tasks` first, failed with an ImportError. Checked over
the source with `ast`: module-level imports only (not those under `if TYPE_CHECKING:` or inside functions), an
import of `a.b.c` counting as one of the packages `a` and `a.b` too, whose `__init__` runs first.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.unit.test_architecture import PACKAGES, ROOT


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")}


def module_level_imports(path: Path) -> set[str]:
    """Return the names a module imports when it is loaded, and each imported name as a possible submodule."""
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def imported_modules(name: str) -> set[str]:
    """Return the project modules loading `name` loads first: what it imports and their packages, not its own."""
    loaded: set[str] = set()
    for target in module_level_imports(MODULES[name]):
        parts = target.split(".")
        prefixes = (".".join(parts[:end]) for end in range(1, len(parts) + 1))
        loaded.update(p for p in prefixes if p in MODULES and p != name and not name.startswith(f"{p}."))
    return loaded


def test_there_are_modules_to_check() -> None:
    assert len(MODULES) > 300 and "agent.tools.tasks" in MODULES


def test_no_module_imports_itself_through_others() -> None:
    graph = TopologicalSorter({name: imported_modules(name) for name in MODULES})
    try:
        graph.prepare()
    except CycleError as cycle:
        raise AssertionError(f"import cycle: {' -> '.join(cycle.args[1])}") from None
