"""The whole nbgrader pipeline on a temp copy of the course, run for real:
generate_assignment → autograde → generate_feedback → export."""
from __future__ import annotations

import csv
import shutil

import nbformat
import pytest
from nbgrader.api import Gradebook

from catalogue import TRAIN_ACCUMULATE, TRAIN_LOOP
from helpers import ROOT, fill, grade_id, isolated_env, nbgrader, read, solutions

pytestmark = pytest.mark.slow
ASSIGNMENT = "03_zeroing_grad"
NB_NAME = f"{ASSIGNMENT}.ipynb"


def _source_of(entries, name):
    import textwrap
    return textwrap.dedent(next(e for e in entries if e.name == name).source).strip()


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A graded course: three students' submissions autograded, feedback and export made."""
    course = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "source", course / "source")
    env = isolated_env(tmp_path_factory.mktemp("home"))
    nbgrader(["generate_assignment", ASSIGNMENT, "--force"], course, env)

    release = read(course / "release" / ASSIGNMENT / NB_NAME)
    right = solutions(read(course / "source" / ASSIGNMENT / NB_NAME))
    wrong = dict(right, train_loop=_source_of(TRAIN_LOOP, "cleared_once_before_loop"),
                 train_accumulate=_source_of(TRAIN_ACCUMULATE, "unscaled"))
    submissions = {"alice": fill(release, right), "bob": release, "carol": fill(release, wrong)}
    for student, nb in submissions.items():
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / NB_NAME))

    autograde = nbgrader(["autograde", ASSIGNMENT, "--create"], course, env)
    nbgrader(["generate_feedback", ASSIGNMENT], course, env)
    nbgrader(["export"], course, env)
    return {"root": course, "env": env, "autograde_log": autograde.stdout + autograde.stderr}


def _grades(course, student) -> dict:
    with Gradebook(f"sqlite:///{course['root'] / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(ASSIGNMENT.split("/")[-1], ASSIGNMENT, student)
        return {g.name: (g.score, g.max_score) for g in nb.grades}


def test_generate_assignment_reproduces_committed_release(course):
    generated = read(course["root"] / "release" / ASSIGNMENT / NB_NAME)
    committed = read(ROOT / "release" / ASSIGNMENT / NB_NAME)
    assert generated == committed, "release/ is stale: run `make release` and commit"


def test_release_has_no_solutions_or_hidden_tests():
    text = (ROOT / "release" / ASSIGNMENT / NB_NAME).read_text()
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert 'cases=\\"hidden\\"' not in text and "loss.backward()\\n        optimizer.step()" not in text


def test_solutions_get_full_marks(course):
    grades = _grades(course, "alice")
    assert sum(s for s, _ in grades.values()) == sum(m for _, m in grades.values()) == 15


def test_untouched_release_scores_zero_on_every_exercise(course):
    grades = _grades(course, "bob")
    assert grades and all(score == 0 for score, _ in grades.values()), grades


def test_wrong_loops_lose_only_the_loop_points(course):
    grades = _grades(course, "carol")
    lost = {name for name, (score, top) in grades.items() if score < top}
    assert lost == {"train_loop_tests", "train_accumulate_tests"}, grades
    assert sum(s for s, _ in grades.values()) == 15 - 4 - 3


def test_feedback_explains_the_mistake_without_hidden_tests(course):
    feedback = course["root"] / "feedback" / "carol" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    html = feedback.read_text()
    assert "cleared only once" in html and "line 7" in html
    assert "4× too large" in html
    for student in ("alice", "bob", "carol"):
        page = (course["root"] / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        assert "HIDDEN TESTS" not in page
        assert 'cases="hidden"' not in page and "cases=&quot;hidden&quot;" not in page


def test_export_has_a_row_per_student(course):
    with open(course["root"] / "grades.csv") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    assert set(rows) == {"alice", "bob", "carol"}
    assert float(rows["alice"]["score"]) == 15.0
    assert float(rows["bob"]["score"]) == 0.0
    assert float(rows["carol"]["score"]) == 8.0


def test_test_cells_of_submissions_carry_no_stderr(course):
    autograded = read(course["root"] / "autograded" / "alice" / ASSIGNMENT / NB_NAME)
    for cell in autograded.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            assert all(o.get("name") != "stderr" for o in cell.outputs), grade_id(cell)
