"""The modules of ``tapisvert.server`` import one another without a cycle, so that each
can be read, changed and tested from the modules below it.

Every import counts: at module level, inside a function, and under ``if TYPE_CHECKING:``
too. Those last are never run, so they cannot leave a module half-initialised, but they
still tie a module to one above it, which is what this test is for: a part names what it
needs of another part above it with a small Protocol of its own.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import tapisvert.server

PACKAGE = "tapisvert.server"
SERVER = Path(tapisvert.server.__file__).parent


def _module_name(path: Path) -> str:
    relative = path.relative_to(SERVER).with_suffix("")
    parts = [part for part in relative.parts if part != "__init__"]
    return ".".join([PACKAGE, *parts])


def _imported(tree: ast.AST, known: set[str]) -> set[str]:
    """The server modules a module's code imports (``from tapisvert.server import x`` too)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            if node.module in known:
                found.add(node.module)
            found.update(
                f"{node.module}.{alias.name}"
                for alias in node.names
                if f"{node.module}.{alias.name}" in known
            )
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module under ``tapisvert/server`` with the server modules it imports."""
    paths = {_module_name(path): path for path in SERVER.rglob("*.py")}
    known = set(paths)
    return {
        name: _imported(ast.parse(path.read_text(encoding="utf-8")), known) - {name}
        for name, path in paths.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of imports, as the modules along it (the first again at the end), or ``None``."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(module: str) -> list[str] | None:
        if module in on_path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        on_path.add(module)
        for imported in sorted(graph.get(module, ())):
            cycle = visit(imported)
            if cycle is not None:
                return cycle
        path.pop()
        on_path.discard(module)
        done.add(module)
        return None

    for module in sorted(graph):
        cycle = visit(module)
        if cycle is not None:
            return cycle
    return None


def test_the_finder_finds_a_cycle_and_sees_none_where_there_is_none() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph()
    assert f"{PACKAGE}.table_service" in graph[f"{PACKAGE}.lobby"]
    known = {f"{PACKAGE}.lobby", f"{PACKAGE}.rooms", f"{PACKAGE}.users"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "from tapisvert.server import rooms\n"
        "if TYPE_CHECKING:\n    import tapisvert.server.lobby\n"
        "def f():\n    from tapisvert.server.users import User\n"
    )
    assert _imported(ast.parse(source), known) == known


def test_the_server_modules_import_one_another_without_a_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, " → ".join(cycle or [])


def test_a_node_without_a_bus_imports_neither_redis_nor_alembic() -> None:
    """Each is a good part of the second a server takes to import; a node alone needs
    neither (Alembic only to migrate: see ``storage.schema.migrate``)."""
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, tapisvert.__main__, tapisvert.cli.main, tapisvert.server.app,"
            " tapisvert.server.draining; print(sorted({'redis', 'alembic'} & set(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "[]"
