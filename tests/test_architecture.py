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
as data), ``scenario.py`` (where there is one: the torch objects a scenario's data builds, for the
kernel and the judge alike) the wire's too, ``judge.py`` the judges', ``observe.py`` the kernel's, and ``catalogue.py`` (code a
student could write, for the tests) imports nothing of the project. The registry,
``autograder/exercises/__init__.py``, is the wire's: it imports the specs and nothing else, so
a kernel that reads it never imports a judge. Any other Python file in an exercise's folder
has no side and is refused.

and no module imports itself through a cycle. Nor does a package, at any depth: of the packages
and modules side by side in one package (``lessons`` beside ``autograder``'s parts), none
imports another that imports it back, directly or around a longer circle, by any import
(one inside a function too), so that each reads and tests alone above the ones it imports.
The instructor's side runs one way down: ``grading`` (the loop) imports ``passes`` and
``reports``; ``passes`` imports ``kernels``, which imports ``judging`` (its services start
the judge); below them all, its modules (``preflight``, ``failures``, ``time_budget``,
``server_process``, ``files``, ...).
"""
from __future__ import annotations

import ast
import subprocess
import sys

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
FILE_SIDES = {"spec": "autograder.wire", "scenario": "autograder.wire", "judge": "autograder.judges",
              "observe": "autograder.kernel", "catalogue": CATALOGUE}
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
    assert ("autograder.exercises.fit_line.scenario", "") in graph["autograder.exercises.fit_line.observe"]
    assert _part("autograder.exercises.fit_line.judge") not in ALLOWED[_part("autograder.exercises.fit_line.observe")]
    assert _part("autograder.exercises.fit_line.observe") not in ALLOWED[_part("autograder.exercises.fit_line.spec")]
    assert ("autograder.judges.local", "judge") in graph["autograder.kernel.connection"]
    assert ("autograder.kernel.connection", "autograder.judge", "autograder.judges") not in EXCEPTIONS
    assert not any(function == "" and _part(target) == "autograder.judges"
                   for target, function in graph["autograder.kernel.connection"])


def _circles(graph: dict) -> list:
    """The sets of nodes of ``graph`` (node → the nodes it points to) that reach each other, two
    or more (Tarjan's strongly connected components), each sorted."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

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
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_no_import_cycles():
    graph = {module: {target for target, _ in imports} for module, imports in import_graph().items()}
    # a package's __init__ that re-exports from its own modules is not a cycle of logic
    cycles = [c for c in _circles(graph) if not all(m.startswith(c[0]) for m in c)]
    assert cycles == []


def _chain(module: str) -> tuple:
    """Where ``module`` stands: its part (``lessons`` beside ``autograder``'s parts, which are
    the top), then each package and module below it; a module of a part that stands outside
    its folder (an exercise's file) is one module of that part."""
    part = _part(module) or module
    if module == part or not module.startswith(part + "."):
        return (part,) if module == part else (part, module)
    return (part, *module[len(part) + 1:].split("."))


def _side_by_side(module: str, target: str):
    """(the package both stand in, the two packages or modules side by side in it that hold
    ``module`` and ``target``), or None when one holds the other (a package's face)."""
    mine, theirs = _chain(module), _chain(target)
    common = 0
    while common < min(len(mine), len(theirs)) and mine[common] == theirs[common]:
        common += 1
    if common in (len(mine), len(theirs)):
        return None
    return ".".join(mine[:common]), ".".join(mine[:common + 1]), ".".join(theirs[:common + 1])


def package_cycles(graph: dict) -> list:
    """Every circle of imports between packages (or modules) side by side in one package, each
    as a sentence naming them and every import that makes it, the importing modules first."""
    edges, imports = {}, {}
    for module, targets in graph.items():
        for target, function in targets:
            if any(other.startswith(target + ".") and where == function for other, where in targets):
                continue  # ``from package import module``: the module names it
            found = _side_by_side(module, target)
            if found:
                parent, mine, theirs = found
                edges.setdefault(parent, {}).setdefault(mine, set()).add(theirs)
                imports.setdefault((mine, theirs), set()).add(f"{module}{'.' + function if function else ''}"
                                                             f" imports {target}")
    found = []
    for parent in sorted(edges):
        for circle in _circles(edges[parent]):
            made = sorted(line for (mine, theirs), lines in imports.items()
                          if mine in circle and theirs in circle for line in lines)
            found.append(f"{' ⇄ '.join(circle)}: " + "; ".join(made))
    return found


def test_no_two_packages_import_each_other():
    assert package_cycles(import_graph()) == []


PLANTED = {  # a tree of the project's shape: passes.hooks imports grading inside a function
    "autograder/__init__.py": "",
    "autograder/instructor/__init__.py": "",
    "autograder/instructor/grading/__init__.py": "",
    "autograder/instructor/grading/run.py": "from ..passes import hooks\n",
    "autograder/instructor/grading/failures.py": "RECORDS = ()\n",
    "autograder/instructor/passes/__init__.py": "",
    "autograder/instructor/passes/hooks.py": "def quarantine():\n    from ..grading.failures import RECORDS\n",
    "lessons/__init__.py": "",
}


def test_a_planted_package_cycle_fails_with_the_packages_and_the_imports(tmp_path):
    """A cycle through an import inside a function, in a planted tree, is found and named; so are
    cycles planted in the project's own graph: around three packages, and between ``lessons``
    and a part of ``autograder``."""
    for name, text in PLANTED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert package_cycles(import_graph(tmp_path)) == [
        "autograder.instructor.grading ⇄ autograder.instructor.passes: "
        "autograder.instructor.grading.run imports autograder.instructor.passes.hooks; "
        "autograder.instructor.passes.hooks.quarantine imports autograder.instructor.grading.failures"]
    graph = import_graph()
    graph["autograder.instructor.server_process"] = {("autograder.instructor.kernels.forkserver", "")}
    graph["autograder.kernel.checks"] = graph["autograder.kernel.checks"] | {("lessons.quiz", "ask")}
    cycles = package_cycles(graph)
    assert [cycle.partition(":")[0] for cycle in cycles] == [
        "autograder.kernel ⇄ lessons",
        "autograder.instructor.judging ⇄ autograder.instructor.kernels ⇄ autograder.instructor.server_process"]
    assert "autograder.kernel.checks.ask imports lessons.quiz" in cycles[0]
    assert "autograder.instructor.kernels.services imports autograder.instructor.judging.client" in cycles[1]
    assert "autograder.instructor.judging.server imports autograder.instructor.server_process" in cycles[1]


def test_the_grader_imports_no_torch_where_no_student_code_runs():
    """The registry reads every exercise's ``spec.py``; torch stays in ``scenario.py``, which only
    the kernel and the judge import, so the ``autograder`` command and its grading workers (which
    run nbgrader, never a student's code) do not load it (~1.9 s of CPU a process)."""
    code = ("import sys, autograder.exercises, autograder.instructor.cli, autograder.instructor.grading.worker,"
            " autograder.instructor.grading.nbgrader_loaded; print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert found.stdout.strip() == "[]", found.stdout + found.stderr
