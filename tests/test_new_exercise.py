"""Adding an exercise the way CONTRIBUTING.md says, in a throw-away copy of the packages:
three Python files (its declaration, its judge, its observer), its locale entries and its
notebook cells, and nothing else. The new exercise then has its ``check_<name>``, its
``exercises.<name>`` with hints, a judge that decides its points, and a class graded with
``autograder grade`` gets the points and messages the judge gives."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import nbformat
import pytest
from helpers import BIN, ROOT, isolated_env, nbgrader, page_text
from nbgrader.api import Gradebook

pytestmark = pytest.mark.slow

NAME = "squares_grad"
ASSIGNMENT = "99_squares"

# Step 1: the declaration, wire/exercises/<name>.py.
DECLARATION = '''
from ..spec import Exercise

EXERCISE = Exercise(
    "squares_grad", lesson=2, letter="z", kind="function", answer=("squares_grad",),
    cells=("squares_grad", "squares_grad_tests"), messages="squares_grad",
    summary="Exercise 2(z): the gradient of a sum of squares, by autograd.")
'''

# Step 2: the judge, judges/lesson<N>/<name>.py: scenarios from seeds, verdicts from data.
JUDGE = '''
from ...wire.codec import decode
from ...wire.verdict import PASS, Verdict
from ..seeds import generator

CASES = {"visible": [dict(seed=0, n=3)], "hidden": [dict(seed=1, n=5), dict(seed=2, n=1)]}


def scenario(spec, seed):
    import torch

    values = torch.rand(spec["n"], generator=generator(seed), dtype=torch.float64) * 4 - 2
    return {"x": [round(v, 3) for v in values.tolist()]}


def verify(data, observation):
    if observation.get("error"):
        return Verdict.from_data(observation["error"])
    got = decode(observation.get("value"))
    expected = [2 * v for v in data["x"]]
    if not isinstance(got, list) or len(got) != len(expected):
        return Verdict.fail("not_a_list", "squares_grad.not_a_list", n=len(expected))
    if any(abs(a - b) > 1e-5 for a, b in zip(got, expected)):
        return Verdict.fail("wrong", "squares_grad.wrong", x=data["x"], got=got)
    return PASS
'''

# Step 3: the observer, kernel/lesson<N>.py: runs the student's function on a scenario.
OBSERVER = '''


def observe_squares_grad(student, data, name):
    result, failed = running.call(student, name, list(data["x"]))
    if failed:
        return {"error": failed.to_data()}
    return {"value": encode(result)}
'''

GRADER_MESSAGES = '''
[squares_grad]
not_a_list = "Return a list of {n} Python floats."
wrong = "For x = {x} you returned {got}: the gradient of the sum of squares is 2·x."
'''

HINTS = '''
[hints.squares_grad]
1 = "Make a tensor that requires grad, sum its squares, call backward()."
2 = "x.grad.tolist() is a list of floats."
'''

SOLUTION = '''def squares_grad(x):
    ### BEGIN SOLUTION
    t = torch.tensor(x, requires_grad=True)
    (t ** 2).sum().backward()
    return t.grad.tolist()
    ### END SOLUTION'''

TEST_CELL = '''check_squares_grad(squares_grad)
### BEGIN HIDDEN TESTS
check_squares_grad(squares_grad, cases="hidden")
### END HIDDEN TESTS'''

STUDENTS = {
    "alice": SOLUTION.replace("    ### BEGIN SOLUTION\n", "").replace("\n    ### END SOLUTION", ""),
    "bob": "def squares_grad(x):\n    return [v for v in x]",
    "carol": "def squares_grad(x):\n    return 2 * x[0]",
}


def _add_exercise(packages):
    """The steps of CONTRIBUTING.md's "Adding an exercise", in a copy of the packages."""
    for package in ("autograder", "lessons"):
        shutil.copytree(ROOT / package, packages / package, ignore=shutil.ignore_patterns("__pycache__"))
    (packages / "autograder/wire/exercises" / f"{NAME}.py").write_text(DECLARATION)
    (packages / "autograder/judges/lesson2" / f"{NAME}.py").write_text(JUDGE)
    with open(packages / "autograder/kernel/lesson2.py", "a") as f:
        f.write(OBSERVER)
    with open(packages / "autograder/locale/en.toml", "a") as f:
        f.write(GRADER_MESSAGES)
    with open(packages / "lessons/locale/en.toml", "a") as f:
        f.write(HINTS)


def _cell(kind, source, grade_id, **nbgrader_meta):
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    meta = {"grade": False, "grade_id": grade_id, "locked": True, "schema_version": 3,
            "solution": False, "task": False, **nbgrader_meta}
    return make(source, metadata={"nbgrader": meta})


def _notebook():
    nb = nbformat.v4.new_notebook()
    nb.metadata.kernelspec = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.cells = [
        _cell("markdown", "Write `squares_grad(x)`: the gradient of the sum of the squares of x.", "task"),
        _cell("code", "import torch\nfrom autograder.kernel.checks import check_squares_grad", "setup"),
        _cell("code", SOLUTION, NAME, locked=False, solution=True),
        _cell("code", TEST_CELL, f"{NAME}_tests", grade=True, points=2),
    ]
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course whose packages have the new exercise, one assignment with its cells, three students."""
    base = tmp_path_factory.mktemp("new_exercise")
    env = isolated_env(base / "home")
    env["PYTHONPATH"] = str(base / "packages")
    _add_exercise(base / "packages")
    root = base / "course"
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root)
    nbformat.write(_notebook(), str(root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    nbgrader(["generate_assignment", ASSIGNMENT, "--force"], root, env)
    release = nbformat.read(str(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"), as_version=4)
    for student, code in STUDENTS.items():
        nb = nbformat.from_dict(release)
        next(c for c in nb.cells if c.metadata.nbgrader["grade_id"] == NAME).source = code
        (root / "submitted" / student / ASSIGNMENT).mkdir(parents=True)
        nbformat.write(nb, str(root / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"))
    return root, env


def _python(code, env, cwd):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_declared_exercise_is_derived_everywhere(course):
    """Its check function, its registry entry and its ``exercises.<name>`` with hints exist,
    and a student working alone gets the judge's verdicts in their own process."""
    root, env = course
    said = json.loads(_python(f'''
        import contextlib, io, json
        from autograder.kernel import checks
        from autograder.wire.exercises import BY_NAME, CHECKS
        from lessons import exercises
        def right(x):
            import torch
            t = torch.tensor(x, requires_grad=True)
            (t ** 2).sum().backward()
            return t.grad.tolist()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            passed = exercises.{NAME}.check(right)
            failed = exercises.{NAME}.check(lambda x: x)
            exercises.{NAME}.hint(2, namespace={{"{NAME}": lambda x: x}})
        print(json.dumps({{"check": checks.check_{NAME}.__doc__, "registered": "check_{NAME}" in CHECKS,
                          "cells": BY_NAME["{NAME}"].cells, "passed": passed, "failed": failed,
                          "said": out.getvalue()}}))
    ''', env, root))
    assert said["check"] == "Exercise 2(z): the gradient of a sum of squares, by autograd."
    assert said["registered"] and said["cells"] == [NAME, f"{NAME}_tests"]
    assert said["passed"] is True and said["failed"] is False
    assert "the gradient of the sum of squares is 2·x" in said["said"]
    assert "x.grad.tolist() is a list of floats." in said["said"]


def test_a_class_is_graded_on_the_new_exercise(course):
    """``autograder grade`` in the sandbox, points from the judge: the right solution gets 2
    of 2, each wrong one 0 with the judge's sentence in its feedback."""
    root, env = course
    result = subprocess.run([str(BIN / "autograder"), "grade", ASSIGNMENT], cwd=root, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        scores = {s.id: gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, s.id).score for s in gb.students}
    assert scores == {"alice": 2, "bob": 0, "carol": 0}
    feedback = {s: page_text(root / "feedback" / s / ASSIGNMENT / f"{ASSIGNMENT}.html") for s in STUDENTS}
    assert "the gradient of the sum of squares is 2·x" in feedback["bob"]
    assert "Return a list of 3 Python floats." in feedback["carol"]
    assert "the gradient of the sum of squares" not in feedback["alice"]


def test_the_copy_leaves_the_course_alone(course):
    """The throw-away exercise lives only in the copy: the course's own registry is unchanged."""
    from autograder.wire.exercises import BY_NAME
    assert NAME not in BY_NAME and not (ROOT / "autograder/wire/exercises" / f"{NAME}.py").exists()
    assert os.path.isdir(course[0] / "release" / ASSIGNMENT)
