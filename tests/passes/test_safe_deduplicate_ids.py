"""SafeDeduplicateIds: a second cell with a grade id becomes plain student code (nbgrader's
DeduplicateIds left it with empty metadata that failed the whole notebook)."""
from __future__ import annotations

import copy

from nbformat.v4 import new_code_cell, new_notebook
from nbgrader.preprocessors import CheckCellMetadata, DeduplicateIds

from autograder.instructor.passes.safe_deduplicate_ids import SafeDeduplicateIds


def _answer(source: str):
    cell = new_code_cell(source)
    cell.metadata.nbgrader = {"grade": False, "solution": True, "locked": False, "grade_id": "train_loop",
                              "schema_version": 3}
    return cell


def test_the_copy_loses_its_nbgrader_metadata_and_the_notebook_stays_valid():
    nb = new_notebook(cells=[_answer("def train(): ..."), _answer("def train(): pass  # my copy")])
    ours, _ = SafeDeduplicateIds().preprocess(copy.deepcopy(nb), {})
    # like nbgrader, the last of the cells keeps the id (the cells are walked in reverse)
    assert ours.cells[1].metadata.nbgrader["grade_id"] == "train_loop"
    assert "nbgrader" not in ours.cells[0].metadata and ours.cells[0].source == "def train(): ..."
    CheckCellMetadata().preprocess(ours, {})  # passes
    theirs, _ = DeduplicateIds().preprocess(copy.deepcopy(nb), {})
    try:
        CheckCellMetadata().preprocess(theirs, {})
    except Exception:  # noqa: BLE001  nbgrader's own pass leaves a notebook its check rejects
        return
    raise AssertionError("nbgrader's DeduplicateIds no longer breaks the notebook: drop SafeDeduplicateIds")
