"""Never a silent class of zeros: before anyone is graded, the instructor's own solution is
graded in the same sandbox and pipeline, and a shortfall stops the run with one sentence
naming the cell and its error (``autograder grade``), or refuses each notebook with it
(plain ``nbgrader autograde``). Nothing is written to the gradebook for any student."""
from __future__ import annotations

import subprocess

import nbformat
import pytest
from helpers import BIN, isolated_env, nbgrader, points
from nbgrader.api import Gradebook
from test_class_grading import NAME, make_course, notebooks

pytestmark = pytest.mark.slow


def _break_solution(root):
    """The instructor's train_loop solution forgets zero_grad(): its own test fails."""
    path = root / "source" / NAME / f"{NAME}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "train_loop":
            cell.source = cell.source.replace("        optimizer.zero_grad()\n", "")
    nbformat.write(nb, str(path))


def _starve_kernels(root):
    """A grading environment in which no kernel can run: 1 MB of memory each."""
    with open(root / "nbgrader_config.py", "a") as f:
        f.write("\nc.JudgedExecute.memory_mb = 1\n")


def _graded_students(root) -> set:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {s.id for s in gb.students}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return isolated_env(tmp_path_factory.mktemp("home"))


@pytest.mark.parametrize("broken, words", [
    (_break_solution, ["does not get full marks", "test cell train_loop_tests scored 0 of 4",
                       "Gradients were never cleared"]),
    (_starve_kernels, ["could not be graded", "the fork server could not start a kernel"]),
])
def test_a_grader_that_cannot_grade_the_solution_grades_nobody(tmp_path, env, broken, words):
    root = make_course(tmp_path / "course", env, {})
    broken(root)
    for student, nb in notebooks().items():
        folder = root / "submitted" / student / NAME
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / f"{NAME}.ipynb"))
    result = subprocess.run([str(BIN / "autograder"), "grade", NAME, "--timeout", "20"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 2, result.stdout + result.stderr
    said = result.stderr.strip()
    assert said.startswith(f"autograder: The instructor's own solution of {NAME} "), said
    assert all(w in said for w in words) and "nobody was graded" in said, said
    assert len(said.splitlines()) == 1 and "Traceback" not in result.stdout + result.stderr
    assert _graded_students(root) == set() and not (root / "autograded").exists() and not (root / "feedback").exists()


def test_plain_nbgrader_refuses_each_notebook_with_the_reason(tmp_path, env):
    root = make_course(tmp_path / "course", env, {"alice": notebooks()["alice"]})
    _break_solution(root)
    result = nbgrader(["autograde", NAME], root, env, check=False)
    assert "does not get full marks" in result.stdout + result.stderr and "train_loop_tests" in result.stderr
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:  # no score recorded: not graded, not zeroed
        assert [g.auto_score for s in gb.assignment_submissions(NAME) for nb in s.notebooks for g in nb.grades] \
            == [None] * len(points(NAME))
    assert not list((root / "autograded").rglob("*.ipynb"))


def test_a_sound_course_passes_the_check(tmp_path, env):
    """The course as published: the check passes and everyone is graded (the class tests grade
    whole classes; this is the check alone, in a worker's pipeline)."""
    import os

    from autograder.instructor.course_config import course_config
    from autograder.instructor.passes import self_check
    from autograder.instructor.kernels.services import Services

    root = make_course(tmp_path / "course", env, {})
    config = course_config(root)
    started = Services.start(root, sandbox=True)
    saved = {k: os.environ.get(k) for k in started.environment()}
    os.environ.update(started.environment())
    try:
        assert self_check.check(config, root, NAME, config.CourseDirectory.db_url) == []
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        started.close()
