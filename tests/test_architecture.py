"""The tree shows the trust boundary, and the imports keep to it.

``autograder.kernel`` (and ``lessons``) run inside the student's kernel; ``autograder.judges``
runs in the judge; ``autograder.wire`` is what crosses between them (data, verdicts,
framing, the exercises' declarations) and both import it; ``autograder.instructor`` is the
instructor's side. Every import between those parts goes the allowed way:

==========================  ===================================================================
part                        may import (besides itself and ``autograder.messages``)
==========================  ===================================================================
``autograder.wire``         nothing else
``autograder.judges``       the wire
``autograder.kernel``       the wire; a judge only inside ``kernel.connection.judge`` (a student
                            working alone: the judges run in their kernel), never at import time
``lessons``                 the kernel, the wire
``autograder.instructor``   anything
==========================  ===================================================================

An exercise's folder (``autograder/exercises/<name>/``) holds files of several sides, each
file on one, by its name (``FILE_SIDES``): ``spec.py`` is the wire's (it crosses the boundary
as data), ``judge.py`` the judges', ``observe.py`` the kernel's, and ``catalogue.py`` (code a
student could write, for the tests) imports nothing of the project. The registry,
``autograder/exercises/__init__.py``, is the wire's: it imports the specs and nothing else, so
a kernel that reads it never imports a judge. Any other Python file in an exercise's folder
has no side and is refused.

and no module imports itself through a cycle.
"""
from __future__ import annotations

import ast

from helpers import ROOT

PACKAGES = ("autograder", "lessons")
PARTS = ("autograder.wire", "autograder.judges", "autograder.kernel", "autograder.instructor", "lessons")
CATALOGUE = "catalogue"  # an exercise's catalogue of solutions: test data
ALLOWED = {
    "autograder.wire": set(),
    "autograder.judges": {"autograder.wire"},
    "autograder.kernel": {"autograder.wire"},
    "lessons": {"autograder.kernel", "autograder.wire"},
    "autograder.instructor": set(PARTS),
    CATALOGUE: set(),
}
EXERCISES = "autograder.exercises"
# the file of an exercise's folder → the side it is on
FILE_SIDES = {"spec": "autograder.wire", "judge": "autograder.judges", "observe": "autograder.kernel",
              "catalogue": CATALOGUE}
SHARED = {"autograder", "autograder.messages"}
# (importing module, function it is in, imported part): the imports the rules above name
EXCEPTIONS = {("autograder.kernel.connection", "judge", "autograder.judges")}


def _module_name(path, root=ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST, function: str = ""):
    """(node, the function it is in, or "" at module level) for every import of a module."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, function
        inner = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
        yield from _imports(node, inner)


def import_graph(root=ROOT) -> dict:
    """module → {(a project module it imports, the function the import is in or "")}, for the
    packages under ``root`` (the project's, or a planted tree's)."""
    paths = {_module_name(p, root): p for package in PACKAGES for p in (root / package).rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node, function in _imports(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parent + ([base] if base else []))
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            for target in targets:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add((target, function))
        graph[name] = found
    return graph


def _part(module: str) -> str | None:
    if module == EXERCISES:
        return "autograder.wire"  # the registry
    if module.startswith(EXERCISES + "."):
        return FILE_SIDES.get(module.split(".")[3] if module.count(".") == 3 else "")
    return next((p for p in PARTS if module == p or module.startswith(p + ".")), None)


def test_the_parts_exist_and_say_what_they_are():
    for part in PARTS[:4]:
        path = ROOT / part.replace(".", "/") / "__init__.py"
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and len(doc) > 200, part


def test_every_file_of_an_exercise_is_on_one_side():
    """Only the files ``FILE_SIDES`` names, so that none escapes the rules below."""
    folders = [p for p in (ROOT / "autograder/exercises").iterdir() if (p / "spec.py").is_file()]
    assert len(folders) >= 15
    stray = [str(path.relative_to(ROOT)) for folder in folders for path in folder.rglob("*.py")
             if path.stem not in FILE_SIDES or path.parent != folder]
    assert stray == []
    assert {_part(f"{EXERCISES}.fit_line.{stem}") for stem in FILE_SIDES} == set(FILE_SIDES.values())
    assert _part(f"{EXERCISES}.fit_line.helpers") is None and _part(f"{EXERCISES}.fit_line") is None


def test_every_import_between_the_parts_goes_the_allowed_way():
    wrong = []
    for module, imports in import_graph().items():
        part = _part(module)
        if part is None:
            assert not module.startswith(EXERCISES + "."), f"{module} is on no side"
            continue
        for target, function in imports:
            other = _part(target)
            if other in (None, part) or target in SHARED or other in ALLOWED[part]:
                continue
            if (module, function, other) not in EXCEPTIONS:
                wrong.append(f"{module}{'.' + function if function else ''} imports {target}")
    assert wrong == []


def test_the_rules_can_fail():
    """The kernel's one judge import is found, and a module-level one would be refused; an
    exercise's observer that imported its judge, or a spec that imported its observer, would be
    refused too."""
    graph = import_graph()
    assert ("autograder.exercises.fit_line.spec", "") in graph["autograder.exercises.fit_line.observe"]
    assert _part("autograder.exercises.fit_line.judge") not in ALLOWED[_part("autograder.exercises.fit_line.observe")]
    assert _part("autograder.exercises.fit_line.observe") not in ALLOWED[_part("autograder.exercises.fit_line.spec")]
    assert ("autograder.judges.local", "judge") in graph["autograder.kernel.connection"]
    assert ("autograder.kernel.connection", "autograder.judge", "autograder.judges") not in EXCEPTIONS
    assert not any(function == "" and _part(target) == "autograder.judges"
                   for target, function in graph["autograder.kernel.connection"])


def test_no_import_cycles():
    graph = {module: {target for target, _ in imports} for module, imports in import_graph().items()}
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
