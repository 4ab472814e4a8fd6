"""The package's shape: one namespace, the packaged folders, no import cycles."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from tests.conftest import ROOT

PACKAGE_DIRS = {"claimwatch": ROOT / "processors", "claimwatch.collector": ROOT / "collector",
                "claimwatch.queries": ROOT / "queries", "claimwatch.dashboards": ROOT / "dashboards"}


def _modules() -> dict[str, Path]:
    """Every module of the package, by dotted name, from the package-dir mapping."""
    out = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([package, *parts])
            if package == "claimwatch" and parts and parts[0] == "collector":
                continue
            out[name] = path
    return out


def _is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules `name` imports when it is first loaded (module level, outside TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    base = name if _is_package(path) else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else ():
            if isinstance(sub, ast.ImportFrom):
                if sub.level:
                    anchor = base.rsplit(".", sub.level - 1)[0] if sub.level > 1 else base
                    target = f"{anchor}.{sub.module}" if sub.module else anchor
                else:
                    target = sub.module or ""
                for alias in sub.names:
                    candidate = f"{target}.{alias.name}"
                    found.add(candidate if candidate in known else target)
            elif isinstance(sub, ast.Import):
                found.update(a.name for a in sub.names)
    return {m for m in found if m in known and m != name}


def test_no_module_imports_itself_back():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    cycles = []
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_every_package_folder_is_listed_for_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {name for name, path in _modules().items() if _is_package(path)}
    assert on_disk == listed


def test_nothing_imports_the_bare_folder_names():
    for path in _modules().values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                assert node.module.split(".")[0] not in ("processors", "collector"), path
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] not in ("processors", "collector") for a in node.names), path


def test_tests_and_benchmarks_run_the_package_by_its_namespace():
    for folder in ("tests", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for bare in ('"-m", "collector', '"-m", "processors', "from processors", "from collector", "import processors"):
                assert bare not in text or path.name == "test_structure.py", (path, bare)


def test_the_lazy_package_exports_every_name_it_lists():
    import claimwatch

    assert sorted(claimwatch.__all__) == sorted(claimwatch._EXPORTS)
    for name in claimwatch.__all__:
        assert getattr(claimwatch, name) is not None
