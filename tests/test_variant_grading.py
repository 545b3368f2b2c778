"""A class graded with a course secret: each student is judged against their own variant of
every Quick Check, drawn from the secret and nbgrader's id of the student who submitted,
never from anything in the notebook. One real ``autograder grade`` run of lesson 1."""
from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest
from helpers import BIN, ROOT, fill, generate, isolated_env, page_text, read, solutions
from nbgrader.api import Gradebook

from autograder.instructor import course_secret
from autograder.instructor.passes.safe_for_pages import WRAPPED
from autograder.judges import variants
from autograder.exercises.graph_predictions import judge as graph_predictions
from lessons.quiz import question_html, question_markdown

pytestmark = pytest.mark.slow
NAME = "01_requires_grad"
QUESTIONS = ("l1_q1", "l1_q2", "l1_q3")
GRAPH = "l1_graph_predictions"
SECRET = b"a course secret for the tests"


def run(args, root, env, ok=True):
    result = subprocess.run([str(BIN / "autograder"), *args], cwd=root, env=env, capture_output=True, text=True,
                            timeout=900)
    assert (result.returncode == 0) is ok, result.stdout + result.stderr
    return result


def keys(student) -> list:
    return [variants.of_student(SECRET, q, student).key for q in QUESTIONS]


def graph(student) -> dict:
    """The true answers of exercise 1(a) for the student's own code."""
    return graph_predictions.true_properties(variants.of_student(SECRET, GRAPH, student).shown())


def students() -> tuple:
    """Three students: the second's keys differ from the first's on every question, the
    third's from the published keys (found under this secret, not assumed)."""
    published = [variants.variant(q, None).key for q in QUESTIONS]
    names = [f"student{i}" for i in range(200)]
    differ = lambda a, b: all(x != y for x, y in zip(a, b))  # noqa: E731
    first = names[0]
    second = next(n for n in names if differ(keys(n), keys(first)) and graph(n) != graph(first))
    third = next(n for n in names if n not in (first, second) and differ(keys(n), published)
                 and graph(n) != graph_predictions.true_properties(None))
    return first, second, third, published


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """ada answers her own variants (Quick Checks and exercise 1(a)); grace hands in ada's
    answers; eve the published ones, read from ``source/``; all three solve exercise 1(b).
    (Their ids are found by ``students``.)"""
    folder = tmp_path_factory.mktemp("variants")
    env = isolated_env(folder / "home")
    root = folder / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    (root / "source").symlink_to(ROOT / "source")
    generate(root, env, NAME)
    (root / course_secret.FILE).write_text(SECRET.decode() + "\n")
    ada, grace, eve, published = students()
    right = solutions(read(ROOT / "source" / NAME / f"{NAME}.ipynb"))
    release = read(root / "release" / NAME / f"{NAME}.ipynb")

    def answers(letters, predictions=None):
        quiz = "".join(f'answer_q{i} = "{k}"\n' for i, k in enumerate(letters, 1))
        mine = {"quick_check_answers": quiz}
        if predictions is not None:
            mine["graph_predictions"] = f"predictions = {predictions!r}\n"
        return dict(right, **mine)
    for student, given in ((ada, answers(keys(ada), graph(ada))), (grace, answers(keys(ada), graph(ada))),
                           (eve, answers(published))):
        folder_ = root / "submitted" / student / NAME
        folder_.mkdir(parents=True)
        (folder_ / f"{NAME}.ipynb").write_text(json.dumps(fill(release, given)))
    output = run(["grade", NAME, "--jobs", "2"], root, env).stdout
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        scores = {s.id: {g.name: g.score for g in gb.find_submission_notebook(NAME, NAME, s.id).grades}
                  for s in gb.students}
    return root, env, output, scores, (ada, grace, eve)


def quiz_scores(scores, student) -> list:
    return [scores[student][f"quiz_q{i}"] for i in range(1, len(QUESTIONS) + 1)] + \
        [scores[student]["graph_predictions_tests"]]


def test_each_student_is_judged_against_their_own_variant(graded):
    root, _, output, scores, (ada, grace, eve) = graded
    assert quiz_scores(scores, ada) == [1, 1, 1, 2], output
    assert quiz_scores(scores, grace) == [0, 0, 0, 0], "a classmate's answers answer another question"
    assert quiz_scores(scores, eve) == [0, 0, 0, 0], "the published answers answer the published question only"
    for student in (ada, grace, eve):  # everything else is graded as always
        assert scores[student]["freeze_body_tests"] == 3


def test_the_notebook_and_the_feedback_show_the_students_own_variant(graded):
    root, _, _, _, (ada, grace, _) = graded
    for student in (ada, grace):
        nb = read(root / "autograded" / student / NAME / f"{NAME}.ipynb")
        cells = {c.get("id"): c for c in nb.cells}
        feedback = (root / "feedback" / student / NAME / f"{NAME}.html").read_text()
        shown = {f"quiz_q{i}_question": q for i, q in enumerate(QUESTIONS, 1)}
        for cell, question in {**shown, "graph_predictions_code": GRAPH}.items():
            mine = variants.of_student(SECRET, question, student)
            data = cells[cell].outputs[0]["data"]
            assert data["text/plain"] == question_markdown(question, mine.shown())
            assert data["text/html"] == f"{WRAPPED}{question_html(question, mine.shown())}</div>"  # what the pages keep
            assert data["text/html"] in feedback
    assert (root / "autograded" / ada / NAME / f"{NAME}.ipynb").read_text() != \
        (root / "autograded" / grace / NAME / f"{NAME}.ipynb").read_text()


def test_the_self_check_passed_on_the_published_variant(graded):
    """The run grades the instructor's source notebook first and stops if it loses a point: it
    graded the class, so the solution's (published) answers were judged as the published variant."""
    output, scores = graded[2], graded[3]
    assert "(0 could not be graded normally)" in output and len(scores) == 3


def test_feedback_and_report_name_the_variant_and_count_mistakes_across_variants(graded):
    root, _, output, _, (ada, grace, eve) = graded
    assert "2 · wrong Quick Check answer" in output, output
    for student in (grace, eve):
        nb = read(root / "autograded" / student / NAME / f"{NAME}.ipynb")
        feedback_page = root / "feedback" / student / NAME / f"{NAME}.html"
        for i, question in enumerate(QUESTIONS, 1):
            label = variants.of_student(SECRET, question, student).label
            said = f"Question {i} (your variant {label}):"  # as its heading names it, never by its id
            test_cell = next(c for c in nb.cells if c.get("id") == f"quiz_q{i}")
            assert said in "".join(o.get("evalue", "") + o.get("text", "") for o in test_cell.outputs)
            assert said in page_text(feedback_page)
            assert f"Your variant of this question: {label}." in page_text(feedback_page)
    report = (root / "reports" / f"{NAME}.html").read_text()
    for i in range(1, len(QUESTIONS) + 1):  # one row per question, whatever each student's variant
        assert report.count(f'quiz_q{i}') >= 2
    assert "(your variant " in report


def test_secret_and_variants_commands(tmp_path, graded):
    root, env = graded[0], graded[1]
    fresh = tmp_path / "course"
    fresh.mkdir()
    (fresh / "nbgrader_config.py").write_text((ROOT / "nbgrader_config.py").read_text())
    no_secret = run(["variants", NAME, "--student", "ada"], fresh, env, ok=False)
    assert "run `autograder secret` first" in no_secret.stderr
    run(["secret"], fresh, env)
    made = fresh / course_secret.FILE
    assert stat.S_IMODE(made.stat().st_mode) == 0o600 and len(made.read_text().strip()) == 64
    before = made.read_text()
    again = run(["secret"], fresh, env, ok=False)
    assert "exists already" in again.stderr and made.read_text() == before
    made.write_text("")  # an empty secret: grading refuses, in one sentence, before starting anything
    refused = run(["grade", NAME], fresh, env, ok=False)
    assert "The course secret could not be read" in refused.stderr and "Traceback" not in refused.stderr
    wrote = run(["variants", NAME], root, env).stdout  # the graded course: its gradebook lists the students
    assert "wrote the variants of 3 students" in wrote
    data = json.loads((root / "release" / NAME / "variants.json").read_text())
    assert len(data["students"]) == 3 and "ada" not in json.dumps(data)
    kept_out = ["course_secret", f"release/{NAME}/variants.json"]
    ignored = subprocess.run(["git", "check-ignore", *kept_out], cwd=ROOT, env={**os.environ},
                             capture_output=True, text=True)
    assert ignored.stdout.split() == kept_out, "the secret and the variants file are kept out of git"


def test_a_cluster_run_sends_the_secret_to_its_workers(graded):
    """On a Dask cluster each worker's judge draws the variants, from the secret that travels
    with the course files (readable by the worker's owner only)."""
    from autograder.instructor.course_config import course_config
    from autograder.instructor.grading import dask

    root = graded[0]
    config = course_config(root, None, None, True)
    sent = {path: (mode, data) for path, mode, data in dask.course_data(root, NAME, config)["files"]}
    assert sent[course_secret.FILE] == (0o600, SECRET)
