"""ConciseTestErrors: a failed test cell's traceback is cut to its last line; other cells keep theirs."""
from __future__ import annotations

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook

from autograder.instructor.passes.concise_test_errors import ConciseTestErrors


def _cell(grade: bool, ename: str = "AssertionError"):
    cell = new_code_cell("check_train_loop(train)\\n### BEGIN HIDDEN TESTS\\ncheck_train_loop(train, cases='hidden')")
    cell.metadata.nbgrader = {"grade": grade, "solution": False, "locked": grade, "points": 1,
                              "grade_id": "t" if grade else "a", "schema_version": 3}
    cell.outputs = [NotebookNode(output_type="error", ename=ename, evalue="Step 2 used batches 1 + 2",
                                 traceback=["----", "  2 check_train_loop(train, cases='hidden')", "AssertionError: ..."])]
    return cell


def test_test_cells_keep_only_the_diagnosis():
    nb = new_notebook(cells=[_cell(True), _cell(False)])
    nb, _ = ConciseTestErrors().preprocess(nb, {})
    assert nb.cells[0].outputs[0].traceback == ["AssertionError: Step 2 used batches 1 + 2"]
    assert len(nb.cells[1].outputs[0].traceback) == 3  # an answer cell's own error stays whole


def test_a_checks_failure_is_its_message_alone():
    """The checks' own exception carries the feedback: no class name in front of it."""
    nb = new_notebook(cells=[_cell(True, "CheckFailed"), _cell(True, "ValueError"), _cell(True, "GradingCheck")])
    nb, _ = ConciseTestErrors().preprocess(nb, {})
    assert nb.cells[0].outputs[0].traceback == ["Step 2 used batches 1 + 2"]
    assert nb.cells[1].outputs[0].traceback == ["ValueError: Step 2 used batches 1 + 2"]
    assert nb.cells[2].outputs[0].traceback == ["Step 2 used batches 1 + 2"]  # the judge's reason (ApplyVerdicts)
