"""ApplyVerdicts: a judged test cell without the judge's pass gets an error (so nbgrader scores
it 0, and the feedback says why); everything else is left as it was."""
from __future__ import annotations

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader import utils

from autograder.instructor.passes.apply_verdicts import ApplyVerdicts
from autograder.wire.verdict import Verdict


def _test_cell(grade_id: str, error: bool = False):
    cell = new_code_cell(f"check_{grade_id}(x)")
    cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True, "points": 2,
                              "grade_id": grade_id, "schema_version": 3}
    cell.outputs = [NotebookNode(output_type="stream", name="stdout", text="All checks passed\n")]
    if error:
        cell.outputs.append(NotebookNode(output_type="error", ename="AssertionError", evalue="wrong", traceback=[]))
    return cell


def _run(verdicts, language="en"):
    nb = new_notebook(cells=[_test_cell("passed"), _test_cell("forged"), _test_cell("failed_both", error=True),
                             _test_cell("unjudged")])
    nb.metadata["autograd_lessons"] = {"language": language}
    resources = {} if verdicts is None else {"autograder": {"verdicts": verdicts}}
    nb, _ = ApplyVerdicts().preprocess(nb, resources)
    return {cell.metadata.nbgrader["grade_id"]: cell for cell in nb.cells}


def test_only_a_cell_that_passed_in_the_kernel_but_not_for_the_judge_changes():
    cells = _run({"passed": Verdict(True).to_data(),
                  "forged": Verdict.fail("no_record", "judge.no_record").to_data(),
                  "failed_both": Verdict.fail("trajectory", "judge.trajectory", step=2, diff=0.5).to_data()})
    assert utils.determine_grade(cells["passed"])[0] == 2
    assert utils.determine_grade(cells["forged"])[0] == 0
    assert "never reached the grader's judge" in cells["forged"].outputs[-1].evalue
    # the judge's reason alone, as a failed check shows its message: no class name before it
    assert cells["forged"].outputs[-1].traceback == [cells["forged"].outputs[-1].evalue]
    assert len(cells["failed_both"].outputs) == 2  # its own error already explains it
    assert utils.determine_grade(cells["unjudged"])[0] == 2  # a cell no check judges is nbgrader's alone
    assert cells["forged"].metadata["autograder"]["verdict"]["mistake"] == "no_record"
    assert cells["passed"].metadata["autograder"]["verdict"]["ok"] is True


def test_a_forged_verdict_message_cannot_break_the_pass():
    cells = _run({"forged": {"ok": False, "mistake": "x" * 500, "key": "grading.score", "fields": {"score": "{0}"}}})
    assert utils.determine_grade(cells["forged"])[0] == 0


def test_without_verdicts_nothing_changes():
    cells = _run(None)
    assert all(utils.determine_grade(cell)[0] == 2 for name, cell in cells.items() if name != "failed_both")
