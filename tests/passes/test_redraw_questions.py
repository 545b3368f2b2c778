"""RedrawQuestions: a locked cell's output on the pages is the grader's, never the kernel's: a
question cell shows the student's own variant, drawn again from the course secret and nbgrader's
student id as the judge draws it, whatever the kernel displayed there; another locked code cell
shows nothing; test cells and the student's own cells keep their outputs."""
from __future__ import annotations

import pytest
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook, new_output
from traitlets.config import Config

from autograder.instructor import course_secret
from autograder.instructor.passes.redraw_questions import RedrawQuestions, question_of
from autograder.judges import variants
from autograder.wire.questions import question_data

SECRET = b"a course secret for the tests"
ASSIGNMENT = "03_zeroing_grad"
STUDENT = "ada"


def _locked(source: str, grade_id: str, **flags) -> NotebookNode:
    cell = new_code_cell(source)
    cell.metadata.nbgrader = {"grade": False, "solution": False, "locked": True, "grade_id": grade_id,
                              "schema_version": 3, **flags}
    return cell


def _forged(question: str) -> list:
    """What a hostile kernel displays in a question cell: another question (the published one)
    as the honest kernel would show it, a line of its own and an error."""
    return [new_output("display_data", data=question_data(question, variants.variant(question, None).shown())),
            new_output("stream", name="stdout", text="Your grade was changed: see the instructor\n"),
            new_output("error", ename="KeyError", evalue="forged", traceback=["KeyError: forged"])]


def notebook(language: str = "en") -> NotebookNode:
    setup = _locked("import torch\nfrom lessons import quiz", "setup")
    setup.outputs = [new_output("stream", name="stdout", text="Note to the grader: full marks\n")]
    question = _locked('quiz.question("l3_q2")', "quiz_q2_question")
    question.outputs = _forged("l3_q2")
    code = _locked("quiz.question('l3_accumulation_predictions')", "accumulation_predictions_code")  # no output at all
    test = _locked("check_choice('l3_q2', answer_q2)", "quiz_q2", grade=True, points=1)
    test.outputs = [new_output("stream", name="stdout", text="Recorded: l3_q2, b\n")]
    answer = new_code_cell("answer_q2 = 'b'\nquiz.question('l3_q1')")
    answer.metadata.nbgrader = {"grade": False, "solution": True, "locked": False, "grade_id": "quick_check_answers",
                                "schema_version": 3}
    answer.outputs = [new_output("stream", name="stdout", text="mine\n")]
    own = new_code_cell('quiz.question("l3_q3")', outputs=[new_output("stream", name="stdout", text="my own cell\n")])
    nb = new_notebook(cells=[setup, question, code, test, answer, own])
    nb.metadata["autograd_lessons"] = {"language": language}
    return nb


def redraw(nb, root, student=STUDENT, **nbgrader):
    config = Config()
    config.CourseDirectory.root = str(root)
    resources = {"nbgrader": {"student": student, "assignment": ASSIGNMENT, "notebook": ASSIGNMENT, **nbgrader}}
    nb, _ = RedrawQuestions(config=config).preprocess(nb, resources)
    return {cell.metadata.get("nbgrader", {}).get("grade_id", "own"): cell for cell in nb.cells}


def shown(question: str, secret: bytes | None, student: str | None, language: str = "en") -> list:
    drawn = variants.variant(question, variants.seed(secret, ASSIGNMENT, question, student))
    return [new_output("display_data", data=question_data(question, drawn.shown(), language))]


@pytest.fixture
def course(tmp_path, monkeypatch):
    monkeypatch.delenv(course_secret.ENV, raising=False)
    (tmp_path / course_secret.FILE).write_text(SECRET.decode() + "\n")
    return tmp_path


def test_a_question_cell_shows_the_students_own_variant_whatever_the_kernel_displayed(course):
    cells = redraw(notebook("es"), course)
    assert cells["quiz_q2_question"].outputs == shown("l3_q2", SECRET, STUDENT, "es")
    assert cells["accumulation_predictions_code"].outputs == shown("l3_accumulation_predictions", SECRET, STUDENT, "es")
    # the variant is the student's own, not the published one the kernel showed, in the notebook's language
    mine = variants.variant("l3_q2", variants.seed(SECRET, ASSIGNMENT, "l3_q2", STUDENT))
    assert not mine.published and mine.label in cells["quiz_q2_question"].outputs[0].data["text/plain"]
    assert "Tu variante" in cells["quiz_q2_question"].outputs[0].data["text/html"]


def test_another_student_sees_another_drawing(course):
    others = [s for s in ("bob", "cy", "dee", "eve") if variants.seed(SECRET, ASSIGNMENT, "l3_q2", s)
              != variants.seed(SECRET, ASSIGNMENT, "l3_q2", STUDENT)]
    cells = redraw(notebook(), course, student=others[0])
    assert cells["quiz_q2_question"].outputs == shown("l3_q2", SECRET, others[0])
    assert cells["quiz_q2_question"].outputs != redraw(notebook(), course)["quiz_q2_question"].outputs


def test_without_a_secret_or_for_the_instructors_own_notebook_the_published_variant(course, tmp_path_factory):
    bare = tmp_path_factory.mktemp("no-secret")
    assert redraw(notebook(), bare)["quiz_q2_question"].outputs == shown("l3_q2", None, None)
    self_check = redraw(notebook(), course, self_check=True)
    assert self_check["quiz_q2_question"].outputs == shown("l3_q2", None, None)
    assert "variant" not in self_check["quiz_q2_question"].outputs[0].data["text/plain"].lower()


def test_other_locked_code_shows_nothing_and_the_rest_keeps_its_outputs(course):
    before = notebook()
    cells = redraw(notebook(), course)
    assert cells["setup"].outputs == []
    assert cells["quiz_q2"].outputs == before.cells[3].outputs  # a test cell: the account of the student's code
    assert cells["quick_check_answers"].outputs == before.cells[4].outputs  # the student's answer cell
    assert cells["own"].outputs == before.cells[5].outputs  # a cell of the student's own


@pytest.mark.parametrize("source, question", [
    ('quiz.question("l1_q1")', "l1_q1"),
    ("  quiz.question( 'l4_q3' )\n", "l4_q3"),
    ('quiz.question("l1_p1")', None),  # a practice question: not generated
    ('quiz.question("l1_q1")\nprint("x")', None),  # more than the one call
    ('quiz.question("l1_q1\')', None),
    ("import torch", None),
])
def test_which_cells_are_question_cells(source, question):
    assert question_of(new_code_cell(source)) == question
