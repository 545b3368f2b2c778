"""The tree shows the trust boundary, and the imports keep to it.

``autograder.kernel`` and ``lessons`` run inside the student's kernel; ``autograder.judges``
is pure judging; ``autograder.instructor`` is the instructor's side. Nothing that runs in
the kernel, and nothing that judges, may import the instructor's side; judges import
nothing from the kernel side; and no module imports itself through a cycle.
"""
from __future__ import annotations

import ast

from helpers import ROOT

PACKAGES = ("autograder", "lessons")


def _module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict:
    """module → the project modules it imports (relative imports resolved)."""
    paths = {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parent + ([base] if base else []))
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            else:
                continue
            for target in targets:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add(target)
        graph[name] = found
    return graph


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_three_parts_exist_and_say_what_they_are():
    for part in ("autograder.kernel", "autograder.judges", "autograder.instructor"):
        path = ROOT / part.replace(".", "/") / "__init__.py"
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and len(doc) > 200, part


def test_nothing_in_the_kernel_or_the_judges_imports_the_instructor_side():
    graph = import_graph()
    for module, imports in graph.items():
        if any(_inside(module, p) for p in ("autograder.kernel", "autograder.judges", "lessons")):
            bad = [m for m in imports if _inside(m, "autograder.instructor")]
            assert not bad, f"{module} imports {bad}"
        if _inside(module, "autograder.judges"):
            bad = [m for m in imports if _inside(m, "autograder.kernel") or _inside(m, "lessons")]
            assert not bad, f"{module} imports {bad}"


def test_no_import_cycles():
    graph = import_graph()
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    # a package's __init__ that re-exports from its own modules is not a cycle of logic
    cycles = [c for c in cycles if not all(m.startswith(c[0]) for m in c)]
    assert cycles == []
