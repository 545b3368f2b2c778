"""The whole nbgrader pipeline on a temp copy of the course, run for real, for all four
assignments: generate_assignment → autograde → generate_feedback → export.

Three students per assignment: alice submits the solutions, bob the untouched release
notebook, carol the solutions with wrong answers from the catalogues in two exercises.
"""
from __future__ import annotations

import csv
import shutil
import textwrap

import catalogue
import catalogue_lessons
import nbformat
import pytest
from helpers import ROOT, fill, grade_id, isolated_env, nbgrader, page_text, points, read, solutions
from nbgrader.api import Gradebook

pytestmark = pytest.mark.slow


def _wrong(entries, name) -> str:
    return textwrap.dedent(next(e for e in entries if e.name == name).source).strip()


# assignment → (carol's wrong answers, test cells she must lose, words in her feedback)
CAROL = {
    "01_requires_grad": ({"freeze_body": _wrong(catalogue_lessons.LESSON1, "freezes_the_head")},
                         {"freeze_body_tests"}, ["still receives a gradient"]),
    "02_backward": ({"derivative": _wrong(catalogue_lessons.LESSON2, "finite_difference_instead"),
                     "weighted_grad": _wrong(catalogue_lessons.LESSON2, "ones_instead_of_v")},
                    {"derivative_tests", "weighted_grad_tests"},
                    ["did not compute the derivative", "weights each output"]),
    "03_zeroing_grad": ({"train_loop": _wrong(catalogue.TRAIN_LOOP, "cleared_once_before_loop"),
                         "fit_line": _wrong(catalogue_lessons.LESSON3, "clears_between_backward_and_update")},
                        {"train_loop_tests", "fit_line_tests"},
                        ["cleared only once", "line 7", "between backward() and the update"]),
    "04_no_grad": ({"predict": _wrong(catalogue_lessons.LESSON4, "detach_afterwards"),
                    "evaluate": _wrong(catalogue_lessons.LESSON4, "leaves_eval_mode")},
                   {"predict_tests", "evaluate_tests"},
                   ["already spent", "mode after it"]),
}
# assignment → (total points, carol's wrong answers, {test cell she must lose: its points}, words),
# the points read from the source notebooks
ASSIGNMENTS = {name: (sum(points(name).values()), wrong, {cell: points(name)[cell] for cell in lost}, words)
               for name, (wrong, lost, words) in CAROL.items()}
STUDENTS = ("alice", "bob", "carol")


def _nb(name: str) -> str:
    return f"{name}.ipynb"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A course with every assignment generated, submitted by three students, graded,
    fed back and exported: each step run once for all four assignments (``"*"``), as an
    instructor catching up on a whole course would."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", root)
    shutil.copytree(ROOT / "source", root / "source")
    env = isolated_env(tmp_path_factory.mktemp("home"))
    nbgrader(["generate_assignment", "*", "--force"], root, env)
    for name, (_, wrong, _, _) in ASSIGNMENTS.items():
        release = read(root / "release" / name / _nb(name))
        right = solutions(read(root / "source" / name / _nb(name)))
        submissions = {"alice": fill(release, right), "bob": release,
                       "carol": fill(release, dict(right, **wrong))}
        for student, nb in submissions.items():
            folder = root / "submitted" / student / name
            folder.mkdir(parents=True)
            nbformat.write(nb, str(folder / _nb(name)))
    nbgrader(["autograde", "*", "--create"], root, env)
    nbgrader(["generate_feedback", "*"], root, env)
    nbgrader(["export"], root, env)
    return root


def _grades(root, name, student) -> dict:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        nb = gb.find_submission_notebook(name, name, student)
        return {g.name: (g.score, g.max_score) for g in nb.grades}


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_generate_assignment_reproduces_committed_release(course, name):
    generated = read(course / "release" / name / _nb(name))
    committed = read(ROOT / "release" / name / _nb(name))
    assert generated == committed, "release/ is stale: run `make release` and commit"


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_release_has_no_solutions_or_hidden_tests(name):
    text = (ROOT / "release" / name / _nb(name)).read_text()
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert 'cases=\\"hidden\\"' not in text and 'part=\\"hidden\\"' not in text


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_solutions_get_full_marks(course, name):
    grades = _grades(course, name, "alice")
    total = ASSIGNMENTS[name][0]
    assert sum(s for s, _ in grades.values()) == sum(m for _, m in grades.values()) == total


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_untouched_release_scores_zero_on_every_exercise(course, name):
    grades = _grades(course, name, "bob")
    assert grades and all(score == 0 for score, _ in grades.values()), grades


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_wrong_answers_lose_only_their_points(course, name):
    total, _, lost_cells, _ = ASSIGNMENTS[name]
    grades = _grades(course, name, "carol")
    lost = {cell: top - score for cell, (score, top) in grades.items() if score < top}
    assert lost == lost_cells, grades
    assert sum(s for s, _ in grades.values()) == total - sum(lost_cells.values())


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_feedback_explains_mistakes_and_hides_hidden_tests(course, name):
    words = ASSIGNMENTS[name][3]
    html = page_text(course / "feedback" / "carol" / name / f"{name}.html")
    for word in words:
        assert word in html
    for student in STUDENTS:
        page = (course / "feedback" / student / name / f"{name}.html").read_text()
        assert "HIDDEN TESTS" not in page
        for hidden in ('cases="hidden"', "cases=&quot;hidden&quot;", 'part="hidden"',
                       "part=&quot;hidden&quot;"):
            assert hidden not in page


def test_export_has_a_row_per_student_and_assignment(course):
    with open(course / "grades.csv") as f:
        rows = {(row["assignment"], row["student_id"]): float(row["score"]) for row in csv.DictReader(f)}
    assert set(rows) == {(a, s) for a in ASSIGNMENTS for s in STUDENTS}
    for name, (total, _, lost, _) in ASSIGNMENTS.items():
        assert rows[(name, "alice")] == total
        assert rows[(name, "bob")] == 0
        assert rows[(name, "carol")] == total - sum(lost.values())


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_test_cells_of_solutions_carry_no_stderr(course, name):
    autograded = read(course / "autograded" / "alice" / name / _nb(name))
    for cell in autograded.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            assert all(o.get("name") != "stderr" for o in cell.outputs), grade_id(cell)
